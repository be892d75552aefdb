// The store contracts in Node: the memory stores, the localStorage stores over an injected
// Storage, and the errors the browser-backed stores give where their storage is missing. The
// IndexedDB stores themselves are tested in Chromium (tests/browser/stores.test.mjs).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  indexedDbOAuthSessionStore,
  indexedDbSessionStore,
  localStorageConfigStore,
  localStoragePromptHistoryStore,
  memoryConfigStore,
  memoryOAuthSessionStore,
  memoryPromptHistoryStore,
  memorySessionStore,
} from '../../pkg/index.js';

const bytes = (text) => new TextEncoder().encode(text);
const text = (data) => new TextDecoder().decode(data);

/** A Map-backed Storage; `quota` (in UTF-16 units of keys + values) makes setItem throw when full. */
function fakeStorage({ quota = Infinity } = {}) {
  const items = new Map();
  const used = () => [...items].reduce((n, [k, v]) => n + k.length + v.length, 0);
  return {
    items,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem(key, value) {
      const before = items.get(key);
      items.set(key, String(value));
      if (used() > quota) {
        if (before === undefined) items.delete(key);
        else items.set(key, before);
        const err = new Error('quota exceeded');
        err.name = 'QuotaExceededError';
        throw err;
      }
    },
    removeItem: (key) => items.delete(key),
  };
}

async function rejects(promiseOrFn, code) {
  const err = await (async () => (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn))().then(
    () => null,
    (e) => e,
  );
  assert.ok(err instanceof Error, `expected an Error with code ${code}`);
  assert.equal(err.code, code);
  return err;
}

describe('memorySessionStore', () => {
  test('first commit expects no record; later commits expect the current revision', async () => {
    const store = memorySessionStore();
    assert.equal(await store.load('a'), null);
    const { revision: r1 } = await store.commit('a', bytes('one'), undefined);
    assert.equal(typeof r1, 'string');
    const loaded = await store.load('a');
    assert.equal(text(loaded.bytes), 'one');
    assert.equal(loaded.revision, r1);
    await rejects(() => store.commit('a', bytes('again'), undefined), 'FX_SESSION_REVISION_CONFLICT');
    await rejects(() => store.commit('a', bytes('stale'), 'nope'), 'FX_SESSION_REVISION_CONFLICT');
    const { revision: r2 } = await store.commit('a', bytes('two'), r1);
    assert.notEqual(r2, r1);
    await rejects(() => store.commit('a', bytes('late'), r1), 'FX_SESSION_REVISION_CONFLICT');
    assert.equal(text((await store.load('a')).bytes), 'two');
  });

  test('bytes are copied in and out', async () => {
    const store = memorySessionStore();
    const data = bytes('abc');
    await store.commit('a', data, undefined);
    data[0] = 0;
    const first = await store.load('a');
    first.bytes[1] = 0;
    assert.equal(text((await store.load('a')).bytes), 'abc');
  });

  test('append adds at the end under the revision check; load joins the chunks', async () => {
    const store = memorySessionStore();
    await rejects(() => store.append('a', bytes('x'), 'none'), 'FX_SESSION_REVISION_CONFLICT');
    assert.throws(() => store.append('a', bytes('x'), undefined), TypeError);
    const { revision: r1 } = await store.commit('a', bytes('one'), undefined);
    const data = bytes(' two');
    const { revision: r2 } = await store.append('a', data, r1);
    data[0] = 0;
    assert.notEqual(r2, r1);
    await rejects(() => store.append('a', bytes(' stale'), r1), 'FX_SESSION_REVISION_CONFLICT');
    const { revision: r3 } = await store.append('a', bytes(' three'), r2);
    const loaded = await store.load('a');
    assert.equal(text(loaded.bytes), 'one two three');
    assert.equal(loaded.revision, r3);
    // A commit replaces every chunk.
    await store.commit('a', bytes('new'), r3);
    assert.equal(text((await store.load('a')).bytes), 'new');
  });

  test('list is newest first with integer updatedAtMs; remove deletes', async () => {
    const store = memorySessionStore();
    await store.commit('old', bytes('x'), undefined);
    await new Promise((r) => setTimeout(r, 5));
    await store.commit('new', bytes('y'), undefined);
    const list = await store.list();
    assert.deepEqual(list.map((s) => s.id), ['new', 'old']);
    for (const entry of list) {
      assert.deepEqual(Object.keys(entry).sort(), ['id', 'updatedAtMs']);
      assert.ok(Number.isInteger(entry.updatedAtMs));
    }
    await store.remove('old');
    assert.equal(await store.load('old'), null);
    assert.deepEqual((await store.list()).map((s) => s.id), ['new']);
  });
});

