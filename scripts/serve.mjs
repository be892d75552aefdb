// A tiny static file server for development and the browser tests. Binds 127.0.0.1 only and
// serves pkg/, examples/ and tests/ from the repository root with correct MIME types. A directory
// without index.html, requested with `Accept: application/json`, is listed as JSON.
//
// Usage: node scripts/serve.mjs [port]   (default 8787; 0 picks a free port)

import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVED = ['pkg', 'examples', 'tests'];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/jsonl; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** A directory without index.html, asked for as JSON: its entries (the viewer's fixture picker). */
async function sendListing(res, dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const body = JSON.stringify(
    entries.map((e) => ({ name: e.name, directory: e.isDirectory() })).sort((a, b) => a.name.localeCompare(b.name)),
  );
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

async function handle(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  } catch {
    return send(res, 400, 'bad request\n');
  }
  if (path === '/') {
    res.writeHead(302, { location: '/examples/' });
    return res.end();
  }
  const rel = normalize(path).replace(/^[/\\]+/, '');
  const top = rel.split(sep)[0];
  if (!SERVED.includes(top) || rel.split(sep).includes('..')) return send(res, 404, 'not found\n');
  let file = join(root, rel);
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    if (!path.endsWith('/')) {
      res.writeHead(302, { location: `${path}/` });
      return res.end();
    }
    const index = join(file, 'index.html');
    const indexInfo = await stat(index).catch(() => null);
    if (!indexInfo && req.headers.accept?.includes('application/json')) {
      return sendListing(res, file);
    }
    file = index;
    info = indexInfo;
  }
  if (!info?.isFile()) return send(res, 404, 'not found\n');
  res.writeHead(200, {
    'content-type': MIME[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': 'no-store',
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).pipe(res);
}

/** Starts the server on 127.0.0.1; resolves to `{ url, close() }`. */
export function startServer(port = 0) {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, 'internal error\n'));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address();
      resolve({
        url: `http://127.0.0.1:${bound}/`,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8787);
  const { url } = await startServer(port);
  console.log(`serving pkg/, examples/ and tests/ at ${url}`);
  console.log(`session viewer: ${url}examples/viewer/`);
}
