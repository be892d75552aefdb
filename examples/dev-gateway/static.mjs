// Static files for the development servers (the dev gateway, and scripts/serve.mjs for the
// browser tests): MIME types, `index.html` for folders, a JSON listing of a folder without one
// (the session viewer's fixture picker), HEAD, and no caching.

import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';

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

export function sendText(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

export function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
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
  res.writeHead(200, {
    'content-type': MIME[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).pipe(res);
}
