// sessionStore over IndexedDB: one database per store name. A session is a head record
// `{id, revision, updatedAtMs, chunks, length, small}` in `sessions` (indexed on `updatedAtMs`
// for newest-first listing) and its bytes in `chunks` under keys `[id, 0]`, `[id, 1]`, …: what
// the last `commit` wrote, then what each `append` added. An append is one new chunk, without
// reading anything; `small` counts the trailing chunks of small appends, and every 32nd small
// append merges them with itself into one chunk (one read of at most 2 MiB, 1 in 32 appends),
// so a session of thousands of turns stays a few hundred chunks. Every write is a
// compare-and-set on the head's revision in a single readwrite transaction (so two tabs racing
// on one revision cannot both win), and `load` checks the chunks against the head: a missing or
// damaged chunk is a store failure, never a shorter log.
//
// Version 1 databases kept the bytes in the head record (`{id, bytes, revision, updatedAtMs}`);
// such records still load, and the next write moves them to chunks.

import { codedError } from '../errors.js';
import { copyBytes, lazyDatabase, loadedRecord, newRevision, resolveIndexedDb, transaction } from './idb.js';

const STORE = 'indexedDbSessionStore';
const SESSIONS = 'sessions';
const CHUNKS = 'chunks';
const BY_UPDATED = 'updatedAtMs';
/** Appends smaller than this are "small": every MERGE_EVERY-th one merges the small ones before it. */
const MERGE_BYTES = 64 * 1024;
const MERGE_EVERY = 32;

function requireId(method, id) {
  if (typeof id !== 'string' || id === '') {
    throw new TypeError(`${STORE}.${method}(): the session id must be a non-empty string`);
  }
}

function requireRevision(method, expectedRevision, allowNone) {
  const expected = expectedRevision ?? undefined;
  if (expected === undefined ? !allowNone : typeof expected !== 'string') {
    throw new TypeError(`${STORE}.${method}(): expectedRevision must be a string${allowNone ? ' or undefined' : ''}`);
  }
  return expected;
}

/** Every chunk key of session `id`. */
const allChunks = (id) => IDBKeyRange.bound([id, 0], [id, Infinity]);

const isBytes = (value) => ArrayBuffer.isView(value) && value[Symbol.toStringTag] === 'Uint8Array';

function damaged(id, detail) {
  return codedError('FX_STORE_FAILED', `${STORE}: the stored session ${id} is damaged (${detail}); nothing was loaded`);
}

function conflict(id, actual, expected) {
  return codedError(
    'FX_SESSION_REVISION_CONFLICT',
    `session ${id} is at revision ${actual ?? 'none'}, not ${expected ?? 'none'}`,
  );
}

