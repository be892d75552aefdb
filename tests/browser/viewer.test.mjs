// The session viewer page (examples/viewer/) in Chromium: a sample session picked from the list
// (by what it shows, not its test name), a native session folder opened through the directory
// input, a session zip as the try page downloads it (and a damaged one refused), and the export
// download, named by the session's title and date.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { zip } from '../../examples/shared/zip.js';
import { EXPECTED } from '../node/fixture-views.mjs';
import { FIXTURES_DIR, fixtureNames, loadFixture } from '../node/fixtures.mjs';
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

test('the samples are listed by what they show, every recorded one included', async () => {
  const { page, url } = browser;
  await page.goto(`${url}examples/viewer/`);
  await page.locator('#fixture option[value="simple"]').waitFor({ state: 'attached' });
  const options = await page.$$eval('#fixture option', (os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(options[0], ['', 'choose…']);
  const listed = options.slice(1);
  assert.deepEqual(listed.map(([value]) => value).sort(), await fixtureNames());
  assert.deepEqual(listed.slice(0, 2), [
    ['simple', 'A one-line answer'],
    ['multiturn', 'Four turns: a command and a file read'],
  ]);
  for (const [value, label] of listed) assert.notEqual(label, value, `${value} has a human name`);
  await page.selectOption('#fixture', { label: 'A command that fails' });
  await page.locator('#session:not([hidden])').waitFor();
  assert.equal(await page.textContent('#title'), EXPECTED.failing.title);
});

test("a session zip opens (the try page's download: <id>/ inside); a damaged one is refused", async () => {
  const { page, url } = browser;
  const work = await mkdtemp(join(tmpdir(), 'fx-viewer-'));
  try {
    const { files } = await loadFixture('files');
    const id = EXPECTED.files.id;
    const inFolder = Object.fromEntries(Object.entries(files).map(([p, d]) => [`${id}/${p}`, d]));
    const archive = Buffer.from(await zip({ ...inFolder, '__MACOSX/._x': new Uint8Array(1) }).arrayBuffer());
    await writeFile(join(work, 'session.zip'), archive);
    await page.goto(`${url}examples/viewer/`);
    await page.setInputFiles('#zip', join(work, 'session.zip'));
    await page.locator('#session:not([hidden])').waitFor();
    assert.equal(await page.textContent('#title'), EXPECTED.files.title);
    assert.equal(await page.locator('#turns > li').count(), EXPECTED.files.turns.length);
    assert.equal(await page.inputValue('#fixture'), '', 'no sample is shown as picked');

    // Files at the root of the zip work as well.
    await writeFile(join(work, 'flat.zip'), Buffer.from(await zip(files).arrayBuffer()));
    await page.setInputFiles('#zip', join(work, 'flat.zip'));
    await page.waitForFunction(() => document.getElementById('status').hidden);

    const damaged = Buffer.from(archive);
    damaged[30 + damaged.readUInt16LE(26) + 3] ^= 0xff;
    await writeFile(join(work, 'damaged.zip'), damaged);
    await page.setInputFiles('#zip', join(work, 'damaged.zip'));
    await page.waitForFunction(() => document.getElementById('status').classList.contains('error'));
    assert.match(await page.textContent('#status'), /damaged\.zip could not be read as a zip: .*CRC/);
    await writeFile(join(work, 'other.zip'), Buffer.from(await zip({ 'notes.txt': new Uint8Array([104, 105]) }).arrayBuffer()));
    await page.setInputFiles('#zip', join(work, 'other.zip'));
    await page.waitForFunction(() => /no events\.jsonl/.test(document.getElementById('status').textContent));

    // The export is named by the title and date.
    await page.setInputFiles('#zip', join(work, 'session.zip'));
    await page.waitForFunction(() => document.getElementById('status').hidden);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-dir')]);
    assert.match(download.suggestedFilename(), /^fx-[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.zip$/);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

test('the zip and folder buttons are buttons: reachable from the keyboard', async () => {
  const { page, url } = browser;
  await page.goto(`${url}examples/viewer/`);
  const names = await page.$$eval('header button', (bs) => bs.map((b) => b.textContent));
  assert.ok(names.includes('Open a session zip…') && names.includes('Open a session folder…'), names.join(', '));
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.focus('#open-zip').then(() => page.keyboard.press('Enter'))]);
  assert.equal(chooser.isMultiple(), false);
});

test('the viewer logged no errors', () => {
  assert.deepEqual(browser.pageErrors, []);
});
