// Where the wasm comes from: the source forms setWasm and the factories' `wasm` option accept,
// URLs fetched from a loopback server (a missing file, an HTML page in its place), the Node
// entry's file reading, and the package's shape for bundlers: each loader names its file with a
// literal `new URL('./fx-….wasm', import.meta.url)`, and nothing the browser entry imports is a
// `node:` module.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { readSession, setWasm } from '../../pkg/index.js';
import { resolveWasmSource } from '../../pkg/wasm.js';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pkg');
const wasmUrl = new URL('../../pkg/fx-core.wasm', import.meta.url);
const wasmBytes = await readFile(wasmUrl);
let server;
let base;

before(async () => {
  // /core.wasm as application/wasm, /plain.wasm as octet-stream, /page.wasm an HTML page (what
  // a dev server's fallback answers for a missing asset), anything else 404.
  server = createServer((req, res) => {
    if (req.url === '/core.wasm') res.writeHead(200, { 'content-type': 'application/wasm' }).end(wasmBytes);
    else if (req.url === '/plain.wasm') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(wasmBytes);
    else if (req.url === '/page.wasm') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>app</p>');
    else res.writeHead(404).end('not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => new Promise((resolve) => server.close(resolve)));

test('setWasm rejects what cannot be a wasm source with a TypeError', () => {
  for (const bad of [42, null, undefined, {}, [1, 2], true, { core: 42 }, { term: {} }, { cor: wasmUrl }]) {
    assert.throws(() => setWasm(bad), { name: 'TypeError', message: /wasm must be/ }, String(bad));
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
    'http URL (application/wasm)': `${base}/core.wasm`,
    'http URL (another content type)': new URL(`${base}/plain.wasm`),
  };
  for (const [label, source] of Object.entries(forms)) {
    const resolved = await resolveWasmSource(source);
    if (resolved instanceof WebAssembly.Module) continue;
    const bytes = resolved instanceof Response ? await resolved.arrayBuffer() : resolved;
    assert.ok(WebAssembly.validate(bytes), `${label} gives valid wasm bytes`);
  }
  await assert.rejects(resolveWasmSource(Promise.resolve(7)), TypeError);
});

test('a server that does not say application/wasm still gets a streaming compile', async () => {
  const resolved = await resolveWasmSource(new URL(`${base}/plain.wasm`));
  assert.ok(resolved instanceof Response, 'a Response the glue compiles while the bytes arrive');
  assert.equal(resolved.headers.get('content-type'), 'application/wasm');
  const module = await WebAssembly.compileStreaming(resolved);
  assert.ok(WebAssembly.Module.exports(module).length > 0);
  // A body shorter than what the message quotes, and an empty one, are refused too.
  for (const body of ['<p>', '']) {
    await assert.rejects(resolveWasmSource(new Response(body, { headers: { 'content-type': 'text/plain' } }), 'fx-core'), {
      code: 'FX_WASM_LOAD_FAILED',
      message: /fx-core\.wasm from the given Response is not WebAssembly \(text\/plain, starts "(<p>)?"\)/,
    });
  }
});

test('a missing file or an HTML page in its place is FX_WASM_LOAD_FAILED naming the URL', async () => {
  await assert.rejects(resolveWasmSource(`${base}/missing.wasm`, 'fx-core'), {
    name: 'FxError',
    code: 'FX_WASM_LOAD_FAILED',
    message: new RegExp(`fx-core\\.wasm could not be loaded from ${base}/missing\\.wasm: HTTP 404; .*Bundlers`),
  });
  await assert.rejects(resolveWasmSource(`${base}/page.wasm`, 'fx-term'), {
    code: 'FX_WASM_LOAD_FAILED',
    message: /fx-term\.wasm from http:\/\/127\.0\.0\.1:\d+\/page\.wasm is not WebAssembly \(text\/html, starts "<!doctype html><"\); the file is not where/,
  });
  await assert.rejects(resolveWasmSource(new URL('file:///nowhere/fx-core.wasm')), {
    code: 'FX_WASM_LOAD_FAILED',
    message: /could not be read from file:\/\/\/nowhere\/fx-core\.wasm/,
  });
});

test('a failed load is reported, and the next call loads again', async () => {
  setWasm(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 255]));
  await assert.rejects(readSession(new Uint8Array(1)), WebAssembly.CompileError);
  setWasm({ core: `${base}/missing.wasm` });
  await assert.rejects(readSession(new Uint8Array(1)), { code: 'FX_WASM_LOAD_FAILED' });
});

test('the session functions run on a module loaded from a URL setWasm gave', async () => {
  setWasm({ core: `${base}/core.wasm` });
  await assert.rejects(readSession(new TextEncoder().encode('not a log\n')), {
    name: 'FxError',
    code: 'FX_SESSION_INVALID',
  });
});

const run = promisify(execFile);

/** Runs `code` as a module in a fresh Node (each artifact loads once per process). */
async function inFreshNode(code, { noBuiltinModule = false } = {}) {
  const prelude = noBuiltinModule ? 'delete process.getBuiltinModule;\n' : '';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', prelude + code], { cwd: pkgDir });
  return JSON.parse(stdout);
}

test('the factories take their own `wasm`; setWasm({ term }) reaches the terminal', async () => {
  const out = await inFreshNode(`
    import { createFxAgent, createFxTerminal, setWasm } from './index.js';
    const term = { write() {}, onData: () => () => {}, onResize: () => () => {}, cols: 80, rows: 24 };
    const codeOf = (p) => p.then(() => 'started', (e) => e.code ?? e.name);
    const agent = await codeOf(createFxAgent({ wasm: ${JSON.stringify(`${base}/page.wasm`)} }));
    setWasm({ term: ${JSON.stringify(`${base}/missing.wasm`)} });
    const configured = await codeOf(createFxTerminal({ terminal: term }));
    const own = await createFxTerminal({ terminal: term, wasm: new URL('./fx-term.wasm', import.meta.url) });
    own.abort();
    console.log(JSON.stringify({ agent, configured, exited: await own.exited }));
  `);
  assert.deepEqual(out, { agent: 'FX_WASM_LOAD_FAILED', configured: 'FX_WASM_LOAD_FAILED', exited: 130 });
});

test('the Node entry reads the default files itself (no process.getBuiltinModule needed)', async () => {
  const code = (entry) => `
    import { readSession } from './${entry}';
    const err = await readSession(new TextEncoder().encode('x\\n')).catch((e) => e);
    console.log(JSON.stringify({ code: err.code, message: err.message }));
  `;
  assert.equal((await inFreshNode(code('node.js'), { noBuiltinModule: true })).code, 'FX_SESSION_INVALID');
  // The browser entry alone, without a file reader, says what to do instead.
  const bare = await inFreshNode(code('index.js'), { noBuiltinModule: true });
  assert.equal(bare.code, 'FX_WASM_LOAD_FAILED');
  assert.match(bare.message, /is a file: URL and this runtime reads no files .*pass the bytes or the URL/);
});

/** The relative imports (static and dynamic) of a package module, and its `node:` imports. */
async function importsOf(file) {
  const text = await readFile(join(pkgDir, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]);
  return specifiers;
}

test('the browser entry imports no node: module; each loader names its wasm literally', async () => {
  const seen = new Set();
  const queue = ['index.js'];
  while (queue.length > 0) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of await importsOf(file)) {
      assert.ok(!specifier.startsWith('node:'), `${file} imports ${specifier}`);
      assert.ok(specifier.startsWith('./') || specifier.startsWith('../'), `${file} imports ${specifier}`);
      queue.push(join(dirname(file), specifier));
    }
  }
  assert.ok(seen.has('fx-core.js') && seen.has('fx-term.js'), 'both glue modules are reached');
  assert.ok(!seen.has('node.js'));
  for (const [file, wasm] of [['load-core.js', 'fx-core.wasm'], ['load-term.js', 'fx-term.wasm']]) {
    const text = await readFile(join(pkgDir, file), 'utf8');
    assert.ok(text.includes(`new URL('./${wasm}', import.meta.url)`), `${file} names ./${wasm} literally`);
  }
  for (const glue of ['fx-core.js', 'fx-term.js']) {
    const text = await readFile(join(pkgDir, glue), 'utf8');
    assert.ok(!text.includes('import.meta.url'), `${glue} has no default module path of its own`);
  }
  const { exports } = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8'));
  assert.deepEqual(exports['.'], { types: './index.d.ts', node: './node.js', default: './index.js' });
});
