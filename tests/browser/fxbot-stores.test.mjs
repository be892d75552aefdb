// indexedDbFxbotStore (js/fxbot/stores.js) on real IndexedDB in Chromium, Firefox and WebKit:
// the FxbotStore contract (tests/support/fxbot-store-contract.js, the suite the memory store
// passes in Node), two tabs racing one compare-and-set (exactly one wins, every round, for
// updates, creations and removals), persistence across a reload, and damaged records.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ENGINES, openHarness } from './engines.mjs';

/** Runs `body(stores, contract, arg)` in `page` with the fxbot stores imported. */
function inPage(page, body, arg) {
  return page.evaluate(
    `async (arg) => {
      const stores = await import('/pkg/fxbot/stores.js');
      const { fxbotStoreContract } = await import('/tests/support/fxbot-store-contract.js');
      return (${body})(stores, fxbotStoreContract, arg);
    }`,
    arg,
  );
}

/** One attempt from a tab: `op` is commit or remove; resolves to { won, revision?, code? }. */
function attempt(page, op, key, expectedRevision, text) {
  return inPage(
    page,
    async (stores, _contract, { op: kind, key: k, expectedRevision: expected, text: t }) => {
      const store = (globalThis.__fxbotRaceStore ??= stores.indexedDbFxbotStore({ name: 'fxbot.race' }));
      try {
        if (kind === 'remove') return { won: await store.remove(k, expected) };
        const { revision } = await store.commit(k, new TextEncoder().encode(t), expected);
        return { won: true, revision };
      } catch (error) {
        return { won: false, code: error.code };
      }
    },
    { op, key, expectedRevision, text },
  );
}

for (const engine of ENGINES) {
  describe(`indexedDbFxbotStore in ${engine}`, () => {
    let browser;
    let second;

    before(async () => {
      browser = await openHarness(engine);
      second = await browser.open();
    });

    after(async () => {
      await browser?.close();
    });

    test('keeps the FxbotStore contract', async () => {
      const { checks } = await inPage(browser.page, async (stores, contract) =>
        contract(stores.indexedDbFxbotStore({ name: 'fxbot.contract' })),
      );
      assert.ok(checks > 30, `${checks} checks ran`);
    });

    test('two tabs racing one commit: exactly one wins, every round', async () => {
      const load = (page, key) =>
        inPage(
          page,
          async (stores, _c, k) => {
            const record = await stores.indexedDbFxbotStore({ name: 'fxbot.race' }).load(k);
            return record && { text: new TextDecoder().decode(record.bytes), revision: record.revision };
          },
          key,
        );
      let expected;
      for (let round = 0; round < 20; round += 1) {
        // Round 0 races the creation (both expect no record); later rounds race an update.
        const [a, b] = await Promise.all([
          attempt(browser.page, 'commit', 'chat/0123456789ab', expected, `a${round}`),
          attempt(second, 'commit', 'chat/0123456789ab', expected, `b${round}`),
        ]);
        const winners = [a, b].filter((r) => r.won);
        assert.equal(winners.length, 1, `round ${round}: exactly one tab wins (${JSON.stringify([a, b])})`);
        assert.equal((a.won ? b : a).code, 'FXBOT_STORE_REVISION_CONFLICT');
        const stored = await load(second, 'chat/0123456789ab');
        assert.equal(stored.revision, winners[0].revision, 'the stored record is the winner’s');
        assert.equal(stored.text, a.won ? `a${round}` : `b${round}`);
        expected = winners[0].revision;
      }
      // A removal racing an update at the same revision: one of them.
      const [removed, updated] = await Promise.all([
        attempt(browser.page, 'remove', 'chat/0123456789ab', expected),
        attempt(second, 'commit', 'chat/0123456789ab', expected, 'late'),
      ]);
      assert.equal([removed, updated].filter((r) => r.won).length, 1, JSON.stringify([removed, updated]));
      const after = await load(browser.page, 'chat/0123456789ab');
      assert.equal(after === null, removed.won);
    });

    test('records survive a reload; separate names are separate databases', async () => {
      await inPage(browser.page, async (stores) => {
        const store = stores.indexedDbFxbotStore({ name: 'fxbot.persist.one' });
        await store.commit('bot/0123456789ab', new TextEncoder().encode('kept'), undefined);
      });
      await browser.page.reload();
      const out = await inPage(browser.page, async (stores) => {
        const one = await stores.indexedDbFxbotStore({ name: 'fxbot.persist.one' }).load('bot/0123456789ab');
        const two = await stores.indexedDbFxbotStore({ name: 'fxbot.persist.two' }).list('');
        const fromDefault = await stores.indexedDbFxbotStore().list('');
        return { one: one && new TextDecoder().decode(one.bytes), two, fromDefault };
      });
      assert.deepEqual(out, { one: 'kept', two: [], fromDefault: [] });
    });

    test('damaged records are store failures; keys that are not strings are not listed', async () => {
      const out = await inPage(browser.page, async (stores) => {
        const store = stores.indexedDbFxbotStore({ name: 'fxbot.damaged' });
        await store.commit('bot/0123456789ab', new Uint8Array([1]), undefined);
        await store.close();
        await new Promise((resolve, reject) => {
          const open = indexedDB.open('fxbot.damaged');
          open.onsuccess = () => {
            const tx = open.result.transaction('docs', 'readwrite');
            const docs = tx.objectStore('docs');
            docs.put({ key: 'bot/bad', bytes: 'not bytes', revision: 'r' });
            docs.put({ key: 'chat/bad', bytes: new Uint8Array(1), revision: 7 });
            docs.put({ key: 12, bytes: new Uint8Array(1), revision: 'r' });
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
          open.onerror = () => reject(open.error);
        });
        const code = (p) => p.then(() => 'resolved', (e) => e.code);
        return {
          badBytes: await code(store.load('bot/bad')),
          badRevision: await code(store.list('chat/')),
          bots: (await store.list('bot/')).map((e) => e.key),
          good: (await store.load('bot/0123456789ab')).bytes[0],
        };
      });
      assert.deepEqual(out, {
        badBytes: 'FX_STORE_FAILED',
        badRevision: 'FX_STORE_FAILED',
        bots: ['bot/0123456789ab', 'bot/bad'],
        good: 1,
      });
    });

    test('a database deleted by another tab is re-opened, not a dead connection', async () => {
      const out = await inPage(browser.page, async (stores) => {
        const store = stores.indexedDbFxbotStore({ name: 'fxbot.deleted' });
        const enc = (s) => new TextEncoder().encode(s);
        await store.commit('settings', enc('x'), undefined);
        await new Promise((resolve, reject) => {
          const req = indexedDB.deleteDatabase('fxbot.deleted');
          req.onsuccess = resolve;
          req.onerror = () => reject(req.error);
        });
        const gone = await store.load('settings');
        await store.commit('settings', enc('y'), undefined);
        return { gone, now: new TextDecoder().decode((await store.load('settings')).bytes) };
      });
      assert.deepEqual(out, { gone: null, now: 'y' });
    });

    test('no page errors', async () => {
      assert.deepEqual(await browser.page.errors(), []);
      assert.deepEqual(await second.errors(), []);
    });
  });
}
