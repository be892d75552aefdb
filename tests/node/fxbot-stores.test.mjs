// memoryFxbotStore (js/fxbot/stores.js) against the FxbotStore contract
// (tests/support/fxbot-store-contract.js), plus what only the memory store promises: synchronous
// results, counter revisions, and separate instances being separate stores. The IndexedDB store
// runs the same contract in three browsers (tests/browser/fxbot-stores.test.mjs).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { indexedDbFxbotStore, memoryFxbotStore } from '../../js/fxbot/stores.js';
import { fxbotStoreContract } from '../support/fxbot-store-contract.js';

test('memoryFxbotStore keeps the FxbotStore contract', async () => {
  const { checks } = await fxbotStoreContract(memoryFxbotStore());
  assert.ok(checks > 30, `${checks} checks ran`);
});

test('memoryFxbotStore answers synchronously, with counter revisions', () => {
  const store = memoryFxbotStore();
  const bytes = new TextEncoder().encode('x');
  const result = store.commit('a', bytes, undefined);
  assert.deepEqual(result, { revision: '1' });
  assert.deepEqual(store.commit('b', bytes, undefined), { revision: '2' });
  assert.deepEqual(store.commit('a', bytes, '1'), { revision: '3' });
  assert.deepEqual(store.list(''), [
    { key: 'a', revision: '3' },
    { key: 'b', revision: '2' },
  ]);
  const error = (() => {
    try {
      store.commit('a', bytes, '1');
    } catch (e) {
      return e;
    }
  })();
  assert.equal(error.name, 'FxStoreError');
  assert.equal(error.code, 'FXBOT_STORE_REVISION_CONFLICT');
  assert.equal(error.message, 'a is at revision 3, not 1');
  assert.equal(memoryFxbotStore().load('a'), null, 'each call is a new store');
});

test('a read-modify-write loop over the memory store: concurrent writers lose nothing', async () => {
  const store = memoryFxbotStore();
  const enc = (n) => new TextEncoder().encode(String(n));
  store.commit('counter', enc(0), undefined);
  // 20 writers interleaved at every await: each retries on a conflict until its increment lands.
  const writer = async () => {
    for (;;) {
      const { bytes, revision } = store.load('counter');
      await new Promise((resolve) => setImmediate(resolve));
      try {
        store.commit('counter', enc(Number(new TextDecoder().decode(bytes)) + 1), revision);
        return;
      } catch (error) {
        assert.equal(error.code, 'FXBOT_STORE_REVISION_CONFLICT');
      }
    }
  };
  await Promise.all(Array.from({ length: 20 }, writer));
  assert.equal(new TextDecoder().decode(store.load('counter').bytes), '20');
});

test('indexedDbFxbotStore without IndexedDB says so', () => {
  assert.throws(
    () => indexedDbFxbotStore(),
    (error) => error.code === 'FX_STORE_UNAVAILABLE' && /IndexedDB is not available/.test(error.message),
  );
  assert.throws(() => indexedDbFxbotStore({ name: '' }), TypeError);
});