/** The head's bytes joined from `chunks`, checked against what the head says it holds. */
function joined(id, head, chunks) {
  if (!Number.isSafeInteger(head.chunks) || !Number.isSafeInteger(head.length) || typeof head.revision !== 'string') {
    throw damaged(id, 'its head record is not { revision, chunks, length }');
  }
  if (chunks.length !== head.chunks) throw damaged(id, `${chunks.length} of ${head.chunks} chunks are stored`);
  let length = 0;
  for (const chunk of chunks) {
    if (!isBytes(chunk)) throw damaged(id, 'a chunk is not a Uint8Array');
    length += chunk.byteLength;
  }
  if (length !== head.length) throw damaged(id, `its chunks hold ${length} of ${head.length} bytes`);
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Sessions in the IndexedDB database `name` (default `fx.sessions`). `commit` is an atomic
 * compare-and-set: `expectedRevision` `undefined` (or `null`) means "no record yet"; any other
 * mismatch throws an Error with code `FX_SESSION_REVISION_CONFLICT` and writes nothing.
 * `append` (our extension of the contract) adds bytes at the end of the record under the same
 * check. Revisions are opaque and unique. `list()` is newest first.
 */
export function indexedDbSessionStore({ name = 'fx.sessions', indexedDB } = {}) {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`${STORE}: name must be a non-empty string`);
  }
  const factory = resolveIndexedDb(STORE, indexedDB);
  const database = lazyDatabase(STORE, factory, name, 2, (db) => {
    if (!db.objectStoreNames.contains(SESSIONS)) {
      const sessions = db.createObjectStore(SESSIONS, { keyPath: 'id' });
      sessions.createIndex(BY_UPDATED, 'updatedAtMs');
    }
    if (!db.objectStoreNames.contains(CHUNKS)) db.createObjectStore(CHUNKS);
  });

  /** A compare-and-set write: `write(head, chunks, sessions)` runs once the revision matched. */
  const writeIf = async (id, expected, write) => {
    const db = await database.get();
    return transaction(STORE, db, [SESSIONS, CHUNKS], 'readwrite', (sessions, finish, tx) => {
      const request = sessions.get(id);
      request.onsuccess = () => {
        const head = request.result;
        if (head?.revision !== expected) {
          finish(() => {
            throw conflict(id, head?.revision, expected);
          });
          return;
        }
        const revision = newRevision();
        write(head, tx.objectStore(CHUNKS), (chunks, length, small = 0) => {
          sessions.put({ id, revision, updatedAtMs: Date.now(), chunks, length, small });
        });
        finish(() => ({ revision }));
      };
    });
  };

  return {
    async load(id) {
      requireId('load', id);
      const db = await database.get();
      return transaction(STORE, db, [SESSIONS, CHUNKS], 'readonly', (sessions, finish, tx) => {
        const request = sessions.get(id);
        request.onsuccess = () => {
          const head = request.result;
          if (head === undefined || head === null || head.bytes !== undefined) {
            finish(() => loadedRecord(STORE, head));
            return;
          }
          const chunks = tx.objectStore(CHUNKS).getAll(allChunks(id));
          chunks.onsuccess = () => {
            finish(() => ({ bytes: joined(id, head, chunks.result), revision: head.revision }));
          };
        };
      });
    },

    async commit(id, bytes, expectedRevision) {
      requireId('commit', id);
      const copy = copyBytes(STORE, 'commit', bytes);
      const expected = requireRevision('commit', expectedRevision, true);
      return writeIf(id, expected, (_head, chunks, setHead) => {
        chunks.delete(allChunks(id));
        chunks.put(copy, [id, 0]);
        setHead(1, copy.byteLength);
      });
    },

    async append(id, bytes, expectedRevision) {
      requireId('append', id);
      const copy = copyBytes(STORE, 'append', bytes);
      const expected = requireRevision('append', expectedRevision, false);
      return writeIf(id, expected, (head, chunks, setHead) => {
        if (head.bytes !== undefined) {
          // A version 1 record: its bytes move to chunk 0.
          const base = loadedRecord(STORE, head).bytes;
          chunks.put(base, [id, 0]);
          chunks.put(copy, [id, 1]);
          setHead(2, base.byteLength + copy.byteLength);
          return;
        }
        const count = head.chunks;
        const length = head.length + copy.byteLength;
        const small = Number.isSafeInteger(head.small) ? head.small : 0;
        if (copy.byteLength >= MERGE_BYTES || small + 1 < MERGE_EVERY || small >= count) {
          // Most appends: one new chunk, no read.
          const isSmall = copy.byteLength < MERGE_BYTES;
          chunks.put(copy, [id, count]);
          setHead(count + 1, length, isSmall ? small + 1 : 0);
          return;
        }
        // Every MERGE_EVERY-th small append: the trailing small chunks and this one become one.
        const first = count - small;
        const tail = chunks.getAll(IDBKeyRange.bound([id, first], [id, count - 1]));
        tail.onsuccess = () => {
          const parts = tail.result;
          if (parts.length !== small || !parts.every(isBytes)) {
            // Damaged: leave it for load to report, add this append on its own.
            chunks.put(copy, [id, count]);
            setHead(count + 1, length, 0);
            return;
          }
          const merged = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, copy.byteLength));
          let offset = 0;
          for (const part of [...parts, copy]) {
            merged.set(part, offset);
            offset += part.byteLength;
          }
          chunks.delete(IDBKeyRange.bound([id, first + 1], [id, count - 1]));
          chunks.put(merged, [id, first]);
          setHead(first + 1, length, 0);
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
      await transaction(STORE, db, [SESSIONS, CHUNKS], 'readwrite', (sessions, _finish, tx) => {
        sessions.delete(id);
        tx.objectStore(CHUNKS).delete(allChunks(id));
      });
    },

    /** Closes the connection (the next call re-opens it); lets a page delete the database. */
    close() {
      return database.close();
    },
  };
}
