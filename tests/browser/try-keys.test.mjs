// The try page's terminal under a real keyboard (Playwright key events into xterm.js's textarea,
// as a person types): Shift+Enter starts a new line in the draft instead of sending it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadTry, openTry, screen, screenshot, storedSessions, waitForIdle, waitForScreen } from './try-support.mjs';

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

test('Shift+Enter inserts a new line; Enter then sends both lines as one prompt', async () => {
  const chat = new URL('v3/ai/language-model', t.url).href;
  const requests = [];
  page.on('request', (request) => {
    if (request.url() === chat) requests.push(request.postData());
  });
  await page.click('#terminal');
  await page.keyboard.type('first line');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('second line');
  const draft = await waitForScreen(page, '┃ second line');
  assert.match(draft, /┃ first line\n┃ second line/, draft);
  // Nothing was sent: no request, no turn, no prompt card above the composer.
  await page.waitForTimeout(300);
  assert.equal(requests.length, 0, 'Shift+Enter sent nothing');
  assert.doesNotMatch(await screen(page), /Thinking|scripted demo model/);
  await screenshot(page, 'try-shift-enter.png');

  await page.keyboard.press('Enter');
  await waitForScreen(page, 'scripted demo model');
  await waitForIdle(page);
  const [stored] = await storedSessions(page);
  assert.deepEqual(
    stored.view.turns.map((turn) => turn.user.text),
    ['first line\nsecond line'],
  );
  assert.deepEqual(t.errors, []);
});
