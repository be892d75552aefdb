// The try page's header controls in Chromium (dev gateway in demo mode, so nothing leaves the
// machine): the permission switch and the terminal's /permissions are one setting, in sync both
// ways; the approval panel allows and denies; a pasted AI Gateway key lives in sessionStorage,
// rides every model request as the bearer, and "Forget key" drops it again.

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

const statusLine = () => page.evaluate(() => window.__fxTry.screenText().trimEnd().split('\n').at(-1));
const headerMode = () => page.evaluate(() => document.querySelector('input[name="permission"]:checked')?.value);

test('one permission setting: the header, the footer and /status agree, auto by default', async () => {
  assert.equal(await headerMode(), 'code', 'auto by default');
  assert.equal(await page.textContent('label:has(input[value="code"]) span'), 'auto');
  assert.match(await statusLine(), /^auto · /);
  await type(page, '/status\r');
  await waitForScreen(page, /Permissions +auto: commands run without asking/);
  await type(page, 'run echo warm-up\r');
  await waitForScreen(page, /Ran echo warm-up · exit 0/);
  await waitForIdle(page);
  assert.ok((await executed()).includes('echo warm-up'), 'auto ran it without asking');
});

test('the header switch changes the mode in place (no restart); then fx asks and allows', async () => {
  const starts = await page.evaluate(() => window.__fxTry.starts);
  await page.click('label:has(input[value="ask"])');
  await waitForScreen(page, 'Permissions: ask · fx asks before each command');
  await page.waitForFunction(() => window.__fxTry.screenText().trimEnd().split('\n').at(-1).startsWith('ask · '));
  assert.equal(await page.evaluate(() => window.__fxTry.starts), starts, 'fx was not restarted');
  assert.equal(await headerMode(), 'ask');
  assert.equal(await page.evaluate(() => localStorage.getItem('fx.try.config.mode')), 'ask');

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

test('3 denies at once: the command never runs and the turn ends', async () => {
  await type(page, 'run echo never-run\r');
  await waitForScreen(page, '$ echo never-run');
  // 3 decides at once.
  await type(page, '3');
  await waitForScreen(page, 'so the demo stops here');
  assert.match(await waitForScreen(page, 'Denied echo never-run'), /· 1 denied/);
  await waitForIdle(page);
  assert.ok(!(await executed()).includes('echo never-run'));
});

test('/permissions and Shift+Tab in the terminal move the header switch; the session keeps every turn', async () => {
  await type(page, '/permissions auto\r');
  await page.waitForFunction(() => document.querySelector('input[name="permission"]:checked')?.value === 'code');
  assert.match(await statusLine(), /^auto · /);
  assert.equal(await page.evaluate(() => localStorage.getItem('fx.try.config.mode')), 'code');
  await type(page, 'run echo free-run\r');
  await waitForScreen(page, /Ran echo free-run · exit 0/);
  await waitForIdle(page);

  // Shift+Tab, on the real keyboard.
  await page.click('#terminal');
  await page.keyboard.press('Shift+Tab');
  await page.waitForFunction(() => document.querySelector('input[name="permission"]:checked')?.value === 'ask');
  assert.match(await statusLine(), /^ask · /);

  // A reload restores the same setting in both places.
  await loadTry(page, t.url);
  await waitForScreen(page, 'Session: resumed');
  assert.equal(await headerMode(), 'ask');
  assert.match(await statusLine(), /^ask · /);
  await page.click('label:has(input[value="code"])');
  await page.waitForFunction(() => window.__fxTry.screenText().trimEnd().split('\n').at(-1).startsWith('auto · '));

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

test('a pasted key the AI Gateway refuses (HTTP 401) points to "Forget key"', async () => {
  const chat = new URL('v3/ai/language-model', t.url).href;
  await page.click('#paste-key');
  await page.fill('#key-input', 'vck_revoked-key');
  await page.click('#key-use');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'key');
  await page.waitForFunction(() => window.__fxTry.runtime?.sessionId);
  await page.evaluate(() => window.__fxTry.ready);
  // The gateway refuses this key.
  await page.route(chat, (route) =>
    route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ error: { message: 'Invalid API key' } }) }),
  );
  await type(page, 'hello\r');
  await waitForScreen(page, 'HTTP 401');
  await page.waitForFunction(() => document.getElementById('toast').dataset.tone === 'error');
  assert.match(await page.textContent('#toast'), /refused your key \(HTTP 401\)\. Press “Forget key”/);
  assert.equal(await page.getAttribute('#forget-key', 'data-attention'), 'true');
  await screenshot(page, 'try-key-refused.png');
  await page.unroute(chat);
  await page.click('#forget-key');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'none');
  assert.equal(await page.getAttribute('#forget-key', 'data-attention'), null);
});