describe('memoryConfigStore', () => {
  test('get gives null when unset and the value once set', () => {
    const store = memoryConfigStore({ mode: 'ask' });
    assert.equal(store.get('model'), null);
    assert.equal(store.get('mode'), 'ask');
    store.set('model', 'anthropic/claude-sonnet-4.5');
    assert.equal(store.get('model'), 'anthropic/claude-sonnet-4.5');
  });
});

/** The prompt-history contract, shared by the memory and localStorage stores. */
function promptHistoryContract(make) {
  test('oldest to newest, limited to the last `limit`, per workspace', async () => {
    const store = make({});
    for (const v of ['one', 'two', 'three']) assert.equal(await store.append('/w', v, 1), undefined);
    await store.append('/other', 'elsewhere', 2);
    assert.deepEqual(await store.load('/w', 100), ['one', 'two', 'three']);
    assert.deepEqual(await store.load('/w', 2), ['two', 'three']);
    assert.deepEqual(await store.load('/other', 100), ['elsewhere']);
    assert.deepEqual(await store.load('/none', 100), []);
  });

  test('a repeat of the latest entry is a duplicate; an older repeat is appended', async () => {
    const store = make({});
    await store.append('/w', 'a', 1);
    assert.equal(await store.append('/w', 'a', 2), 'duplicate');
    await store.append('/w', 'b', 3);
    assert.equal(await store.append('/w', 'a', 4), undefined);
    assert.deepEqual(await store.load('/w', 10), ['a', 'b', 'a']);
  });

  test('over maxRecordBytes (UTF-8) is record_too_large and not stored', async () => {
    const store = make({ maxRecordBytes: 8 });
    assert.equal(await store.append('/w', 'éééé', 1), undefined); // 8 bytes
    assert.equal(await store.append('/w', 'ééééx', 2), 'record_too_large'); // 9 bytes
    assert.deepEqual(await store.load('/w', 10), ['éééé']);
  });

  test('the default size limit is 256 KiB', async () => {
    const store = make({});
    assert.equal(await store.append('/w', 'x'.repeat(256 * 1024), 1), undefined);
    assert.equal(await store.append('/w', 'y'.repeat(256 * 1024 + 1), 2), 'record_too_large');
  });

  test('keeps at most maxEntries per workspace, dropping the oldest', async () => {
    const store = make({ maxEntries: 3 });
    for (let i = 0; i < 5; i += 1) await store.append('/w', `p${i}`, i);
    assert.deepEqual(await store.load('/w', 100), ['p2', 'p3', 'p4']);
  });

  test('clear empties one workspace only', async () => {
    const store = make({});
    await store.append('/w', 'a', 1);
    await store.append('/v', 'b', 1);
    await store.clear('/w');
    assert.deepEqual(await store.load('/w', 10), []);
    assert.deepEqual(await store.load('/v', 10), ['b']);
  });
}

describe('memoryPromptHistoryStore', () => {
  promptHistoryContract((options) => memoryPromptHistoryStore(options));
});

