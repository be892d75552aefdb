// The development servers' static files (examples/dev-gateway/static.mjs, used by the dev
// gateway and scripts/serve.mjs): every file and page carries an ETag and `no-cache`, so a
// reload revalidates and gets 304 Not Modified with no body; text and WebAssembly go out
// gzipped to a client that accepts it, under an ETag of their own; a changed file gets a new
// ETag at once. Raw node:http requests (fetch would add Accept-Encoding and decode by itself).

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { acceptsGzip, serveStatic } from '../../examples/dev-gateway/static.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** GET (or `method`) `path` on `base` with `headers`; resolves to `{ status, headers, body }`. */
function get(base, path, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the dev gateway: ETags and gzip', () => {
  let gateway;
  before(async () => {
    gateway = await startDevGateway({ port: 0, demo: true, apiKey: '' });
  });
  after(() => gateway?.close());

  test('a file carries an ETag and no-cache; If-None-Match with it gets 304 and no body', async () => {
    const path = 'examples/try/main.js';
    const file = await readFile(join(root, path));
    const first = await get(gateway.url, path);
    assert.equal(first.status, 200);
    assert.equal(first.headers['cache-control'], 'no-cache');
    assert.match(first.headers.etag, /^"[A-Za-z0-9_-]{22}"$/);
    assert.equal(first.headers['content-encoding'], undefined, 'no gzip unless asked for');
    assert.deepEqual(first.body, file);
    const again = await get(gateway.url, path, { 'if-none-match': first.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, first.headers.etag);
    const listed = await get(gateway.url, path, { 'if-none-match': `"other", W/${first.headers.etag}` });
    assert.equal(listed.status, 304, 'a weak match in a list counts');
    const stale = await get(gateway.url, path, { 'if-none-match': '"something-else"' });
    assert.equal(stale.status, 200);
    assert.deepEqual(stale.body, file);
  });

  test('gzip when accepted: far smaller, the same bytes once decoded, its own ETag, Vary', async (t) => {
    const built = await readFile(join(root, 'pkg', 'fx-core.wasm')).catch(() => null);
    if (!built) return t.skip('pkg/ is not built (npm run build)');
    const plain = await get(gateway.url, 'pkg/fx-core.wasm');
    const zipped = await get(gateway.url, 'pkg/fx-core.wasm', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers['content-type'], 'application/wasm');
    assert.equal(zipped.headers.vary, 'accept-encoding');
    assert.equal(Number(zipped.headers['content-length']), zipped.body.length);
    assert.deepEqual(gunzipSync(zipped.body), built);
    assert.ok(zipped.body.length < built.length * 0.6, `gzip: ${zipped.body.length} of ${built.length} bytes`);
    t.diagnostic(`fx-core.wasm: ${built.length} bytes, gzipped ${zipped.body.length}`);
    assert.notEqual(zipped.headers.etag, plain.headers.etag, 'each encoding has its own ETag');
    const revalidated = await get(gateway.url, 'pkg/fx-core.wasm', { 'accept-encoding': 'gzip', 'if-none-match': zipped.headers.etag });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.body.length, 0);
    // The plain ETag does not stand for the gzipped bytes, nor the other way round.
    const crossed = await get(gateway.url, 'pkg/fx-core.wasm', { 'if-none-match': zipped.headers.etag });
    assert.equal(crossed.status, 200);
    assert.equal(crossed.headers['content-encoding'], undefined);
    return undefined;
  });

  test('the try page itself: an ETag, gzip and a 304, with its Content-Security-Policy', async () => {
    const first = await get(gateway.url, '/', { 'accept-encoding': 'gzip' });
    assert.equal(first.status, 200);
    assert.equal(first.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(first.body).toString('utf8'), /<script type="importmap">/);
    assert.match(first.headers['content-security-policy'], /^default-src 'self'/);
    const again = await get(gateway.url, '/', { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
  });

  test('HEAD gives the headers a GET would, without the body', async () => {
    const head = await get(gateway.url, 'examples/try/try.css', { 'accept-encoding': 'gzip' }, 'HEAD');
    const full = await get(gateway.url, 'examples/try/try.css', { 'accept-encoding': 'gzip' });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers.etag, full.headers.etag);
    assert.equal(head.headers['content-length'], full.headers['content-length']);
  });

  test('the status endpoint stays uncached: no ETag, no-store', async () => {
    const status = await get(gateway.url, 'dev-gateway/status');
    assert.equal(status.headers['cache-control'], 'no-store');
    assert.equal(status.headers.etag, undefined);
  });
});

describe('serveStatic on a folder of its own', () => {
  let dir;
  let server;
  let base;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fx-static-'));
    server = createServer((req, res) => {
      const path = new URL(req.url, 'http://127.0.0.1').pathname;
      serveStatic(req, res, path, (p) => join(dir, p)).catch(() => res.destroy());
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}/`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  test('a changed file gets a new ETag, so the old one no longer matches', async () => {
    const file = join(dir, 'app.js');
    await writeFile(file, 'export const v = 1;\n'.repeat(200));
    const one = await get(base, 'app.js', { 'accept-encoding': 'gzip' });
    assert.equal(one.headers['content-encoding'], 'gzip');
    await writeFile(file, 'export const v = 2;\n'.repeat(200));
    // The same size; a later modification time (some file systems keep whole seconds).
    const { mtime } = await stat(file);
    await utimes(file, mtime, new Date(mtime.getTime() + 2000));
    const two = await get(base, 'app.js', { 'accept-encoding': 'gzip', 'if-none-match': one.headers.etag });
    assert.equal(two.status, 200);
    assert.notEqual(two.headers.etag, one.headers.etag);
    assert.match(gunzipSync(two.body).toString('utf8'), /v = 2/);
  });

  test('small files and images go out as they are', async () => {
    await writeFile(join(dir, 'tiny.css'), 'a{}');
    await writeFile(join(dir, 'dot.png'), Buffer.alloc(4096, 7));
    for (const name of ['tiny.css', 'dot.png']) {
      const res = await get(base, name, { 'accept-encoding': 'gzip' });
      assert.equal(res.status, 200, name);
      assert.equal(res.headers['content-encoding'], undefined, name);
      assert.ok(res.headers.etag, name);
    }
  });

  test('Accept-Encoding is read as RFC 9110 says: q=0 refuses, * accepts', () => {
    const accepts = (value) => acceptsGzip({ headers: value === undefined ? {} : { 'accept-encoding': value } });
    assert.equal(accepts(undefined), false);
    assert.equal(accepts('gzip'), true);
    assert.equal(accepts('br, GZIP;q=0.5'), true);
    assert.equal(accepts('gzip;q=0'), false);
    assert.equal(accepts('gzip; q=0, *'), false);
    assert.equal(accepts('*'), true);
    assert.equal(accepts('identity'), false);
    assert.equal(accepts('br, *;q=0'), false);
  });
});
