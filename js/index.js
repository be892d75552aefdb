// fx-wasm: the fx coding agent as a WebAssembly SDK. This entry exposes the session functions;
// fx-core.wasm is fetched and compiled on first use, never on import.

import { loadCore } from './load-core.js';
import { WASM_SOURCE_ERROR, assertWasmSource, configureWasm } from './wasm.js';

export { createFxAgent } from './agent.js';
export { createFxTerminal } from './terminal.js';
export { encodeXtermKeyEvent, xtermAdapter } from './xterm.js';
export {
  memoryConfigStore,
  memoryOAuthSessionStore,
  memoryPromptHistoryStore,
  memorySessionStore,
} from './memory-stores.js';
export { indexedDbOAuthSessionStore } from './stores/indexeddb-oauth-store.js';
export { indexedDbSessionStore } from './stores/indexeddb-session-store.js';
export { localStorageConfigStore, localStoragePromptHistoryStore } from './stores/localstorage-stores.js';

/**
 * Sets where the artifacts come from: `setWasm(source)` for `fx-core.wasm`, or
 * `setWasm({ core, term })` for either or both (`term` is `fx-term.wasm`, the terminal's). A
 * source is a URL string, `URL`, `Response`, `ArrayBuffer`, typed array, `WebAssembly.Module`, or
 * a Promise of one. A factory's own `wasm` option wins over it. Call it before the first load;
 * once an artifact is loaded, later calls have no effect on it.
 */
export function setWasm(source) {
  if (typeof source === 'object' && source !== null && Object.getPrototypeOf(source) === Object.prototype) {
    const keys = Object.keys(source);
    if (keys.length === 0 || keys.some((key) => key !== 'core' && key !== 'term')) {
      throw new TypeError(`${WASM_SOURCE_ERROR}, or an object { core, term } of them (got { ${keys.join(', ')} })`);
    }
    for (const key of keys) if (source[key] !== undefined) assertWasmSource(source[key]);
    if (source.core !== undefined) configureWasm('fx-core', source.core);
    if (source.term !== undefined) configureWasm('fx-term', source.term);
    return;
  }
  configureWasm('fx-core', source);
}

function isUint8Array(value) {
  return ArrayBuffer.isView(value) && value[Symbol.toStringTag] === 'Uint8Array';
}

function requireBytes(fn, value) {
  if (!isUint8Array(value)) {
    throw new TypeError(`${fn}: bytes must be a Uint8Array, got ${describe(value)}`);
  }
}

function describe(value) {
  if (value === null) return 'null';
  if (ArrayBuffer.isView(value)) return value[Symbol.toStringTag];
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

/**
 * Loads a session log (the bytes a `sessionStore` holds: fx's `events.jsonl`) strictly and
 * returns a plain view of it.
 */
export async function readSession(bytes) {
  requireBytes('readSession', bytes);
  const core = await loadCore();
  return core.readSession(bytes);
}

/**
 * Builds session bytes from the files of a native fx session directory, keyed by their path
 * relative to the directory (`events.jsonl`, `session.json`, `images/….bin`, ...).
 */
export async function importNativeSession(files) {
  if (files === null || typeof files !== 'object' || Array.isArray(files) || isUint8Array(files)) {
    throw new TypeError(
      `importNativeSession: files must be an object mapping paths to Uint8Array, got ${describe(files)}`,
    );
  }
  const paths = Object.keys(files);
  const contents = paths.map((path) => {
    const data = files[path];
    if (!isUint8Array(data)) {
      throw new TypeError(
        `importNativeSession: files[${JSON.stringify(path)}] must be a Uint8Array, got ${describe(data)}`,
      );
    }
    return data;
  });
  const core = await loadCore();
  return core.importNativeSession(paths, contents);
}

/**
 * Writes the native fx session directory for session bytes: the files the fx CLI needs to load
 * it, keyed by relative path.
 */
export async function exportNativeSession(bytes) {
  requireBytes('exportNativeSession', bytes);
  const core = await loadCore();
  return Object.fromEntries(core.exportNativeSession(bytes));
}
