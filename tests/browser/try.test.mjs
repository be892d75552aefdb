// The try page (examples/try/) in Chromium, served by the dev gateway in demo mode: it loads
// without console errors, a prompt streams the demo model's text and runs its commands in
// just-bash, Ctrl+C cancels a running turn, and a reload resumes the session from IndexedDB.
// Screenshots of the page before and after a turn land in screenshots/.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { loadTry, openTry, root, screen, screenshot, storedSessions, type, waitForIdle, waitForScreen } from './try-support.mjs';

let t;
let page;

before(async () => {
  t = await openTry({ gateway: { demoDelayMs: 15 } });
  page = await t.newPage();
});

after(async () => {
  await t?.close();
});

test('the page loads: header, demo labels, a terminal filling the window, no console errors', async () => {
  await loadTry(page, t.url);
  await waitForScreen(page, 'Run /help for commands');
  const layout = await page.evaluate(() => {
    const box = document.getElementById('terminal').getBoundingClientRect();
    const header = document.querySelector('.bar').getBoundingClientRect();
    return {
      source: document.getElementById('source-label').textContent,
      kind: document.getElementById('source').dataset.kind,
      notice: !document.getElementById('demo-notice').hidden && document.getElementById('demo-notice').textContent,
      wayIn: document.getElementById('way-in').dataset.state,
      permission: document.querySelector('input[name="permission"]:checked')?.value,
      terminalBottom: box.bottom,
      terminalWidth: box.width,
      headerHeight: header.height,
      innerHeight: window.innerHeight,
      innerWidth: window.innerWidth,
      scrolls: document.documentElement.scrollHeight > window.innerHeight || document.documentElement.scrollWidth > window.innerWidth,
      cols: window.__fxTry.term.cols,
      rows: window.__fxTry.term.rows,
      runtimeSession: window.__fxTry.runtime.sessionId,
    };
  });
  assert.match(layout.source, /Scripted demo/);
  assert.equal(layout.kind, 'demo');
  assert.match(layout.notice, /Scripted demo/);
  assert.equal(layout.wayIn, 'none');
  assert.equal(layout.permission, 'code', 'auto: commands run without asking');
  assert.equal(layout.terminalBottom, layout.innerHeight, 'the terminal reaches the bottom of the window');
  assert.equal(layout.terminalWidth, layout.innerWidth);
  assert.ok(layout.headerHeight <= 56, `a slim header (${layout.headerHeight}px)`);
  assert.equal(layout.scrolls, false, 'the page itself never scrolls');
  assert.ok(layout.cols > 100 && layout.rows > 25, `fitted to the window: ${layout.cols}x${layout.rows}`);
  assert.match(layout.runtimeSession, /^\d+-\d+-[0-9a-f]{16}$/, 'a new session was created and is reported');
  await screenshot(page, 'try-start.png');
  assert.deepEqual(t.errors, []);
});

test('a prompt (the notice’s suggestion) streams the demo text, runs its commands in just-bash and finishes', async () => {
  await page.click('.suggestion[data-prompt="what is in this project?"]');
  // While the turn runs, the text is already on screen next to the activity row.
  await page.waitForFunction(
    () => {
      const text = window.__fxTry.screenText();
      return text.includes('scripted demo model') && /(Thinking|Running [^\n]*) \(\d+s\)/.test(text);
    },
    null,
    { polling: 20 },
  );
  const done = await waitForScreen(page, 'This reply was scripted');
  await waitForIdle(page);
  assert.match(done, /Ran ls -la · exit 0/);
  assert.match(done, /Ran grep -n TODO -r \. · exit 0/);
  assert.match(done, /src\/tasks\.js:8:\s+\/\/ TODO: reject empty titles/, 'the command output is on screen');
  assert.match(done, /TODOs \(2\)/);
  await screenshot(page, 'try-after-turn.png');
  const sessions = await storedSessions(page);
  assert.equal(sessions.length, 1);
  assert.equal(sessions[0].view.turns.length, 1);
  assert.equal(sessions[0].view.turns[0].user.text, 'what is in this project?');
  assert.deepEqual(t.errors, []);
});

