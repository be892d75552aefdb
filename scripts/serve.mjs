// A tiny static file server for development and the browser tests. Binds 127.0.0.1 only and
// serves pkg/, examples/, tests/ and xterm.js (node_modules/@xterm/xterm/) from the repository
// root with correct MIME types. A directory
// without index.html, requested with `Accept: application/json`, is listed as JSON.
//
// Usage: node scripts/serve.mjs [port]   (default 8787; 0 picks a free port)

import { createServer } from 'node:http';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { sendText, serveStatic } from '../examples/dev-gateway/static.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVED = ['pkg', 'examples', 'tests', join('node_modules', '@xterm', 'xterm')];

/** The file for a URL path under one of SERVED, or null. */
function resolve(path) {
  const rel = normalize(path).replace(/^[/\\]+/, '');
  const parts = rel.split(sep);
  if (parts.includes('..') || !SERVED.some((dir) => rel === dir || rel.startsWith(`${dir}${sep}`))) return null;
  return join(root, rel);
}

async function handle(req, res) {
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  } catch {
    return sendText(res, 400, 'bad request\n');
  }
  if (path === '/') {
    res.writeHead(302, { location: '/examples/' });
    return res.end();
  }
  return serveStatic(req, res, path, resolve);
}

/** Starts the server on 127.0.0.1; resolves to `{ url, close() }`. */
export function startServer(port = 0) {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => sendText(res, 500, 'internal error\n'));
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
