// oauthSessionStore over IndexedDB: the one device-login record `{bytes, revision}` under a fixed
// key, written and removed by compare-and-set in single readwrite transactions. The bytes hold
// token material: they are copied as given and never parsed, logged or put in an error.

import { codedError } from '../errors.js';
import { copyBytes, lazyDatabase, loadedRecord, newRevision, resolveIndexedDb, transaction } from './idb.js';

const STORE = 'indexedDbOAuthSessionStore';
const RECORDS = 'oauth';
const KEY = 'session';

function conflict(actual, expected) {
  return codedError(
    'FX_OAUTH_SESSION_REVISION_CONFLICT',
    `oauth session is at revision ${actual ?? 'none'}, not ${expected ?? 'none'}`,
  );
}

function expectedOf(method, expectedRevision) {
  const expected = expectedRevision ?? undefined;
  if (expected !== undefined && typeof expected !== 'string') {
    throw new TypeError(`${STORE}.${method}(): expectedRevision must be a string or undefined`);
  }
  return expected;
}

/**
 * The device-login record in the IndexedDB database `name` (default `fx.oauth`). `commit`
 * conflicts (code `FX_OAUTH_SESSION_REVISION_CONFLICT`) unless `expectedRevision` is the stored
 * revision (`undefined` when nothing is stored). `remove` returns `"missing"` when nothing is
 * stored, conflicts on a stale revision (`undefined` removes whatever is there), else `true`.
 */
export function indexedDbOAuthSessionStore({ name = 'fx.oauth', indexedDB } = {}) {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`${STORE}: name must be a non-empty string`);
  }
  const factory = resolveIndexedDb(STORE, indexedDB);
  const database = lazyDatabase(STORE, factory, name, 1, (db) => {
    if (!db.objectStoreNames.contains(RECORDS)) db.createObjectStore(RECORDS);
  });

  return {
    async load() {
      const db = await database.get();
      return transaction(STORE, db, RECORDS, 'readonly', (records, finish) => {
        const request = records.get(KEY);
        request.onsuccess = () => {
          const record = request.result;
          finish(() => loadedRecord(STORE, record));
        };
      });
    },

    async commit(bytes, expectedRevision) {
      const copy = copyBytes(STORE, 'commit', bytes);
      const expected = expectedOf('commit', expectedRevision);
      const db = await database.get();
      return transaction(STORE, db, RECORDS, 'readwrite', (records, finish) => {
        const request = records.get(KEY);
        request.onsuccess = () => {
          const actual = request.result?.revision;
          if (actual !== expected) {
            finish(() => {
              throw conflict(actual, expected);
            });
            return;
          }
          const revision = newRevision();
          records.put({ bytes: copy, revision }, KEY);
          finish(() => ({ revision }));
        };
      });
    },

    async remove(expectedRevision) {
      const expected = expectedOf('remove', expectedRevision);
      const db = await database.get();
      return transaction(STORE, db, RECORDS, 'readwrite', (records, finish) => {
        const request = records.get(KEY);
        request.onsuccess = () => {
          const actual = request.result?.revision;
          if (actual === undefined) {
            finish(() => 'missing');
            return;
          }
          if (expected !== undefined && actual !== expected) {
            finish(() => {
              throw conflict(actual, expected);
            });
            return;
          }
          records.delete(KEY);
          finish(() => true);
        };
      });
    },

    /** Closes the connection (the next call re-opens it). */
    close() {
      return database.close();
    },
  };
}
