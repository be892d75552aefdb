// Rules of createFxbot's calls that broke under a user's hands (issue 18): concurrent library
// writes (the bytes handed to the store are the store's to keep), the pinned limit under
// concurrent updates (in one process and across two on one store), ids that must be strings,
// release's id check, contextWindow on a kind without one, and settings.messageVectors.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MAX_PINNED } from '../../pkg/fxbot/node.js';
// The in-process fxbot, or (FXBOT_TARGET=server) the same behind its server through connectFxbot.
import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';

const b64 = (bytes) => Buffer.from(bytes).toString('base64');

async function rejects(promise, status, code, what) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.name, 'FxbotError', `${what}: ${error.message}`);
    assert.equal(error.status, status, `${what}: ${error.message}`);
    assert.equal(error.code, code, `${what}: ${error.message}`);
    return true;
  });
}

/**
 * An FxbotStore that keeps the bytes it is given as they are (no copy), as a store backed by a
 * structured clone at a later tick, or a careless one, may: what the engine hands over must stay
 * valid after the call.
 */
function keepingStore() {
  const records = new Map();
  let counter = 0;
  const conflict = (key) => Object.assign(new Error(`${key} moved on`), { code: 'FXBOT_STORE_REVISION_CONFLICT' });
  return {
    records,
    async load(key) {
      const record = records.get(key);
      return record ? { bytes: record.bytes, revision: record.revision } : null;
    },
    async commit(key, bytes, expected) {
      // A store that settles later (IndexedDB does): the bytes are read after a few ticks.
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (records.get(key)?.revision !== (expected ?? undefined)) throw conflict(key);
      counter += 1;
      records.set(key, { bytes: new Uint8Array(bytes), revision: String(counter) });
      return { revision: String(counter) };
    },
    async list(prefix) {
      return [...records.keys()]
        .filter((key) => key.startsWith(prefix))
        .sort()
        .map((key) => ({ key, revision: records.get(key).revision }));
    },
    async remove(key) {
      return records.delete(key);
    },
  };
}

