// Sessions on the try page in Chromium (dev gateway in demo mode): two tabs on one session fork
// instead of losing a turn; Download gives a native fx session directory in a zip, and Import
// (the zip as downloaded, a deflated zip, or the unpacked folder) brings back the identical
// session and resumes it.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';

import { loadTry, openTry, storedSessions, type, waitForIdle, waitForScreen } from './try-support.mjs';

let t;
let work;

before(async () => {
  t = await openTry();
  work = await mkdtemp(join(tmpdir(), 'fx-try-sessions-'));
});

after(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

async function turn(page, text) {
  await type(page, `${text}\r`);
  await waitForScreen(page, new RegExp(`Ran ${text.replace(/^run /, '')} · exit 0`));
  await waitForIdle(page);
}

test('two tabs on one session: the later turn forks, with a notice, and nothing is lost', async () => {
  const a = await t.newPage();
  await loadTry(a, t.url);
  await turn(a, 'run echo first-from-a');
  const b = await t.newPage();
  await loadTry(b, t.url);
  await waitForScreen(b, 'Ran echo first-from-a');
  const shared = await a.evaluate(() => window.__fxTry.runtime.sessionId);
  assert.equal(await b.evaluate(() => window.__fxTry.runtime.sessionId), shared, 'tab B resumed the same session');

  await turn(a, 'run echo second-from-a');
  await turn(b, 'run echo second-from-b');
  await b.waitForSelector('#toast:not([hidden])');
  assert.match(await b.textContent('#toast'), /saved as a new session\. Nothing was lost/);
  // fx says so in the terminal too.
  await waitForScreen(b, 'another tab or window changed this session');
  const forked = await b.evaluate(() => window.__fxTry.events.find((e) => e.type === 'session.forked'));
  assert.equal(forked.from, shared);
  const forkId = await b.evaluate(() => window.__fxTry.runtime.sessionId);
  assert.equal(forked.to, forkId);
  assert.notEqual(forkId, shared);

  const sessions = Object.fromEntries((await storedSessions(a)).map(({ id, view }) => [id, view.turns.map((x) => x.user.text)]));
  assert.deepEqual(sessions[shared], ['run echo first-from-a', 'run echo second-from-a']);
  assert.deepEqual(sessions[forkId], ['run echo first-from-a', 'run echo second-from-b']);
  await b.close();
  assert.deepEqual(t.errors, []);
});

/** A zip with deflated entries, as `zip -r` would make it (Node's zlib does the deflating). */
function deflatedZip(files) {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (bytes) => {
    let c = 0xffffffff;
    for (const b of bytes) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [path, data] of Object.entries(files)) {
    const name = Buffer.from(path);
    const packed = deflateRawSync(data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0800, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(crc32(data), 14);
    header.writeUInt32LE(packed.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(name.length, 26);
    locals.push(header, name, packed);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(crc32(data), 16);
    entry.writeUInt32LE(packed.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += 30 + name.length + packed.length;
  }
  const size = central.reduce((n, part) => n + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}

test('Download gives a native session zip; Import (zip, deflated zip, folder) restores the identical session', async () => {
  const page = await t.newPage();
  await loadTry(page, t.url);
  await turn(page, 'run echo exported-turn');
  const id = await page.evaluate(() => window.__fxTry.runtime.sessionId);
  const original = await page.evaluate(async (sid) => {
    const fx = await import('/pkg/index.js');
    const { bytes } = await window.__fxTry.sessionStore.load(sid);
    return { bytes: [...bytes], view: JSON.parse(JSON.stringify(await fx.readSession(bytes))), files: Object.keys(await fx.exportNativeSession(bytes)) };
  }, id);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  // Named by the session's title and date; the folder inside keeps the id (~/.fx/sessions/<id>/).
  assert.match(download.suggestedFilename(), /^fx-[\p{L}\p{N}-]+-\d{4}-\d{2}-\d{2}\.zip$/u);
  assert.equal(download.suggestedFilename(), await page.evaluate((view) => window.__fxTry.downloadName(view), original.view));
  const zipPath = join(work, `${id}.zip`);
  await download.saveAs(zipPath);

  // What is inside, read with the page's own reader.
  const entries = await page.evaluate(async (bytes) => {
    const { unzip } = await import('/examples/shared/zip.js');
    const files = await unzip(new Uint8Array(bytes));
    return Object.fromEntries(Object.entries(files).map(([path, data]) => [path, [...data]]));
  }, [...(await readFile(zipPath))]);
  assert.deepEqual(Object.keys(entries).sort(), original.files.map((f) => `${id}/${f}`).sort());
  assert.deepEqual(entries[`${id}/events.jsonl`], original.bytes, 'events.jsonl is the stored log');

  const importAndCompare = async (how, upload) => {
    await page.evaluate((sid) => window.__fxTry.sessionStore.remove(sid), id);
    await page.evaluate(() => window.__fxTry.term.reset());
    await upload();
    await page.waitForFunction((sid) => window.__fxTry.runtime?.sessionId === sid, id);
    await waitForScreen(page, 'Ran echo exported-turn');
    const back = await page.evaluate(async (sid) => {
      const fx = await import('/pkg/index.js');
      const { bytes } = await window.__fxTry.sessionStore.load(sid);
      return { bytes: [...bytes], view: JSON.parse(JSON.stringify(await fx.readSession(bytes))) };
    }, id);
    assert.deepEqual(back.view, original.view, `${how}: the same session view`);
    assert.deepEqual(back.bytes, original.bytes, `${how}: the same bytes`);
    assert.match(await page.textContent('#toast'), /Opened/);
  };

  await importAndCompare('the downloaded zip', () => page.setInputFiles('#import-zip-input', zipPath));

  const deflated = join(work, 'deflated.zip');
  await writeFile(deflated, deflatedZip(Object.fromEntries(Object.entries(entries).map(([p, d]) => [p, Buffer.from(d)]))));
  await importAndCompare('a deflated zip', () => page.setInputFiles('#import-zip-input', deflated));

  const folder = join(work, 'folder', id);
  await mkdir(folder, { recursive: true });
  for (const [path, data] of Object.entries(entries)) await writeFile(join(work, 'folder', path), Buffer.from(data));
  await importAndCompare('the unpacked folder', () => page.setInputFiles('#import-folder-input', folder));

  // Importing what is already there (same bytes) just opens it; different content is refused.
  await page.setInputFiles('#import-zip-input', zipPath);
  await page.waitForFunction(() => /Opened/.test(document.getElementById('toast').textContent));
  assert.equal((await storedSessions(page)).filter((s) => s.id === id).length, 1);
  await turn(page, 'run echo after-import');
  await page.setInputFiles('#import-zip-input', zipPath);
  await page.waitForFunction(() => document.getElementById('toast').dataset.tone === 'error');
  assert.match(await page.textContent('#toast'), /already here with different content/);
  const [kept] = (await storedSessions(page)).filter((s) => s.id === id);
  assert.equal(kept.view.turns.length, original.view.turns.length + 1, 'the newer session was left alone');

  // A damaged archive and one without a session are refused with a message; nothing is stored.
  const count = (await storedSessions(page)).length;
  const damaged = Buffer.from(await readFile(zipPath));
  damaged[30 + damaged.readUInt16LE(26) + 5] ^= 0xff; // inside the first entry's data
  await writeFile(join(work, 'damaged.zip'), damaged);
  await page.evaluate(() => document.getElementById('toast').removeAttribute('data-tone'));
  await page.setInputFiles('#import-zip-input', join(work, 'damaged.zip'));
  await page.waitForFunction(() => document.getElementById('toast').dataset.tone === 'error');
  assert.match(await page.textContent('#toast'), /fails its CRC check/);
  await writeFile(join(work, 'other.zip'), deflatedZip({ 'notes/readme.txt': Buffer.from('hello') }));
  await page.evaluate(() => document.getElementById('toast').removeAttribute('data-tone'));
  await page.setInputFiles('#import-zip-input', join(work, 'other.zip'));
  await page.waitForFunction(() => document.getElementById('toast').dataset.tone === 'error');
  assert.match(await page.textContent('#toast'), /no events\.jsonl/);
  assert.equal((await storedSessions(page)).length, count);
  assert.deepEqual(t.errors, []);
});

/** The DOS date and time of each local entry of a zip: `[{ name, year, month, day, hour }]`. */
function zipDates(zip) {
  const out = [];
  for (let at = 0; zip.readUInt32LE(at) === 0x04034b50; ) {
    const time = zip.readUInt16LE(at + 10);
    const date = zip.readUInt16LE(at + 12);
    const size = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const extra = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 30, at + 30 + nameLength);
    out.push({ name, year: 1980 + (date >> 9), month: (date >> 5) & 15, day: date & 31, hour: time >> 11 });
    at += 30 + nameLength + extra + size;
  }
  return out;
}

test('your own download imports again after /rename and later turns: the same bytes, no refusal', async () => {
  const page = await t.newPage();
  await loadTry(page, t.url);
  await type(page, '/new\r');
  await waitForScreen(page, 'Session: started a new session');
  await turn(page, 'run echo before-rename');
  await type(page, '/rename My named session\r');
  await waitForScreen(page, 'renamed to "My named session"');
  await turn(page, 'run echo after-rename');
  const id = await page.evaluate(() => window.__fxTry.runtime.sessionId);
  const stored = async () => page.evaluate(async (sid) => [...(await window.__fxTry.sessionStore.load(sid)).bytes], id);
  const before = await stored();

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const zipPath = join(work, `renamed-${id}.zip`);
  await download.saveAs(zipPath);
  // The toast says where the fx CLI looks for it.
  await page.waitForFunction(() => /Downloaded/.test(document.getElementById('toast').textContent));
  assert.match(await page.textContent('#toast'), new RegExp(`~/\\.fx/sessions/${id}/`));
  // Every entry carries the time it was made (not 1980-00-00).
  const now = new Date();
  for (const entry of zipDates(await readFile(zipPath))) {
    assert.equal(entry.year, now.getFullYear(), `${entry.name}: year`);
    assert.ok(entry.month >= 1 && entry.month <= 12 && entry.day >= 1, `${entry.name}: ${JSON.stringify(entry)}`);
  }

  await page.evaluate(() => document.getElementById('toast').removeAttribute('data-tone'));
  await page.setInputFiles('#import-zip-input', zipPath);
  await page.waitForFunction(() => /Opened|already here/.test(document.getElementById('toast').textContent));
  assert.notEqual(await page.evaluate(() => document.getElementById('toast').dataset.tone), 'error', await page.textContent('#toast'));
  assert.match(await page.textContent('#toast'), /Opened “My named session” \(2 turns\)/);
  assert.deepEqual(await stored(), before, 'the stored bytes did not change');
  await waitForScreen(page, 'Ran echo after-rename');
  assert.deepEqual(t.errors, []);
});

test('a command cancelled with Ctrl+C looks the same after a reload', async () => {
  const page = await t.newPage();
  await loadTry(page, t.url);
  await type(page, '/new\r');
  await waitForScreen(page, 'Session: started a new session');
  await type(page, 'run sleep 20\r');
  await waitForScreen(page, 'Running sleep 20 (');
  await type(page, '\x03');
  await waitForScreen(page, '● System: cancelled');
  await waitForIdle(page);
  const block = (text) => {
    const lines = text.split('\n').map((l) => l.trimEnd());
    const start = lines.findIndex((l) => l === '┃ run sleep 20');
    const end = lines.indexOf('● System: cancelled', start);
    return lines.slice(start, end + 1).join('\n');
  };
  const live = block(await waitForScreen(page, '● System: cancelled'));
  assert.match(live, /as asked\.\n\n● 1 tool call · 1 command · 1 cancelled\n└ Cancelled sleep 20\n\n● System: cancelled$/);
  await loadTry(page, t.url);
  const resumed = await waitForScreen(page, 'Session: resumed');
  assert.equal(block(await waitForScreen(page, '● System: cancelled')), live, resumed);
  assert.doesNotMatch(resumed, /\[cancelled\]/);
  assert.deepEqual(t.errors, []);
});
