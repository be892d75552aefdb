// Static files for the development servers (the dev gateway, and scripts/serve.mjs for the
// browser tests): MIME types, `index.html` for folders, a JSON listing of a folder without one
// (the session viewer's fixture picker), HEAD, and revalidation instead of resending: every file
// goes out with an ETag (its content hash) and `cache-control: no-cache`, so a reload asks again
// and gets 304 Not Modified while the file is unchanged; text and WebAssembly go out gzipped to a
// client that accepts it (the compressed copy is kept in memory until the file changes).

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';

const gzip = promisify(gzipCallback);

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/jsonl; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The types worth compressing: text and WebAssembly (images and fonts are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.cjs', '.css', '.json', '.jsonl', '.map', '.wasm', '.ts', '.md', '.txt', '.svg']);
/** Below this a gzip header costs more than it saves. */
const MIN_GZIP_BYTES = 1024;
/** Larger files are streamed as they are: no hash, no compression, an ETag from size and date. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;

export function sendText(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

export function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

/** Whether the request's Accept-Encoding takes gzip (`gzip` or `*` with a q above 0). */
export function acceptsGzip(req) {
  const header = req.headers['accept-encoding'];
  if (typeof header !== 'string') return false;
  let star = false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (coding === 'gzip' || coding === 'x-gzip') return weight > 0;
    if (coding === '*') star = weight > 0;
  }
  return star;
}

/** Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 §13.1.2 asks for GET). */
function notModified(req, etag) {
  const header = req.headers['if-none-match'];
  if (typeof header !== 'string') return false;
  if (header.trim() === '*') return true;
  const bare = (tag) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}

const hashOf = (bytes) => createHash('sha256').update(bytes).digest('base64url').slice(0, 22);

/** One representation: its bytes, and gzip's when worth it (computed once, on first ask). */
function entity(body, compressible) {
  const tag = hashOf(body);
  let zipped = null;
  return {
    body,
    etag: `"${tag}"`,
    gzipEtag: `"${tag}-gz"`,
    compressible: compressible && body.length >= MIN_GZIP_BYTES,
    gzipped() {
      zipped ??= gzip(body, { level: 6 });
      return zipped;
    },
  };
}

/**
 * Sends `body` (a Buffer) as a 200 with `headers`, or a 304 when the request already has it:
 * the ETag names the bytes as sent (the gzipped copy has its own), `Vary: Accept-Encoding` tells
 * caches the two apart, and `cache-control` defaults to `no-cache` (keep, but ask each time).
 */
export async function sendBody(req, res, body, headers, { compressible = true, cached = null } = {}) {
  const item = cached ?? entity(body, compressible);
  const gzipped = item.compressible && acceptsGzip(req);
  const etag = gzipped ? item.gzipEtag : item.etag;
  const common = { 'cache-control': 'no-cache', ...headers, etag, vary: 'accept-encoding' };
  if (notModified(req, etag)) {
    res.writeHead(304, common);
    return res.end();
  }
  const bytes = gzipped ? await item.gzipped() : item.body;
  res.writeHead(200, {
    ...common,
    ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
    'content-length': bytes.length,
  });
  return res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** File path → `{ size, mtimeMs, entity }`: a file's hash and gzipped copy, until it changes. */
const files = new Map();

async function fileEntity(file, info) {
  const known = files.get(file);
  if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return known.entity;
  const item = entity(await readFile(file), COMPRESSIBLE.has(extname(file)));
  files.set(file, { size: info.size, mtimeMs: info.mtimeMs, entity: item });
  return item;
}

/**
 * Serves URL `path` from the file `resolve(path)` maps it to (`null`: not shown). `html(req,
 * res, file)`, when given, serves `.html` files instead.
 */
export async function serveStatic(req, res, path, resolve, { html } = {}) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed\n');
  let file = resolve(path);
  if (!file) return sendText(res, 404, 'not found\n');
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    if (!path.endsWith('/')) {
      res.writeHead(302, { location: `${path}/` });
      return res.end();
    }
    const dir = file;
    file = join(dir, 'index.html');
    info = await stat(file).catch(() => null);
    if (!info && path !== '/' && req.headers.accept?.includes('application/json')) {
      const entries = await readdir(dir, { withFileTypes: true });
      return sendJson(
        res,
        200,
        entries.map((e) => ({ name: e.name, directory: e.isDirectory() })).sort((a, b) => a.name.localeCompare(b.name)),
      );
    }
  }
  if (!info?.isFile()) return sendText(res, 404, 'not found\n');
  if (html && extname(file) === '.html') return html(req, res, file);
  const headers = {
    'content-type': MIME[extname(file)] ?? 'application/octet-stream',
    'x-content-type-options': 'nosniff',
  };
  if (info.size <= MAX_CACHED_BYTES) {
    return sendBody(req, res, null, headers, { cached: await fileEntity(file, info) });
  }
  const etag = `W/"${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}"`;
  if (notModified(req, etag)) {
    res.writeHead(304, { 'cache-control': 'no-cache', etag });
    return res.end();
  }
  res.writeHead(200, { ...headers, 'content-length': info.size, 'cache-control': 'no-cache', etag });
  if (req.method === 'HEAD') return res.end();
  return createReadStream(file).pipe(res);
}
