// Loading fx's WebAssembly artifacts: the default location next to this module, and every form
// a host may pass as a `wasm` source. Shared by the session functions and the factories.

const WASM_SOURCE_ERROR =
  'wasm must be a URL, Response, ArrayBuffer, typed array, WebAssembly.Module, or a Promise of one';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

/** Reads a `file:` URL in Node; other URLs are fetched by the glue. */
async function readFileUrl(url) {
  const { readFile } = await import('node:fs/promises');
  return readFile(url);
}

function isUrlLike(value) {
  return typeof value === 'string' || value instanceof URL;
}

/**
 * Turns a host-supplied `wasm` source into something wasm-bindgen's init accepts
 * (a `Response`, `BufferSource`, `WebAssembly.Module`, or a non-`file:` URL it fetches).
 * Throws a `TypeError` for anything else.
 */
export async function resolveWasmSource(source) {
  if (source instanceof Promise) source = await source;
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
  if (typeof Response === 'function' && source instanceof Response) return source;
  if (isUrlLike(source)) {
    let url;
    try {
      url = new URL(source, isNode ? undefined : globalThis.location?.href);
    } catch {
      // A relative or absolute path: only meaningful in Node.
      if (!isNode) throw new TypeError(`wasm URL cannot be parsed: ${String(source)}`);
      const { pathToFileURL } = await import('node:url');
      url = pathToFileURL(String(source));
    }
    return url.protocol === 'file:' ? readFileUrl(url) : url;
  }
  throw new TypeError(WASM_SOURCE_ERROR);
}

/** The default source of an artifact shipped next to this module (`fx-core.wasm`, ...). */
export function defaultWasmUrl(fileName) {
  return new URL(fileName, import.meta.url);
}

/** Checks a `wasm` source's type synchronously, so setters can throw right away. */
export function assertWasmSource(source) {
  const ok =
    source instanceof Promise ||
    source instanceof WebAssembly.Module ||
    source instanceof ArrayBuffer ||
    ArrayBuffer.isView(source) ||
    (typeof Response === 'function' && source instanceof Response) ||
    isUrlLike(source);
  if (!ok) throw new TypeError(WASM_SOURCE_ERROR);
}

const loaded = new Map();

/**
 * Loads and initializes one artifact's glue (`fx-core` or `fx-term`) once per page. The first
 * caller's `source` wins (the glue holds one instance); a failed load is retried next time.
 */
export function loadWasmModule(name, source) {
  if (source !== undefined) assertWasmSource(source);
  let promise = loaded.get(name);
  if (!promise) {
    promise = (async () => {
      const glue = name === 'fx-term' ? await import('./fx-term.js') : await import('./fx-core.js');
      const module_or_path = await resolveWasmSource(source ?? defaultWasmUrl(`${name}.wasm`));
      await glue.default({ module_or_path });
      return glue;
    })();
    loaded.set(name, promise);
    promise.catch(() => loaded.delete(name));
  }
  return promise;
}