/** A PNG-signed file of `size` bytes filled with `fill`. */
function image(size, fill) {
  const bytes = new Uint8Array(size).fill(fill);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

test('six concurrent 3.7 MiB library.add calls all land, each with its own bytes', async () => {
  const store = keepingStore();
  const fxbot = await createFxbot({ store, sessionStore: memorySessionStore() });
  const size = Math.floor(3.7 * 1024 * 1024);
  const files = Array.from({ length: 6 }, (_, i) => image(size, i + 1));
  const results = await Promise.allSettled(
    files.map((bytes, i) => fxbot.library.add({ name: `f${i}.png`, type: 'image/png', data: b64(bytes) })),
  );
  const failed = results.filter((r) => r.status === 'rejected').map((r) => r.reason.message);
  assert.deepEqual(failed, [], 'every add resolved');
  for (const [i, result] of results.entries()) {
    const item = result.value;
    assert.equal(item.size, size);
    const read = await fxbot.library.read(item.id);
    assert.equal(read.bytes.length, size, `item ${i}'s length`);
    assert.ok(
      Buffer.from(read.bytes).equals(Buffer.from(files[i])),
      `item ${i} reads back its own bytes (first differing byte ${read.bytes.findIndex((b, j) => b !== files[i][j])})`,
    );
  }
  await fxbot.close();
});

test('six concurrent pins leave three pinned, in one process and across two on one store', async () => {
  const store = memoryFxbotStore();
  const sessionStore = memorySessionStore();
  const a = await createFxbot({ store, sessionStore });
  const bots = [];
  for (let i = 0; i < 6; i++) bots.push(await a.bots.create({ name: `b${i}` }));
  const results = await Promise.allSettled(bots.map((b) => a.bots.update(b.id, { pinned: true })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, MAX_PINNED);
  for (const r of results.filter((r) => r.status === 'rejected')) {
    assert.equal(r.reason.status, 400, r.reason.message);
    assert.equal(r.reason.code, 'FXBOT_BAD_REQUEST');
  }
  let listed = await a.bots.list();
  assert.equal(listed.filter((b) => b.pinned).length, MAX_PINNED);
  assert.deepEqual(listed.slice(0, MAX_PINNED).map((b) => b.pinned), [true, true, true], 'pinned first');
  // Unpin all; then two processes pin three each at once.
  for (const b of listed.filter((b) => b.pinned)) assert.equal((await a.bots.update(b.id, { pinned: false })).pinned, false);
  assert.equal((await a.bots.list()).filter((b) => b.pinned).length, 0);
  const b = await createFxbot({ store, sessionStore });
  const across = await Promise.allSettled(
    bots.map((bot, i) => (i % 2 === 0 ? a : b).bots.update(bot.id, { pinned: true })),
  );
  assert.equal(across.filter((r) => r.status === 'fulfilled').length, MAX_PINNED);
  listed = await b.bots.list();
  assert.equal(listed.filter((p) => p.pinned).length, MAX_PINNED);
  for (const p of listed) assert.equal((await a.bots.get(p.id)).pinned, p.pinned, 'both processes agree');
  // A removed pinned bot frees its place.
  const gone = listed.find((p) => p.pinned);
  await a.bots.remove(gone.id);
  const free = listed.find((p) => !p.pinned);
  assert.equal((await a.bots.update(free.id, { pinned: true })).pinned, true);
  await a.close();
  await b.close();
});

test('ids must be strings; release checks its id', async () => {
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore() });
  const number = 123456789012;
  const bad = [
    ['bots.get', () => fxbot.bots.get(number)],
    ['bots.update', () => fxbot.bots.update(number, { name: 'x' })],
    ['bots.remove', () => fxbot.bots.remove(number)],
    ['providers.get', () => fxbot.providers.get(number)],
    ['providers.remove', () => fxbot.providers.remove(number)],
    ['library.get', () => fxbot.library.get(number)],
    ['library.read', () => fxbot.library.read(number)],
    ['library.remove', () => fxbot.library.remove(number)],
    ['chat.turns', () => fxbot.chat.turns(number)],
    ['release(number)', () => fxbot.release(number)],
    ["release('zzzz')", () => fxbot.release('zzzz')],
  ];
  for (const [what, call] of bad) await rejects(call(), 400, 'FXBOT_BAD_REQUEST', what);
  await rejects(
    (async () => {
      for await (const line of fxbot.chat.stream(number, 0)) void line;
    })(),
    400,
    'FXBOT_BAD_REQUEST',
    'chat.stream',
  );
  await rejects(fxbot.release('0123456789ab'), 404, 'FXBOT_NOT_FOUND', 'release of an unknown bot');
  const bot = await fxbot.bots.create();
  assert.equal(await fxbot.release(bot.id), undefined);
  assert.equal(await fxbot.release(), undefined);
  await fxbot.close();
});

test('contextWindow on a gateway provider is 400; messageVectors takes a whole number 0 to 100,000', async () => {
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore() });
  for (const contextWindow of [1000, 0, 'big']) {
    await rejects(
      fxbot.providers.add({ kind: 'gateway', apiKey: 'k', contextWindow }),
      400,
      'FXBOT_BAD_REQUEST',
      `contextWindow ${contextWindow}`,
    );
  }
  assert.deepEqual(await fxbot.providers.list(), [], 'nothing was added');
  const added = await fxbot.providers.add({ kind: 'gateway', apiKey: 'k', contextWindow: null });
  assert.equal(added.contextWindow, null);

  assert.equal((await fxbot.settings.get()).messageVectors, 1000);
  assert.equal((await fxbot.settings.update({ messageVectors: 5 })).messageVectors, 5);
  assert.equal((await fxbot.settings.get()).messageVectors, 5);
  for (const value of [0, 100000]) {
    assert.equal((await fxbot.settings.update({ messageVectors: value })).messageVectors, value);
  }
  for (const value of [1.5, -1, 100001, '5', true]) {
    await rejects(fxbot.settings.update({ messageVectors: value }), 400, 'FXBOT_BAD_REQUEST', `messageVectors ${value}`);
  }
  assert.equal((await fxbot.settings.get()).messageVectors, 100000, 'a refused update changes nothing');
  await fxbot.close();
});
