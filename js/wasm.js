// Loading fx's WebAssembly artifacts: the `wasm` source forms a host may pass, what `setWasm`
// configured, one instance per artifact, and a clear error when what arrives is not WebAssembly.
//
// No default location lives here: each artifact's loader (load-core.js, load-term.js) names its
// file with a literal `new URL('./fx-….wasm', import.meta.url)`, the form bundlers detect and
// emit. Nothing here imports a `node:` module either: Node's file reading comes from the
// package's `node` entry (node.js) through `setFileReader`, so a browser bundle never sees one.

import { codedError } from './errors.js';

export const WASM_SOURCE_ERROR =
  'wasm must be a URL, Response, ArrayBuffer, typed array, WebAssembly.Module, or a Promise of one';
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

let readFile = null;

/**
 * Installs the function that reads a `file:` URL or a filesystem path (Node's `readFile`).
 * Called once by the package's Node entry.
 */
export function setFileReader(reader) {
  readFile = reader;
}

/** The file reader: the one the Node entry installed, else Node's own when the runtime has one. */
function fileReader() {
  if (readFile) return readFile;
  // A Node-like runtime that resolved the browser entry (a test runner with a DOM environment,
  // an import by path) still reads files, without a `node:` import a bundler would follow.
  const fs = globalThis.process?.getBuiltinModule?.('fs/promises');
  return typeof fs?.readFile === 'function' ? fs.readFile : null;
}

function isUrlLike(value) {
  return typeof value === 'string' || value instanceof URL;
}

function isResponse(value) {
  return typeof Response === 'function' && value instanceof Response;
}

/** Checks a `wasm` source's type synchronously, so setters can throw right away. */
export function assertWasmSource(source) {
  const ok =
    source instanceof Promise ||
    source instanceof WebAssembly.Module ||
    source instanceof ArrayBuffer ||
    ArrayBuffer.isView(source) ||
    isResponse(source) ||
    isUrlLike(source);
  if (!ok) throw new TypeError(WASM_SOURCE_ERROR);
}

/** An `Error` named `FxError` with code `FX_WASM_LOAD_FAILED`. */
function loadError(message, cause) {
  return codedError('FX_WASM_LOAD_FAILED', message, cause);
}

const BUNDLER_HINT =
  'the file is not where the page looks for it: serve it there, or pass its URL (see "Bundlers" in the fx-wasm README)';

/** Parses a URL-like source: against the page in browsers; a non-URL string in Node is a path. */
function parseLocation(name, source) {
  const base = typeof globalThis.location?.href === 'string' ? globalThis.location.href : undefined;
  try {
    return new URL(source, base);
  } catch {
    if (typeof source === 'string' && fileReader()) return null;
    throw new TypeError(`${name}.wasm: the URL ${JSON.stringify(String(source))} cannot be parsed`);
  }
}

async function readLocal(name, location) {
  const read = fileReader();
  if (!read) {
    throw loadError(
      `${name}.wasm: ${location} is a file: URL and this runtime reads no files (Node does, through the package's node entry); pass the bytes or the URL it is served at`,
    );
  }
  try {
    return await read(location);
  } catch (error) {
    throw loadError(`${name}.wasm could not be read from ${location}: ${error?.message ?? error}`, error);
  }
}

async function fetchWasm(name, url) {
  try {
    return await fetch(url);
  } catch (error) {
    throw loadError(`${name}.wasm could not be fetched from ${url}: ${error?.message ?? error}`, error);
  }
}

/** How many bytes of a body the "not WebAssembly" message quotes. */
const QUOTED_BYTES = 16;

/**
 * Reads the first bytes of a body (at least `QUOTED_BYTES`, or all of a shorter one); resolves to
 * them and the stream of the whole body, those bytes included.
 */
async function peek(body) {
  const reader = body.getReader();
  const head = [];
  let length = 0;
  let done = false;
  while (length < QUOTED_BYTES && !done) {
    const chunk = await reader.read();
    done = chunk.done;
    if (chunk.value) {
      head.push(chunk.value);
      length += chunk.value.byteLength;
    }
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of head) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const whole = new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      if (done) controller.close();
    },
    async pull(controller) {
      const chunk = await reader.read();
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { bytes, whole };
}

