// The try page for keyboard and screen-reader users, in Chromium: axe-core finds no serious or
// critical violation (an empty terminal, after a turn, the key dialog, the More menu at 360 px,
// screen-reader mode on), nor on the examples home and the session viewer; Esc then Tab moves
// the focus out of the terminal (Shift+Tab backwards, to the control above it) and fx's /help says so; the header's
// Screen reader switch turns xterm.js's screen-reader mode on and off, and a reload keeps it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { seriousViolations } from './axe.mjs';
import { loadTry, openTry, screen, type, waitForIdle, waitForScreen } from './try-support.mjs';

let t;
let page;

before(async () => {
  t = await openTry();
  page = await t.newPage();
  await loadTry(page, t.url);
  await waitForScreen(page, 'Run /help for commands');
});

after(async () => {
  await t?.close();
});

/** Where the keyboard focus is: `terminal` (xterm.js's input), or the focused element's id/tag. */
const focusIs = () =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (el?.closest('#terminal')) return 'terminal';
    return el?.id || el?.tagName.toLowerCase() || 'none';
  });

test('axe: nothing serious or critical on the try page, empty and after a turn', async () => {
  assert.deepEqual(await seriousViolations(page), [], 'an empty terminal');
  await type(page, 'what is in this project?\r');
  await waitForScreen(page, 'This reply was scripted');
  await waitForIdle(page);
  assert.deepEqual(await seriousViolations(page), [], 'after a turn');
});

test('axe: the key dialog and, at 360 px, the More menu', async () => {
  await page.click('#paste-key');
  await page.waitForSelector('#key-dialog[open]');
  assert.deepEqual(await seriousViolations(page), [], 'the key dialog');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#key-dialog', { state: 'hidden' });
  await page.setViewportSize({ width: 360, height: 720 });
  await page.click('#more');
  await page.waitForFunction(() => document.getElementById('more-menu').matches(':popover-open'));
  assert.deepEqual(await seriousViolations(page), [], 'the More menu at 360 px');
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('Esc then Tab leaves the terminal; Esc then Shift+Tab goes back to the controls above it; a plain Tab stays', async () => {
  await page.click('#terminal');
  assert.equal(await focusIs(), 'terminal');
  // A plain Tab is the terminal's: the focus stays.
  await page.keyboard.press('Tab');
  assert.equal(await focusIs(), 'terminal', 'a Tab alone stays in the terminal');

  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+Tab');
  const back = await focusIs();
  assert.notEqual(back, 'terminal', 'Esc, Shift+Tab left the terminal');
  // The control just before the terminal (the demo notice's ×, else the header's last one).
  assert.equal(back, 'demo-notice-close');

  // Back in, then out forwards: the focus is no longer in the terminal.
  await page.keyboard.press('Tab');
  await page.click('#terminal');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  assert.notEqual(await focusIs(), 'terminal', 'Esc, Tab left the terminal');

  // Esc, then another key, then Tab: the Tab is the terminal's again.
  await page.click('#terminal');
  await page.keyboard.press('Escape');
  await page.keyboard.press('a');
  await page.keyboard.press('Tab');
  assert.equal(await focusIs(), 'terminal');
  await page.keyboard.press('Backspace');
  assert.deepEqual(t.errors, []);
});

test("fx's /help lists Esc, then Tab on this page", async () => {
  await type(page, '/help\r');
  const help = await waitForScreen(page, 'fx help');
  assert.match(help, /Esc, then Tab +leave the terminal \(Shift\+Tab: backwards\)/, help);
  await type(page, '\x1b');
  await page.waitForFunction(() => !window.__fxTry.screenText().includes('fx help'));
});

test('the Screen reader switch turns xterm.js screen-reader mode on and off; a reload keeps it', async () => {
  const mode = () =>
    page.evaluate(() => ({
      option: window.__fxTry.term.options.screenReaderMode,
      pressed: document.getElementById('screen-reader').getAttribute('aria-pressed'),
      tree: Boolean(document.querySelector('#terminal .xterm-accessibility-tree')),
      item: document.getElementById('screen-reader-item').textContent,
    }));
  assert.deepEqual(await mode(), { option: false, pressed: 'false', tree: false, item: 'Turn screen reader mode on' });
  await page.click('#screen-reader');
  assert.deepEqual(await mode(), { option: true, pressed: 'true', tree: true, item: 'Turn screen reader mode off' });
  // The accessible copy holds the terminal's text, and axe is content with it.
  await page.waitForFunction(() => /Run \/help for commands|This reply was scripted/.test(document.querySelector('#terminal .xterm-accessibility-tree').textContent));
  assert.deepEqual(await seriousViolations(page), [], 'screen-reader mode');

  await page.reload();
  await page.waitForFunction(() => window.__fxTry?.ready);
  await page.evaluate(() => window.__fxTry.ready);
  assert.equal((await mode()).option, true, 'kept across a reload');
  // From the More menu too, at 360 px.
  await page.setViewportSize({ width: 360, height: 720 });
  await page.click('#more');
  await page.click('#screen-reader-item');
  assert.deepEqual(await mode(), { option: false, pressed: 'false', tree: false, item: 'Turn screen reader mode on' });
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.match(await screen(page), /┃/);
  assert.deepEqual(t.errors, []);
});

test('axe: the examples home and the session viewer (a sample open)', async () => {
  const other = await t.newPage();
  await other.goto(`${t.url}examples/`);
  await other.waitForSelector('h1');
  assert.deepEqual(await seriousViolations(other), [], 'the examples home');
  await other.goto(`${t.url}examples/viewer/?session=markdown`);
  await other.locator('#session:not([hidden])').waitFor();
  assert.deepEqual(await seriousViolations(other), [], 'the viewer');
  await other.close();
  assert.deepEqual(t.errors, []);
});