test('Ctrl+C cancels a running turn; the terminal stays usable', async () => {
  await type(page, 'run sleep 20\r');
  await waitForScreen(page, /Running sleep 20 \(\d+s\)/);
  await type(page, '\x03');
  const shown = await waitForScreen(page, 'System: cancelled');
  await waitForIdle(page);
  assert.doesNotMatch(shown.trimEnd().split('\n').slice(-6).join('\n'), /Running sleep 20 \(/);
  await type(page, 'run echo still-here\r');
  await waitForScreen(page, /Ran echo still-here · exit 0/);
  await waitForIdle(page);
  assert.deepEqual(t.errors, []);
});

test('a reload resumes the session from IndexedDB with its transcript', async () => {
  const before = await page.evaluate(() => window.__fxTry.runtime.sessionId);
  await page.reload();
  await loadTry(page, t.url);
  const shown = await waitForScreen(page, 'This reply was scripted');
  assert.match(shown, /┃ what is in this project\?/);
  assert.match(shown, /Ran grep -n TODO -r \./);
  assert.match(shown, /run echo still-here/);
  assert.equal(await page.evaluate(() => window.__fxTry.runtime.sessionId), before);
  assert.equal((await storedSessions(page)).length, 1, 'no new session was created');
  assert.deepEqual(t.errors, []);
});

test('hiding the demo notice gives its room to the terminal', async () => {
  const rows = await page.evaluate(() => window.__fxTry.term.rows);
  await page.click('#demo-notice-close');
  await page.waitForFunction((before) => window.__fxTry.term.rows > before, rows);
  await page.waitForFunction(toldFx);
  const layout = await page.evaluate(() => ({
    notice: document.getElementById('demo-notice').hidden,
    bottom: document.getElementById('terminal').getBoundingClientRect().bottom,
    innerHeight: window.innerHeight,
  }));
  assert.equal(layout.notice, true);
  assert.equal(layout.bottom, layout.innerHeight);
});

/** In the page: whether fx last read the size xterm has now (fx may apply resizes late). */
function toldFx() {
  const { term, events } = window.__fxTry;
  const last = events.filter((e) => e.type === 'terminal.size').at(-1);
  return last?.cols === term.cols && last?.rows === term.rows;
}

test('the window resizes the terminal', async () => {
  const before = await page.evaluate(() => [window.__fxTry.term.cols, window.__fxTry.term.rows]);
  await page.setViewportSize({ width: 900, height: 600 });
  await page.waitForFunction(([cols]) => window.__fxTry.term.cols < cols, before);
  await page.waitForFunction(toldFx);
  const after = await page.evaluate(() => [window.__fxTry.term.cols, window.__fxTry.term.rows]);
  assert.ok(after[0] < before[0] && after[1] < before[1], JSON.stringify({ before, after }));
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.ok((await screen(page)).includes('┃'));
});

test('the page’s default real model is the crate’s DEFAULT_MODEL_ID', async () => {
  const rust = await readFile(join(root, 'src', 'gateway', 'catalog.rs'), 'utf8');
  const page = await readFile(join(root, 'examples', 'try', 'main.js'), 'utf8');
  const crate = rust.match(/pub const DEFAULT_MODEL_ID: &str = "([^"]+)";/)?.[1];
  assert.ok(crate);
  assert.equal(page.match(/const REAL_DEFAULT_MODEL = '([^']+)';/)?.[1], crate);
});

test('after /exit a key starts fx again on the same session', async () => {
  const session = await page.evaluate(() => window.__fxTry.runtime.sessionId);
  const starts = await page.evaluate(() => window.__fxTry.starts);
  await type(page, '/exit\r');
  await waitForScreen(page, 'Press any key to pick this session up again');
  await type(page, 'x');
  await page.waitForFunction((n) => window.__fxTry.starts === n + 1 && window.__fxTry.runtime?.sessionId, starts);
  await waitForScreen(page, 'This reply was scripted');
  assert.equal(await page.evaluate(() => window.__fxTry.runtime.sessionId), session);
  assert.deepEqual(t.errors, []);
});
