// The try page's header controls in Chromium (dev gateway in demo mode, so nothing leaves the
// machine): the permission switch restarts fx on the same session and the approval panel both
// allows and denies; a pasted AI Gateway key lives in sessionStorage, rides every model request
// as the bearer, and "Forget key" drops it again.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadTry, openTry, screenshot, storedSessions, type, waitForIdle, waitForScreen } from './try-support.mjs';

let t;
let page;

before(async () => {
  t = await openTry();
  page = await t.newPage();
  await loadTry(page, t.url);
  // Record what reaches the workspace.
  await page.evaluate(() => {
    const { workspace } = window.__fxTry;
    const exec = workspace.exec;
    window.__executed = [];
    workspace.exec = (input) => {
      window.__executed.push(input.command);
      return exec(input);
    };
  });
});

after(async () => {
  await t?.close();
});

const executed = () => page.evaluate(() => window.__executed);

test('"Ask first" restarts fx on the same session; the approval panel allows a command', async () => {
  await type(page, 'run echo warm-up\r');
  await waitForScreen(page, /Ran echo warm-up · exit 0/);
  await waitForIdle(page);
  const session = await page.evaluate(() => window.__fxTry.runtime.sessionId);

  await page.click('label:has(input[value="prompt"])');
  await page.waitForFunction(() => window.__fxTry.workspace.permission === 'prompt');
  const restarted = await waitForScreen(page, 'Ran echo warm-up');
  assert.match(restarted, /Session: resumed/);
  assert.equal(await page.evaluate(() => window.__fxTry.runtime.sessionId), session, 'the same session');
  assert.equal(await page.evaluate(() => localStorage.getItem('fx.try.permission')), 'prompt');

  await type(page, 'run echo approved-here\r');
  const asking = await waitForScreen(page, 'Permission needed · run this command?');
  assert.match(asking, /\$ echo approved-here/);
  assert.ok(!(await executed()).includes('echo approved-here'), 'nothing runs before the answer');
  await screenshot(page, 'try-approval.png');
  await type(page, '1');
  await waitForScreen(page, /Ran echo approved-here · exit 0/);
  await waitForIdle(page);
  assert.ok((await executed()).includes('echo approved-here'));
});

test('the approval panel denies a command: it never runs and the turn ends', async () => {
  await type(page, 'run echo never-run\r');
  await waitForScreen(page, '$ echo never-run');
  // 3 decides at once.
  await type(page, '3');
  await waitForScreen(page, 'so the demo stops here');
  assert.match(await waitForScreen(page, 'Denied echo never-run'), /· 1 denied/);
  await waitForIdle(page);
  assert.ok(!(await executed()).includes('echo never-run'));
});

test('switching back to "Run" runs commands without asking; the session keeps every turn', async () => {
  await page.click('label:has(input[value="allow-sandboxed"])');
  await page.waitForFunction(() => window.__fxTry.workspace.permission === 'allow-sandboxed');
  await waitForScreen(page, 'so the demo stops here');
  await type(page, 'run echo free-run\r');
  await waitForScreen(page, /Ran echo free-run · exit 0/);
  await waitForIdle(page);
  const [stored] = await storedSessions(page);
  assert.deepEqual(
    stored.view.turns.map((turn) => turn.user.text),
    ['run echo warm-up', 'run echo approved-here', 'run echo never-run', 'run echo free-run'],
  );
  assert.deepEqual(t.errors, []);
});

test('a pasted key stays in the tab, is sent as the bearer, and "Forget key" drops it', async () => {
  const chat = new URL('v3/ai/language-model', t.url).href;
  const seen = [];
  page.on('request', (request) => {
    if (request.url() === chat) seen.push(request.headers().authorization ?? null);
  });
  await type(page, 'run echo before-key\r');
  await waitForScreen(page, /Ran echo before-key · exit 0/);
  await waitForIdle(page);
  assert.ok(seen.length > 0 && seen.every((auth) => auth === null), `no credential yet: ${seen}`);

  await page.click('#paste-key');
  await page.fill('#key-input', '  vck_try-page-test-key  ');
  await screenshot(page, 'try-key-dialog.png');
  await page.click('#key-use');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'key');
  await page.waitForFunction(() => window.__fxTry.runtime);
  await page.evaluate(() => window.__fxTry.ready);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('fx.try.gatewayKey')), 'vck_try-page-test-key');
  assert.equal(await page.textContent('#source-label'), 'Scripted demo · offline', 'the server is in --demo mode');

  seen.length = 0;
  await waitForScreen(page, 'Ran echo before-key');
  await page.waitForFunction(() => window.__fxTry.runtime?.sessionId);
  await type(page, 'run echo with-key\r');
  await waitForScreen(page, /Ran echo with-key · exit 0/);
  await waitForIdle(page);
  assert.ok(seen.length > 0, 'the turn made requests');
  assert.ok(seen.every((auth) => auth === 'Bearer vck_try-page-test-key'), JSON.stringify(seen));
  const persisted = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  assert.ok(!persisted.includes('vck_try-page-test-key'), 'the key is not in localStorage');

  await page.click('#forget-key');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'none');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('fx.try.gatewayKey')), null);
  await page.waitForFunction(() => window.__fxTry.runtime?.sessionId);
  await waitForScreen(page, 'Ran echo with-key');
  seen.length = 0;
  await type(page, 'run echo after-forget\r');
  await waitForScreen(page, /Ran echo after-forget · exit 0/);
  await waitForIdle(page);
  assert.ok(seen.length > 0 && seen.every((auth) => auth === null), JSON.stringify(seen));
  assert.deepEqual(t.errors, []);
});
