// The try page's smoke test in Firefox and WebKit (its full suite, try*.test.mjs, runs in
// Chromium): served by the dev gateway in demo mode, it loads, a prompt gets the scripted demo's
// reply with its commands run in just-bash, and a reload resumes the session from IndexedDB.
// Screenshots land in screenshots/try-<engine>.png.

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
  });
}
