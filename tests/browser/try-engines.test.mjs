// The try page's smoke test in Firefox and WebKit (its full suite, try*.test.mjs, runs in
// Chromium): served by the dev gateway in demo mode, it loads, a prompt gets the scripted demo's
// reply with its commands run in just-bash, and a reload resumes the session from IndexedDB.
// Then issue 19's fixes under a real keyboard: Enter in the key dialog uses the key (and the
// toast says a --demo server stays scripted), Esc then Tab leaves the terminal, the empty
// terminal says where to type, /status reads as rows, the Screen reader switch works, and the
// terminal shows no native scrollbar (Firefox drew its buttons as white squares at the right
// edge). Screenshots land in screenshots/try-<engine>.png and try-<engine>-empty.png.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { ENGINES, launchEngine } from './engines.mjs';
import { SCREENSHOTS } from './try-support.mjs';

const screenText = () => window.__fxTry?.screenText?.() ?? '';

/** Waits until fx is interactive on the page. */
async function ready(page) {
  await page.waitFor(() => Boolean(window.__fxTry?.ready), null, { what: 'the try page to start' });
  await page.evaluate(() => window.__fxTry.ready.then(() => true));
}

function waitForScreen(page, needle) {
  return page
    .waitFor((text) => window.__fxTry?.screenText?.().includes(text), needle, { timeout: 20_000, what: needle })
    .catch(async (error) => {
      throw new Error(`${error.message}; the screen:\n${await page.evaluate(screenText).catch(() => '?')}`);
    });
}

/** Waits until no turn is running (the footer's activity row is gone). */
function waitForIdle(page) {
  return page.waitFor(
    () => !/(Thinking|Running .*) \(\d+s\)/.test(window.__fxTry.screenText().trimEnd().split('\n').slice(-12).join('\n')),
    null,
    { timeout: 20_000, what: 'the turn to finish' },
  );
}

for (const engine of ENGINES.filter((name) => name !== 'chromium')) {
  describe(`the try page in ${engine}`, () => {
    let gateway;
    let browser;
    let page;

    before(async () => {
      gateway = await startDevGateway({ port: 0, demo: true, demoDelayMs: 4 });
      browser = await launchEngine(engine);
      page = await browser.newPage();
    });

    after(async () => {
      await browser?.close();
      await gateway?.close();
    });

    test('loads, answers a demo turn, and a reload resumes the session', async () => {
      await page.goto(gateway.url);
      await ready(page);
      await waitForScreen(page, 'Run /help for commands');
      const session = await page.evaluate(() => window.__fxTry.runtime.sessionId);
      assert.match(session, /^\d+-\d+-[0-9a-f]{16}$/);

      await page.evaluate((text) => window.__fxTry.term.input(text), 'what is in this project?\r');
      await waitForScreen(page, 'This reply was scripted');
      await waitForIdle(page);
      const answered = await page.evaluate(screenText);
      assert.match(answered, /Ran ls -la · exit 0/);
      assert.match(answered, /TODOs \(2\)/);
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot(join(SCREENSHOTS, `try-${engine}.png`));

      await page.reload();
      await ready(page);
      await waitForScreen(page, 'This reply was scripted');
      const resumed = await page.evaluate(screenText);
      assert.match(resumed, /┃ what is in this project\?/);
      assert.equal(await page.evaluate(() => window.__fxTry.runtime.sessionId), session, 'the same session');
      assert.deepEqual(await page.errors(), []);
    });

    test('issue 19: the key dialog, Esc then Tab, the hint, /status, screen-reader mode, no white squares', async () => {
      // No native scrollbar beside xterm.js's own: nothing for Firefox to draw white squares in.
      const gutter = await page.evaluate(() => {
        const viewport = document.querySelector('#terminal .xterm-viewport');
        return viewport.offsetWidth - viewport.clientWidth;
      });
      assert.equal(gutter, 0, 'the viewport has no native scrollbar');

      await page.evaluate((text) => window.__fxTry.term.input(text), '/clear\r');
      await page.waitFor(() => !document.getElementById('composer-hint').hidden, null, { what: 'the composer hint' });
      await page.screenshot(join(SCREENSHOTS, `try-${engine}-empty.png`));

      await page.evaluate((text) => window.__fxTry.term.input(text), '/status\r');
      await waitForScreen(page, '● Status');
      assert.match(await page.evaluate(screenText), /Permissions +auto: commands run without asking/);

      const inTerminal = () => page.evaluate(() => Boolean(document.activeElement?.closest('#terminal')));
      await page.click('#terminal');
      await page.waitFor(() => Boolean(document.activeElement?.closest('#terminal')), null, { what: 'the terminal to have the focus' });
      await page.press('Escape');
      await page.press('Tab');
      assert.equal(await inTerminal(), false, 'Esc then Tab left the terminal');
      await page.click('#terminal');
      await page.waitFor(() => Boolean(document.activeElement?.closest('#terminal')), null, { what: 'the terminal to have the focus again' });
      await page.press('Escape');
      await page.press('Tab', { shift: true });
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'demo-notice-close', 'Esc then Shift+Tab went back');

      await page.click('#paste-key');
      await page.waitFor(() => document.getElementById('key-dialog').open, null, { what: 'the key dialog' });
      await page.type('vck_engine');
      await page.press('Enter');
      await page.waitFor(() => window.__fxTry.state.wayIn === 'key' && /Key saved/.test(document.getElementById('toast').textContent), null, {
        what: 'Enter to use the key',
      });
      assert.match(await page.evaluate(() => document.getElementById('toast').textContent), /--demo, so replies stay scripted/);
      await page.click('#forget-key');
      await page.waitFor(() => window.__fxTry.state.wayIn === 'none' && window.__fxTry.runtime, null, { what: 'Forget key' });

      await page.click('#screen-reader');
      assert.deepEqual(
        await page.evaluate(() => [window.__fxTry.term.options.screenReaderMode, Boolean(document.querySelector('.xterm-accessibility-tree'))]),
        [true, true],
      );
      await page.click('#screen-reader');
      assert.equal(await page.evaluate(() => window.__fxTry.term.options.screenReaderMode), false);
      assert.deepEqual(await page.errors(), []);
    });
  });
}