describe('localStoragePromptHistoryStore (injected storage)', () => {
  promptHistoryContract((options) => localStoragePromptHistoryStore({ ...options, storage: fakeStorage() }));

  test('stores a JSON array under fx.term.history.<root>, 100 entries by default', () => {
    const storage = fakeStorage();
    const store = localStoragePromptHistoryStore({ storage });
    for (let i = 0; i < 120; i += 1) store.append('/workspace', `p${i}`, i);
    const stored = JSON.parse(storage.items.get('fx.term.history./workspace'));
    assert.equal(stored.length, 100);
    assert.equal(stored[0], 'p20');
    assert.equal(stored[99], 'p119');
  });

  test('corrupt stored values read as empty and are replaced on append', () => {
    for (const raw of ['{not json', '{"a":1}', '"text"', '[1, "ok", null]']) {
      const storage = fakeStorage();
      storage.items.set('fx.term.history./w', raw);
      const store = localStoragePromptHistoryStore({ storage });
      const loaded = store.load('/w', 10);
      assert.deepEqual(loaded, raw.startsWith('[') ? ['ok'] : [], `load of ${raw}`);
      store.append('/w', 'fresh', 1);
      assert.deepEqual(store.load('/w', 10), raw.startsWith('[') ? ['ok', 'fresh'] : ['fresh']);
    }
  });

  test('when storage is full, older entries give way to the new one', () => {
    const storage = fakeStorage({ quota: 200 });
    const store = localStoragePromptHistoryStore({ storage });
    for (let i = 0; i < 30; i += 1) store.append('/w', `prompt number ${i}`, i);
    const kept = store.load('/w', 100);
    assert.equal(kept[kept.length - 1], 'prompt number 29');
    assert.ok(kept.length < 30);
  });

  test('a custom prefix', () => {
    const storage = fakeStorage();
    localStoragePromptHistoryStore({ storage, prefix: 'app.hist.' }).append('/w', 'x', 1);
    assert.deepEqual([...storage.items.keys()], ['app.hist./w']);
  });
});

describe('localStorageConfigStore (injected storage)', () => {
  test('keys are fx.core.config.<id>; get gives null when unset', () => {
    const storage = fakeStorage();
    const store = localStorageConfigStore({ storage });
    assert.equal(store.get('model'), null);
    store.set('model', 'openai/gpt-5');
    store.set('mode', 'ask');
    assert.equal(store.get('model'), 'openai/gpt-5');
    assert.deepEqual([...storage.items.keys()].sort(), ['fx.core.config.mode', 'fx.core.config.model']);
  });

  test('a custom prefix, and a TypeError for a non-string value', () => {
    const storage = fakeStorage();
    const store = localStorageConfigStore({ storage, prefix: 'p.' });
    store.set('model', 'm');
    assert.equal(storage.items.get('p.model'), 'm');
    assert.throws(() => store.set('model', 3), TypeError);
  });

  test('a full storage makes set throw (a persist failure, never silent)', () => {
    const store = localStorageConfigStore({ storage: fakeStorage({ quota: 10 }) });
    assert.throws(() => store.set('model', 'x'.repeat(50)), { name: 'QuotaExceededError' });
  });
});

describe('memoryOAuthSessionStore', () => {
  test('commit, conflict, remove with revisions; missing when empty', async () => {
    const store = memoryOAuthSessionStore();
    assert.equal(await store.load(), null);
    assert.equal(await store.remove(undefined), 'missing');
    const { revision: r1 } = await store.commit(bytes('secret-1'), undefined);
    await rejects(() => store.commit(bytes('x'), undefined), 'FX_OAUTH_SESSION_REVISION_CONFLICT');
    const { revision: r2 } = await store.commit(bytes('secret-2'), r1);
    assert.equal(text((await store.load()).bytes), 'secret-2');
    await rejects(() => store.remove(r1), 'FX_OAUTH_SESSION_REVISION_CONFLICT');
    assert.equal(await store.remove(r2), true);
    assert.equal(await store.load(), null);
    assert.equal(await store.remove(r2), 'missing');
  });
});

