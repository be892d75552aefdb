// The document store as the engine calls it: every call a Promise, bounded by the adapter
// deadline, its result shape-checked; a stale revision keeps its FXBOT_STORE_REVISION_CONFLICT
// code (the engine retries on it), anything else becomes the engine's 500.

import { codedError } from '../errors.js';

function fail(method, message) {
  return codedError('FX_ADAPTER_INVALID', `store.${method}() ${message}`);
}

function bytesOf(value) {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return null;
}

const CHECKS = {
  load(result) {
    if (result === null || result === undefined) return null;
    const bytes = bytesOf(result.bytes);
    if (bytes === null || typeof result.revision !== 'string') {
      throw fail('load', 'must resolve to { bytes: Uint8Array, revision: string } or null');
    }
    return { bytes, revision: result.revision };
  },
  commit(result) {
    const revision = typeof result === 'string' ? result : result?.revision;
    if (typeof revision !== 'string') throw fail('commit', 'must resolve to { revision: string }');
    return revision;
  },
  list(result) {
    if (!Array.isArray(result) || !result.every((e) => typeof e?.key === 'string' && typeof e?.revision === 'string')) {
      throw fail('list', 'must resolve to an array of { key, revision } strings');
    }
    return result.map(({ key, revision }) => ({ key, revision }));
  },
  remove(result) {
    return result === true;
  },
};

/** Wraps `store` (an FxbotStore) for the engine; `timeoutMs` bounds each call. */
export function docsAdapter(store, timeoutMs) {
  const call = (method, args) => {
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(codedError('FX_ADAPTER_TIMEOUT', `store.${method}() did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const run = Promise.resolve()
      .then(() => store[method](...args))
      .then(CHECKS[method]);
    return Promise.race([run, deadline]).finally(() => clearTimeout(timer));
  };
  return {
    load: (key) => call('load', [key]),
    commit: (key, bytes, expected) => call('commit', [key, bytes, expected ?? undefined]),
    list: (prefix) => call('list', [prefix]),
    remove: (key, expected) => call('remove', expected === undefined || expected === null ? [key] : [key, expected]),
  };
}
