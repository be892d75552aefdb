// Small promise helpers over IndexedDB shared by the IndexedDB-backed stores: finding the factory,
// opening (and re-opening) a database, and running one transaction whose result is known only
// once it has committed.

import { codedError } from '../errors.js';

/** The IndexedDB factory to use: the injected one, else the global one; throws when neither. */
export function resolveIndexedDb(store, injected) {
  let factory = injected;
  if (factory === undefined) {
    try {
      factory = globalThis.indexedDB;
    } catch {
      // A sandboxed frame may throw on access; reported below like a missing factory.
      factory = undefined;
    }
  }
  if (!factory || typeof factory.open !== 'function') {
    throw codedError(
      'FX_STORE_UNAVAILABLE',
      `${store}: IndexedDB is not available here; pass { indexedDB } or use a memory store`,
    );
  }
  return factory;
}

/**
 * A lazily opened connection to database `name`, created by `upgrade(db)` at `version`. The
 * connection closes itself when another tab upgrades or deletes the database, and the next call
 * re-opens it.
 */
export function lazyDatabase(store, factory, name, version, upgrade) {
  let opening = null;
  const open = () =>
    new Promise((resolve, reject) => {
      let request;
      try {
        request = factory.open(name, version);
      } catch (err) {
        reject(unavailable(store, name, err));
        return;
      }
      request.onupgradeneeded = () => upgrade(request.result);
      request.onsuccess = () => {
        const db = request.result;
        db.onversionchange = () => {
          db.close();
          opening = null;
        };
        db.onclose = () => {
          opening = null;
        };
        resolve(db);
      };
      request.onerror = () => reject(unavailable(store, name, request.error));
      request.onblocked = () => {
        // Another tab holds an older version open; onsuccess follows once it closes.
      };
    });
  return {
    get() {
      if (!opening) {
        opening = open();
        opening.catch(() => {
          opening = null;
        });
      }
      return opening;
    },
    async close() {
      const pending = opening;
      opening = null;
      if (pending) (await pending.catch(() => null))?.close();
    },
  };
}

function unavailable(store, name, cause) {
  const detail = cause?.message ? `: ${cause.message}` : '';
  const error = codedError('FX_STORE_UNAVAILABLE', `${store}: cannot open IndexedDB database "${name}"${detail}`);
  if (cause) error.cause = cause;
  return error;
}

/**
 * Runs `body(objectStore, finish, tx)` in one transaction on `storeName` (or on several: an
 * array, whose first names `objectStore`; `tx.objectStore()` gives the others). `body` issues requests and
 * calls `finish(() => value)` (or `finish(() => { throw error })`) once it knows the outcome; the
 * returned promise settles with that outcome only after the transaction has committed, so a
 * resolved write is durable. A failed or aborted transaction rejects with a store error.
 */
export function transaction(store, db, storeName, mode, body) {
  return new Promise((resolve, reject) => {
    let outcome = () => undefined;
    let tx;
    try {
      tx = db.transaction(storeName, mode);
    } catch (err) {
      reject(failure(store, err));
      return;
    }
    tx.oncomplete = () => {
      try {
        resolve(outcome());
      } catch (err) {
        reject(err);
      }
    };
    tx.onabort = () => reject(failure(store, tx.error));
    tx.onerror = (event) => {
      // Reported once by onabort; keep the error from reaching window.onerror.
      event.preventDefault?.();
    };
    try {
      const first = Array.isArray(storeName) ? storeName[0] : storeName;
      body(
        tx.objectStore(first),
        (next) => {
          outcome = next;
        },
        tx,
      );
    } catch (err) {
      outcome = () => {
        throw err;
      };
      // Nothing was written yet; abort so a half-issued write cannot commit.
      try {
        tx.abort();
      } catch {
        // Already finished.
      }
      reject(err);
    }
  });
}

function failure(store, cause) {
  const detail = cause?.message ? `: ${cause.message}` : '';
  return codedError('FX_STORE_FAILED', `${store}: the IndexedDB transaction failed${detail}`, cause || undefined);
}

let revisionCounter = 0;

/** A fresh, opaque, unique revision: the time, a per-page counter and 64 random bits. */
export function newRevision() {
  revisionCounter += 1;
  const random = new Uint8Array(8);
  globalThis.crypto.getRandomValues(random);
  const hex = Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${Date.now().toString(36)}.${revisionCounter.toString(36)}.${hex}`;
}

/** An exact copy of a Uint8Array (a view would clone its whole buffer into the database). */
export function copyBytes(store, method, bytes) {
  if (!ArrayBuffer.isView(bytes) || bytes[Symbol.toStringTag] !== 'Uint8Array') {
    throw new TypeError(`${store}.${method}(): bytes must be a Uint8Array`);
  }
  return new Uint8Array(bytes);
}

/**
 * A stored record as `load()` returns it, or null. A record without Uint8Array bytes and a string
 * revision (written by something else, or damaged) is a store failure, never passed on.
 */
export function loadedRecord(store, record) {
  if (record === undefined || record === null) return null;
  const { bytes, revision } = record;
  if (!ArrayBuffer.isView(bytes) || bytes[Symbol.toStringTag] !== 'Uint8Array' || typeof revision !== 'string') {
    throw codedError('FX_STORE_FAILED', `${store}: the stored record is damaged (expected Uint8Array bytes and a string revision)`);
  }
  return { bytes, revision };
}
