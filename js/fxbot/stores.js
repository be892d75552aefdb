// fxbot's document stores (fxbot DESIGN §5.1): keys to bytes with revisions, a compare-and-set
// commit, listing by prefix sorted by key, and removal. `memoryFxbotStore()` keeps a Map (the
// default in Node); `indexedDbFxbotStore({ name })` keeps one IndexedDB database (the default in
// a browser), with every compare-and-set in one readwrite transaction, so two tabs racing on one
// revision cannot both win.
//
// Values are opaque bytes: canonical JSON documents written by the engine, vectors, blobs.

import { codedError } from '../errors.js';
import { copyBytes, lazyDatabase, loadedRecord, newRevision, resolveIndexedDb, transaction } from '../stores/idb.js';

const CONFLICT = 'FXBOT_STORE_REVISION_CONFLICT';
const MAX_KEY_LENGTH = 1024;

function checkKey(store, method, key) {
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH) {
    throw new TypeError(`${store}.${method}(): the key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters`);
  }
}

function checkPrefix(store, prefix) {
  if (typeof prefix !== 'string') throw new TypeError(`${store}.list(): the prefix must be a string`);
}

function checkExpected(store, method, expected) {
  const value = expected ?? undefined;
  if (value !== undefined && typeof value !== 'string') {
    throw new TypeError(`${store}.${method}(): expectedRevision must be a string or undefined`);
  }
  return value;
}

function damaged(key) {
  return codedError('FX_STORE_FAILED', `indexedDbFxbotStore: the stored record ${key} is damaged (expected a string revision)`);
}

function conflict(key, actual, expected) {
  return codedError(CONFLICT, `${key} is at revision ${actual ?? 'none'}, not ${expected ?? 'none'}`);
}

/**
 * Documents in a Map: revisions "1", "2", … from one counter. `commit` is a compare-and-set
 * (`expectedRevision` undefined means "must not exist"); `list(prefix)` is sorted by key;
 * `remove(key, expectedRevision?)` returns whether a record was removed. Bytes are copied in and
 * out.
 */
export function memoryFxbotStore() {
  const STORE = 'memoryFxbotStore';
  const records = new Map();
  let counter = 0;
  return {
    load(key) {
      checkKey(STORE, 'load', key);
      const record = records.get(key);
      return record ? { bytes: record.bytes.slice(), revision: record.revision } : null;
    },
    commit(key, bytes, expectedRevision) {
      checkKey(STORE, 'commit', key);
      const copy = copyBytes(STORE, 'commit', bytes);
      const expected = checkExpected(STORE, 'commit', expectedRevision);
      const current = records.get(key);
      if (current?.revision !== expected) throw conflict(key, current?.revision, expected);
      counter += 1;
      const revision = String(counter);
      records.set(key, { bytes: copy, revision });
      return { revision };
    },
    list(prefix) {
      checkPrefix(STORE, prefix);
      return [...records.entries()]
        .filter(([key]) => key.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, record]) => ({ key, revision: record.revision }));
    },
    remove(key, expectedRevision) {
      checkKey(STORE, 'remove', key);
      const expected = checkExpected(STORE, 'remove', expectedRevision);
      const current = records.get(key);
      if (expected !== undefined && current?.revision !== expected) throw conflict(key, current?.revision, expected);
      return records.delete(key);
    },
  };
}

const DOCS = 'docs';
// An index on [key, revision]: listing reads keys and revisions without loading the bytes.
const BY_KEY_REVISION = 'keyRevision';

/**
 * Documents in the IndexedDB database `name` (default `fxbot`): one record per key
 * `{ key, bytes, revision }`. `commit` and `remove` with an expected revision are atomic
 * compare-and-sets; a stale revision throws an Error with code `FXBOT_STORE_REVISION_CONFLICT`
 * and writes nothing. Revisions are opaque and unique. `list(prefix)` is sorted by key.
 */
export function indexedDbFxbotStore({ name = 'fxbot', indexedDB } = {}) {
  const STORE = 'indexedDbFxbotStore';
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`${STORE}: name must be a non-empty string`);
  }
  const factory = resolveIndexedDb(STORE, indexedDB);
  const database = lazyDatabase(STORE, factory, name, 1, (db) => {
    if (!db.objectStoreNames.contains(DOCS)) {
      const docs = db.createObjectStore(DOCS, { keyPath: 'key' });
      docs.createIndex(BY_KEY_REVISION, ['key', 'revision'], { unique: true });
    }
  });

  return {
    async load(key) {
      checkKey(STORE, 'load', key);
      const db = await database.get();
      return transaction(STORE, db, DOCS, 'readonly', (docs, finish) => {
        const request = docs.get(key);
        request.onsuccess = () => {
          const record = request.result;
          finish(() => loadedRecord(STORE, record));
        };
      });
    },

    async commit(key, bytes, expectedRevision) {
      checkKey(STORE, 'commit', key);
      const copy = copyBytes(STORE, 'commit', bytes);
      const expected = checkExpected(STORE, 'commit', expectedRevision);
      const db = await database.get();
      return transaction(STORE, db, DOCS, 'readwrite', (docs, finish) => {
        const request = docs.get(key);
        request.onsuccess = () => {
          const actual = request.result?.revision;
          if (actual !== expected) {
            finish(() => {
              throw conflict(key, actual, expected);
            });
            return;
          }
          const revision = newRevision();
          docs.put({ key, bytes: copy, revision });
          finish(() => ({ revision }));
        };
      });
    },

    async list(prefix) {
      checkPrefix(STORE, prefix);
      const db = await database.get();
      return transaction(STORE, db, DOCS, 'readonly', (docs, finish) => {
        const out = [];
        let jumped = false;
        const request = docs.index(BY_KEY_REVISION).openKeyCursor();
        request.onsuccess = () => {
          const cursor = request.result;
          if (!cursor) {
            finish(() => out);
            return;
          }
          const [key, revision] = cursor.key;
          // Every key starting with `prefix` sorts at or after [prefix] (strings compare by code
          // units in IndexedDB as in JavaScript): jump there once, stop at the first key past it.
          if (!jumped) {
            jumped = true;
            // (Numbers and dates sort before every string, so a damaged non-string key is
            // jumped over too.)
            if (typeof key !== 'string' || key < prefix) {
              cursor.continue([prefix]);
              return;
            }
          }
          if (typeof key !== 'string' || !key.startsWith(prefix)) {
            finish(() => out);
            return;
          }
          if (typeof revision !== 'string') {
            finish(() => {
              throw damaged(key);
            });
            return;
          }
          out.push({ key, revision });
          cursor.continue();
        };
      });
    },

    async remove(key, expectedRevision) {
      checkKey(STORE, 'remove', key);
      const expected = checkExpected(STORE, 'remove', expectedRevision);
      const db = await database.get();
      return transaction(STORE, db, DOCS, 'readwrite', (docs, finish) => {
        const request = docs.get(key);
        request.onsuccess = () => {
          const actual = request.result?.revision;
          if (expected !== undefined && actual !== expected) {
            finish(() => {
              throw conflict(key, actual, expected);
            });
            return;
          }
          if (request.result === undefined) {
            finish(() => false);
            return;
          }
          docs.delete(key);
          finish(() => true);
        };
      });
    },

    /** Closes the connection (the next call re-opens it); lets a page delete the database. */
    close() {
      return database.close();
    },
  };
}