function notWasmError(name, where, type, bytes) {
  const start = new TextDecoder().decode(bytes.subarray(0, QUOTED_BYTES)).replace(/\s+/g, ' ').trim();
  return loadError(
    `${name}.wasm from ${where} is not WebAssembly (${type || 'no content type'}, starts ${JSON.stringify(start)}); ${BUNDLER_HINT}`,
  );
}

/**
 * Checks a fetched (or host-supplied) response: a failed status or a body that is not
 * WebAssembly (a bundler's index page in place of a missing asset) is a coded error naming the
 * URL. Resolves to something the glue instantiates: a response it can compile while the bytes
 * arrive (`application/wasm`; a body served with another type is checked and passed on under
 * that type), else the bytes.
 */
async function checkResponse(name, response) {
  const where = response.url || 'the given Response';
  if (!response.ok) {
    throw loadError(`${name}.wasm could not be loaded from ${where}: HTTP ${response.status}; ${BUNDLER_HINT}`);
  }
  const type = response.headers.get('content-type') ?? '';
  const streaming = typeof WebAssembly.instantiateStreaming === 'function';
  if (/^application\/wasm\b/i.test(type) && streaming) return response;
  if (streaming && response.body && typeof ReadableStream === 'function') {
    // A server that does not say `application/wasm`: look at the first bytes, then compile the
    // rest as it arrives under the right type.
    const { bytes, whole } = await peek(response.body);
    if (!WASM_MAGIC.every((byte, i) => bytes[i] === byte)) throw notWasmError(name, where, type, bytes);
    return new Response(whole, { status: 200, headers: { 'content-type': 'application/wasm' } });
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!WASM_MAGIC.every((byte, i) => bytes[i] === byte)) throw notWasmError(name, where, type, bytes);
  return bytes;
}

/**
 * Turns a `wasm` source into what wasm-bindgen's init accepts: a `WebAssembly.Module`, bytes, or
 * a checked `Response`. URLs are fetched here (`file:` URLs and paths read in Node), never by
 * the glue. Throws a `TypeError` for a source of the wrong type.
 */
export async function resolveWasmSource(source, name = 'fx-core') {
  if (source instanceof Promise) source = await source;
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (isResponse(source)) return checkResponse(name, source);
  if (isUrlLike(source)) {
    const url = parseLocation(name, source);
    if (url === null) return readLocal(name, String(source));
    if (url.protocol === 'file:') return readLocal(name, url);
    return checkResponse(name, await fetchWasm(name, url));
  }
  throw new TypeError(WASM_SOURCE_ERROR);
}

/** Compiles what `resolveWasmSource` resolved to: a module as it is, a response while it streams. */
function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (isResponse(source)) return WebAssembly.compileStreaming(source);
  return WebAssembly.compile(source);
}

const configured = new Map();
const loaded = new Map();

/** Records where an artifact (`fx-core`, `fx-term`) comes from unless a load names a source. */
export function configureWasm(name, source) {
  assertWasmSource(source);
  configured.set(name, source);
}

/**
 * Loads and initializes one artifact once per page. `artifact` is `{ name, glue, location }`:
 * `glue()` imports its wasm-bindgen module, `location()` gives the default URL. The source is
 * the one passed, else the configured one, else the default; the first load wins (the glue holds
 * one instance), and a failed load is retried on the next call.
 */
export function loadArtifact(artifact, source) {
  if (source !== undefined) assertWasmSource(source);
  const { name } = artifact;
  let promise = loaded.get(name);
  if (!promise) {
    promise = (async () => {
      const chosen = source ?? configured.get(name) ?? artifact.location();
      // The module compiles (while its bytes arrive, for a response) as the glue is imported;
      // the glue then only instantiates it.
      const [glue, module_or_path] = await Promise.all([artifact.glue(), resolveWasmSource(chosen, name).then(compile)]);
      await glue.default({ module_or_path });
      return glue;
    })();
    loaded.set(name, promise);
    promise.catch(() => loaded.delete(name));
  }
  return promise;
}
