// fx-wasm: the fx coding agent as a WebAssembly SDK. This entry exposes the session functions;
// fx-core.wasm is fetched and compiled on first use, never on import.

import { assertWasmSource, loadWasmModule } from './wasm.js';

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

let coreSource;

/**
 * Sets where `fx-core.wasm` comes from (URL string, `URL`, `Response`, `ArrayBuffer`, typed
 * array, `WebAssembly.Module`, or a Promise of one). Call it before the first session function;
 * once the module is loaded, later calls have no effect on it.
 */
export function setWasm(source) {
  assertWasmSource(source);
  coreSource = source;
}

function loadCore() {
  return loadWasmModule('fx-core', coreSource);
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