describe('where the storage is missing', () => {
  test('IndexedDB stores throw FX_STORE_UNAVAILABLE in Node (no indexedDB global)', () => {
    assert.equal(globalThis.indexedDB, undefined);
    assert.throws(() => indexedDbSessionStore({ name: 't' }), { code: 'FX_STORE_UNAVAILABLE' });
    assert.throws(() => indexedDbOAuthSessionStore(), { code: 'FX_STORE_UNAVAILABLE' });
  });

  test('localStorage stores throw FX_STORE_UNAVAILABLE without a storage', () => {
    assert.throws(() => localStorageConfigStore(), { code: 'FX_STORE_UNAVAILABLE', message: /localStorage/ });
    assert.throws(() => localStoragePromptHistoryStore({ storage: {} }), { code: 'FX_STORE_UNAVAILABLE' });
  });

  test('bad options are TypeErrors', () => {
    const storage = fakeStorage();
    assert.throws(() => localStoragePromptHistoryStore({ storage, maxEntries: 0 }), TypeError);
    assert.throws(() => localStoragePromptHistoryStore({ storage, maxRecordBytes: 1.5 }), TypeError);
    assert.throws(() => localStorageConfigStore({ storage, prefix: 3 }), TypeError);
  });
});

test('the store types check with tsc --noEmit --strict', async () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const dir = await mkdtemp(join(tmpdir(), 'fx-stores-types-'));
  try {
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await writeFile(
      join(dir, 'use.ts'),
      `import {
  indexedDbSessionStore, indexedDbOAuthSessionStore, localStorageConfigStore,
  localStoragePromptHistoryStore, memorySessionStore, memoryConfigStore,
  memoryPromptHistoryStore, memoryOAuthSessionStore,
} from ${JSON.stringify(join(root, 'pkg', 'index.js'))};
import type { SessionStore, ConfigStore, PromptHistoryStore, OAuthSessionStore, FxStoreError } from ${JSON.stringify(join(root, 'pkg', 'index.js'))};

export async function use(): Promise<void> {
  const sessions: SessionStore = indexedDbSessionStore({ name: 'app' });
  const rec = await sessions.load('id');
  if (rec) await sessions.commit('id', rec.bytes, rec.revision);
  if (rec && sessions.append) await sessions.append('id', rec.bytes, rec.revision);
  await memorySessionStore().append('id', new Uint8Array(), 'r1');
  const commitOnly: SessionStore = { load: () => null, commit: () => ({ revision: 'r' }), list: () => [], remove: () => {} };
  commitOnly.load('id');
  const list = await memorySessionStore().list();
  list[0]?.updatedAtMs.toFixed();
  const oauth: OAuthSessionStore = indexedDbOAuthSessionStore({ indexedDB });
  if ((await oauth.remove(undefined)) === 'missing') return;
  const config: ConfigStore = localStorageConfigStore({ storage: localStorage, prefix: 'a.' });
  await config.set('model', String(await memoryConfigStore({ model: 'x' }).get('model')));
  const history: PromptHistoryStore = localStoragePromptHistoryStore({ maxEntries: 10, maxRecordBytes: 1024 });
  const outcome = await history.append('/w', 'x', Date.now());
  if (outcome === 'duplicate' || outcome === 'record_too_large') return;
  memoryPromptHistoryStore({ maxEntries: 5 });
  memoryOAuthSessionStore();
  try {
    await sessions.commit('id', new Uint8Array(), undefined);
  } catch (e) {
    if ((e as FxStoreError).code === 'FX_SESSION_REVISION_CONFLICT') return;
  }
  await indexedDbSessionStore().close();
}
`,
    );
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    execFileSync(tsc, ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--lib', 'es2022,dom', 'use.ts'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
