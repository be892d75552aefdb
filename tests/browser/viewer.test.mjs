// The session viewer page (examples/viewer/) in Chromium: a recorded session picked from the
// list, a native session folder opened through the directory input, and the export download.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { EXPECTED } from '../node/fixture-views.mjs';
import { FIXTURES_DIR, loadFixture } from '../node/fixtures.mjs';
import { openBrowser } from './chromium.mjs';

let browser;

before(async () => {
  browser = await openBrowser();
});

after(async () => {
  await browser?.close();
});

test('picking a recorded session shows its turns, tool results and reasons', async () => {
  const { page, url } = browser;
  await page.goto(`${url}examples/viewer/`);
  await page.locator('#fixture option[value="failing"]').waitFor({ state: 'attached' });
  await page.selectOption('#fixture', 'failing');
  await page.locator('#session:not([hidden])').waitFor();
  assert.equal(await page.textContent('#title'), EXPECTED.failing.title);
  const turns = page.locator('#turns > li');
  assert.equal(await turns.count(), EXPECTED.failing.turns.length);
  const first = await turns.nth(0).innerText();
  assert.match(first, /FAILCMD now/);
  assert.match(first, /\$ ls \/nonexistent-dir/);
  assert.match(first, /failure/);
  assert.match(first, /exit 2/);
  assert.match(first, /The command finished\. Done\./);

  await page.selectOption('#fixture', 'interrupted');
  await page.locator('#turns >> text=STALL forever').waitFor();
  assert.match(await page.locator('#turns > li').nth(1).innerText(), /interrupted: cancelled/);
});

test("fx's replies are rendered as Markdown: a heading, a table, a code block", async () => {
  const { page, url } = browser;
  await page.goto(`${url}examples/viewer/`);
  await page.locator('#fixture option[value="markdown"]').waitFor({ state: 'attached' });
  await page.selectOption('#fixture', 'markdown');
  await page.locator('#session:not([hidden])').waitFor();
  const first = page.locator('#turns > li').nth(0).locator('.assistant .markdown');
  assert.equal(await first.locator('h3').first().textContent(), 'Title');
  assert.deepEqual(await first.locator('table th').allTextContents(), ['a', 'b']);
  assert.match(await first.locator('pre code').first().textContent(), /console\.log/);
  assert.doesNotMatch(await first.innerText(), /\|---\||^# /m);
});

test('a native session folder opens through the directory input and exports as a zip', async () => {
  const { page, url } = browser;
  await page.goto(`${url}examples/viewer/`);
  const { dir, events } = await loadFixture('twotools');
  await page.setInputFiles('#folder', join(FIXTURES_DIR, dir));
  await page.locator('#session:not([hidden])').waitFor();
  assert.equal(await page.textContent('#title'), EXPECTED.twotools.title);
  assert.match(await page.locator('#turns').innerText(), /unié☃/);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-dir')]);
  const archive = await readFile(await download.path());
  assert.equal(archive.readUInt32LE(0), 0x04034b50, 'a zip archive');
  assert.ok(archive.includes(Buffer.from(`${EXPECTED.twotools.id}/events.jsonl`)), 'holds events.jsonl');
  assert.ok(archive.includes(Buffer.from(events)), 'holds the session log unchanged (stored)');
});

test('the viewer logged no errors', () => {
  assert.deepEqual(browser.pageErrors, []);
});
