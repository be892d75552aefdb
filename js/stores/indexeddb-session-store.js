// sessionStore over IndexedDB: one database per store name, one record per session
// `{id, bytes, revision, updatedAtMs}`, a compare-and-set commit in a single readwrite
// transaction (so two tabs racing on one revision cannot both win), and an index on
// `updatedAtMs` for newest-first listing.

import { codedError } from '../errors.js';
import { copyBytes, lazyDatabase, loadedRecord, newRevision, resolveIndexedDb, transaction } from './idb.js';

const STORE = 'indexedDbSessionStore';
const SESSIONS = 'sessions';
const BY_UPDATED = 'updatedAtMs';

function requireId(method, id) {
  if (typeof id !== 'string' || id === '') {
    throw new TypeError(`${STORE}.${method}(): the session id must be a non-empty string`);
  }
}

/**
 * Sessions in the IndexedDB database `name` (default `fx.sessions`). `commit` is an atomic
 * compare-and-set: `expectedRevision` `undefined` (or `null`) means "no record yet"; any other
 * mismatch throws an Error with code `FX_SESSION_REVISION_CONFLICT` and writes nothing.
 * Revisions are opaque and unique. `list()` is newest first.
 */
export function indexedDbSessionStore({ name = 'fx.sessions', indexedDB } = {}) {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`${STORE}: name must be a non-empty string`);
  }
  const factory = resolveIndexedDb(STORE, indexedDB);
  const database = lazyDatabase(STORE, factory, name, 1, (db) => {
    if (!db.objectStoreNames.contains(SESSIONS)) {
      const sessions = db.createObjectStore(SESSIONS, { keyPath: 'id' });
      sessions.createIndex(BY_UPDATED, 'updatedAtMs');
    }
  });

  return {
    async load(id) {
      requireId('load', id);
      const db = await database.get();
      return transaction(STORE, db, SESSIONS, 'readonly', (sessions, finish) => {
        const request = sessions.get(id);
        request.onsuccess = () => {
          const record = request.result;
          finish(() => loadedRecord(STORE, record));
        };
      });
    },

    async commit(id, bytes, expectedRevision) {
      requireId('commit', id);
      const copy = copyBytes(STORE, 'commit', bytes);
      const expected = expectedRevision ?? undefined;
      if (expected !== undefined && typeof expected !== 'string') {
        throw new TypeError(`${STORE}.commit(): expectedRevision must be a string or undefined`);
      }
      const db = await database.get();
      return transaction(STORE, db, SESSIONS, 'readwrite', (sessions, finish) => {
        const request = sessions.get(id);
        request.onsuccess = () => {
          const current = request.result;
          const actual = current?.revision;
          if (actual !== expected) {
            finish(() => {
              throw codedError(
                'FX_SESSION_REVISION_CONFLICT',
                `session ${id} is at revision ${actual ?? 'none'}, not ${expected ?? 'none'}`,
              );
            });
            return;
          }
          const revision = newRevision();
          sessions.put({ id, bytes: copy, revision, updatedAtMs: Date.now() });
          finish(() => ({ revision }));
        };
      });
    },

    async list() {
      const db = await database.get();
      return transaction(STORE, db, SESSIONS, 'readonly', (sessions, finish) => {
        const out = [];
        const request = sessions.index(BY_UPDATED).openKeyCursor(null, 'prev');
        request.onsuccess = () => {
          const cursor = request.result;
          if (!cursor) {
            finish(() => out);
            return;
          }
          out.push({ id: cursor.primaryKey, updatedAtMs: cursor.key });
          cursor.continue();
        };
      });
    },

    async remove(id) {
      requireId('remove', id);
      const db = await database.get();
      await transaction(STORE, db, SESSIONS, 'readwrite', (sessions) => {
        sessions.delete(id);
      });
    },

    /** Closes the connection (the next call re-opens it); lets a page delete the database. */
    close() {
      return database.close();
    },
  };
}
