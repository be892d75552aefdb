// How the try page boots (issue 22, cold start): fx-term.wasm and its glue are requested with the
// page (a preload the loader's fetch then uses: one request), and the workspace's just-bash
// (a 1.2 MB bundle) loads beside fx instead of before it: the terminal is interactive while
// just-bash is still on its way, and the first command waits for it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadTry, openTry } from './try-support.mjs';

let app;

before(async () => {
  app = await openTry();
});

after(async () => {
  await app?.close();
});

test('fx-term.wasm is requested with the page, once, by its preload', async () => {
  const page = await app.newPage();
  const requests = [];
  page.on('request', (request) => {
    if (/\/pkg\/fx-term\.(wasm|js)$/.test(request.url())) requests.push(request.url().replace(/.*\/pkg\//, ''));
  });
  await loadTry(page, app.url);
  const entries = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => /\/pkg\/fx-term\.(wasm|js)$/.test(e.name))
      .map((e) => ({ name: e.name.replace(/.*\/pkg\//, ''), initiator: e.initiatorType })),
  );
  assert.deepEqual(requests.sort(), ['fx-term.js', 'fx-term.wasm']);
  assert.equal(entries.find((e) => e.name === 'fx-term.wasm')?.initiator, 'link', JSON.stringify(entries));
  assert.deepEqual(app.errors, []);
  await page.close();
});

test('the terminal is interactive before just-bash arrives; the first command waits for it', async () => {
  const page = await app.newPage();
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  let asked = false;
  await page.route('**/just-bash/dist/bundle/browser.js', async (route) => {
    asked = true;
    await held;
    await route.continue();
  });
  await loadTry(page, app.url);
  assert.ok(asked, 'the page asked for just-bash');
  // fx is interactive and just-bash has not arrived: a command started now is waiting.
  await page.evaluate(() => {
    window.__command = window.__fxTry.workspace.exec({ command: 'head -n 1 README.md' });
    window.__commandDone = false;
    window.__command.then(() => {
      window.__commandDone = true;
    });
  });
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => window.__commandDone), false, 'the command waits for just-bash');
  assert.equal(await page.evaluate(() => window.__fxTry.workspace.bash), null);
  release();
  const result = await page.evaluate(() => window.__command);
  assert.deepEqual(result, { stdout: '# tasks\n', stderr: '', exitCode: 0 });
  assert.deepEqual(app.errors, []);
  await page.close();
});
