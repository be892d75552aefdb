// The session functions in Chromium, Firefox and WebKit: the package loaded from the static
// server, fixtures fetched over HTTP, readSession content checked, native directories
// round-tripped byte for byte.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { EXPECTED, assertView, imageTurnLog } from '../node/fixture-views.mjs';
import { fixtureNames, loadFixture } from '../node/fixtures.mjs';
import { ENGINES, openHarness } from './engines.mjs';

const names = await fixtureNames();

/** Runs one fixture through the JS API inside the page; returns what Node should check. */
async function roundTripInPage({ base, paths }) {
  const fx = await import('/pkg/index.js');
  const files = {};
  for (const path of paths) {
    const res = await fetch(`${base}/${path}`);
    if (!res.ok) throw new Error(`fetch ${path}: ${res.status}`);
    files[path] = new Uint8Array(await res.arrayBuffer());
  }
  const events = files['events.jsonl'];
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const result = { view: null, errors: [] };
  try {
    result.view = await fx.readSession(events);
  } catch (e) {
    result.errors.push(`readSession: ${e.message}`);
  }
  try {
    const imported = await fx.importNativeSession(files);
    result.importedIsBytes = imported instanceof Uint8Array;
    result.importedEqual = same(imported, events);
    const exported = await fx.exportNativeSession(events);
    result.exportedNames = Object.keys(exported).sort();
    result.exportedEqual = same(exported['events.jsonl'], events);
    result.againEqual = same(await fx.importNativeSession(exported), events);
  } catch (e) {
    result.errors.push(`round trip: ${e.message}`);
  }
  return result;
}

for (const engine of ENGINES) {
  describe(`the session functions in ${engine}`, () => {
    let browser;

    before(async () => {
      browser = await openHarness(engine);
    });

    after(async () => {
      await browser?.close();
    });

    for (const name of names) {
      test(`${name}: readSession and a byte-for-byte round trip`, async () => {
        const { dir, files } = await loadFixture(name);
        const base = `/tests/fixtures/fx-sessions/${dir}`;
        const result = await browser.page.evaluate(roundTripInPage, { base, paths: Object.keys(files) });
        assert.deepEqual(result.errors, [], `${name}: no errors in the page`);
        assertView(result.view, EXPECTED[name], `${name} (${engine})`);
        assert.ok(result.importedIsBytes, 'importNativeSession gives a Uint8Array');
        assert.ok(result.importedEqual, 'imported bytes equal events.jsonl');
        assert.ok(result.exportedEqual, 'exported events.jsonl equals the log');
        assert.ok(result.againEqual, 'import(export(bytes)) equals bytes');
        for (const required of ['events.jsonl', 'session.json', 'authority.json', 'commit.lock', 'display.json']) {
          assert.ok(result.exportedNames.includes(required), `export has ${required}`);
        }
      });
    }

    test('readSession shows the images of a user message', async () => {
      const { events } = await loadFixture('image');
      const { bytes, expected } = imageTurnLog(events);
      const view = await browser.page.evaluate(async (data) => {
        const fx = await import('/pkg/index.js');
        return fx.readSession(new Uint8Array(data));
      }, [...bytes]);
      assertView(view, expected, `image turn (${engine})`);
    });

    test('errors are real Errors with a code, and bad arguments TypeErrors', async () => {
      const result = await browser.page.evaluate(async () => {
        const fx = await import('/pkg/index.js');
        const invalid = await fx.readSession(new TextEncoder().encode('garbage\n')).catch((e) => e);
        const typed = await fx.readSession('garbage').catch((e) => e);
        return {
          isError: invalid instanceof Error,
          name: invalid.name,
          code: invalid.code,
          message: invalid.message,
          typeError: typed instanceof TypeError,
        };
      });
      assert.ok(result.isError);
      assert.equal(result.name, 'FxError');
      assert.equal(result.code, 'FX_SESSION_INVALID');
      assert.ok(result.typeError);
    });

    test('the page logged no errors', async () => {
      assert.deepEqual(await browser.page.errors(), []);
    });
  });
}
