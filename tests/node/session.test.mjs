// The session functions of the built package (pkg/), in Node: readSession shows every fixture's
// real content, native directories round-trip byte for byte, bad input is rejected properly.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { exportNativeSession, importNativeSession, readSession } from '../../pkg/index.js';
import { EXPECTED, assertView, imageTurnLog, malformedLogs } from './fixture-views.mjs';
import { fixtureNames, loadFixture } from './fixtures.mjs';

const names = await fixtureNames();
const fixtures = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await loadFixture(n)])));

test('every fixture has an expected view', () => {
  assert.deepEqual(names, Object.keys(EXPECTED).sort());
});

describe('readSession', () => {
  for (const name of names) {
    test(`shows the ${name} session`, async () => {
      assertView(await readSession(fixtures[name].events), EXPECTED[name], name);
    });
  }

  test('shows the images of a user message', async () => {
    const { bytes, expected } = imageTurnLog(fixtures.image.events);
    assertView(await readSession(bytes), expected, 'image turn');
  });

  test('accepts a Node Buffer', async () => {
    const view = await readSession(Buffer.from(fixtures.simple.events));
    assert.equal(view.id, EXPECTED.simple.id);
  });
});

describe('native session directories', () => {
  for (const name of names) {
    test(`${name}: import, export and import again give the same bytes`, async () => {
      const { events, files } = fixtures[name];
      const imported = await importNativeSession(files);
      assert.ok(imported instanceof Uint8Array, 'importNativeSession returns a Uint8Array');
      assert.ok(Buffer.from(imported).equals(Buffer.from(events)), 'imported bytes equal events.jsonl');

      const exported = await exportNativeSession(events);
      const generation = JSON.parse(new TextDecoder().decode(events.subarray(0, events.indexOf(10))))
        .log_generation;
      for (const required of ['events.jsonl', 'session.json', 'authority.json', `commit.${generation}.json`, 'commit.lock', 'display.json']) {
        assert.ok(exported[required] instanceof Uint8Array, `export has ${required}`);
      }
      assert.equal(exported['commit.lock'].length, 0, 'commit.lock is empty');
      assert.ok(Buffer.from(exported['events.jsonl']).equals(Buffer.from(events)), 'exported events.jsonl is the log');
      const display = JSON.parse(new TextDecoder().decode(exported['display.json']));
      assert.equal(display.title, EXPECTED[name].title);

      const again = await importNativeSession(exported);
      assert.ok(Buffer.from(again).equals(Buffer.from(events)), 'import(export(bytes)) equals bytes');
    });
  }

  test('a directory without events.jsonl is rejected with FX_SESSION_INVALID', async () => {
    const { files } = fixtures.simple;
    const { 'events.jsonl': _, ...rest } = files;
    await assert.rejects(importNativeSession(rest), { name: 'FxError', code: 'FX_SESSION_INVALID' });
  });
});

describe('malformed logs', () => {
  for (const { name, bytes, seq } of malformedLogs(fixtures.simple.events)) {
    test(`${name}: rejected with FX_SESSION_INVALID${seq ? ` naming seq ${seq}` : ''}`, async () => {
      for (const call of [readSession, exportNativeSession]) {
        const err = await call(bytes).then(
          () => assert.fail(`${call.name} accepted a malformed log (${name})`),
          (e) => e,
        );
        assert.ok(err instanceof Error, 'a real Error');
        assert.equal(err.name, 'FxError');
        assert.equal(err.code, 'FX_SESSION_INVALID');
        assert.ok(err.message.length > 20, `a message that says what is wrong: ${err.message}`);
        if (seq !== null) assert.match(err.message, new RegExp(`\\bseq ${seq}\\b`));
      }
      await assert.rejects(importNativeSession({ 'events.jsonl': bytes }), { code: 'FX_SESSION_INVALID' });
    });
  }
});

test('a log cut at any byte is read or rejected with FX_SESSION_INVALID, never a trap', async () => {
  const { events } = fixtures.simple;
  const newlines = new Set([...events].flatMap((b, i) => (b === 10 ? [i + 1] : [])));
  for (let cut = 0; cut < events.length; cut++) {
    const outcome = await readSession(events.subarray(0, cut)).then(
      (view) => `read ${view.turns.length} turns`,
      (err) => (err.code === 'FX_SESSION_INVALID' ? 'rejected' : `${err.name}: ${err.message}`),
    );
    // Cut on a frame boundary, the prefix is a valid log (except the empty one).
    const want = newlines.has(cut) ? /^read/ : /^rejected$/;
    assert.match(outcome, want, `cut at byte ${cut}`);
  }
});

describe('argument types', () => {
  const notBytes = ['text', 42, null, undefined, [1, 2, 3], new ArrayBuffer(4), new Uint16Array(2), {}];
  for (const value of notBytes) {
    const label = Array.isArray(value) ? 'an array' : (value?.constructor?.name ?? String(value));
    test(`readSession and exportNativeSession reject ${label} with a TypeError`, async () => {
      await assert.rejects(readSession(value), TypeError);
      await assert.rejects(exportNativeSession(value), TypeError);
    });
  }

  test('importNativeSession rejects anything but an object of Uint8Arrays with a TypeError', async () => {
    for (const value of [null, undefined, 'events.jsonl', [new Uint8Array(1)], new Uint8Array(1)]) {
      await assert.rejects(importNativeSession(value), TypeError);
    }
    await assert.rejects(importNativeSession({ 'events.jsonl': 'text' }), {
      name: 'TypeError',
      message: /files\["events.jsonl"\]/,
    });
  });
});
