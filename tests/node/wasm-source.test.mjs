// The `wasm` source forms the package accepts (setWasm and, later, the factories' `wasm`
// option), and loading fx-core.wasm from bytes the host supplies.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { readSession, setWasm } from '../../pkg/index.js';
import { resolveWasmSource } from '../../pkg/wasm.js';

const wasmUrl = new URL('../../pkg/fx-core.wasm', import.meta.url);
const wasmBytes = await readFile(wasmUrl);

test('setWasm rejects what cannot be a wasm source with a TypeError', () => {
  for (const bad of [42, null, undefined, {}, [1, 2], true]) {
    assert.throws(() => setWasm(bad), { name: 'TypeError', message: /wasm must be/ });
  }
});

test('every source form resolves to something the glue can instantiate', async () => {
  const module = await WebAssembly.compile(wasmBytes);
  const forms = {
    'file: URL': wasmUrl,
    'file: URL string': wasmUrl.href,
    'absolute path': fileURLToPath(wasmUrl),
    ArrayBuffer: wasmBytes.buffer.slice(wasmBytes.byteOffset, wasmBytes.byteOffset + wasmBytes.length),
    Uint8Array: new Uint8Array(wasmBytes),
    'WebAssembly.Module': module,
    'Promise of bytes': Promise.resolve(new Uint8Array(wasmBytes)),
    Response: new Response(new Uint8Array(wasmBytes), { headers: { 'content-type': 'application/wasm' } }),
  };
  for (const [label, source] of Object.entries(forms)) {
    const resolved = await resolveWasmSource(source);
    if (resolved instanceof WebAssembly.Module) continue;
    const bytes = resolved instanceof Response ? await resolved.arrayBuffer() : resolved;
    assert.ok(WebAssembly.validate(bytes), `${label} gives valid wasm bytes`);
  }
  const remote = await resolveWasmSource('https://example.invalid/fx-core.wasm');
  assert.ok(remote instanceof URL, 'an https URL is left for the glue to fetch');
  await assert.rejects(resolveWasmSource(Promise.resolve(7)), TypeError);
});

test('a failed load is reported, and the next call loads again', async () => {
  setWasm(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 255]));
  await assert.rejects(readSession(new Uint8Array(1)), WebAssembly.CompileError);
});

test('the session functions run on a module loaded from host-supplied bytes', async () => {
  setWasm(new Uint8Array(wasmBytes));
  await assert.rejects(readSession(new TextEncoder().encode('not a log\n')), {
    name: 'FxError',
    code: 'FX_SESSION_INVALID',
  });
});
