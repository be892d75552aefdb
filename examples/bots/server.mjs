// The bots page against fxbot's server (issue 23): the page (examples/bots/?server) talks to
// /api/ through connectFxbot; the bots, chats and library live in PGlite persisted to a
// directory (default .fxbot-data/ in the repository); the model is the dev gateway's scripted
// demo model, on its own loopback port, so everything runs offline.
//
// The page is let in by a cookie: open the printed URL once (it carries a random token), the
// server sets `fxbot_token` (HttpOnly, SameSite=Strict) and sends the page; /api/ answers only
// requests with that cookie or `Authorization: Bearer <token>`.
//
// Usage: node examples/bots/server.mjs [--port N] [--data DIR]   (./scripts/try.sh --server)

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { PGlite } from '@electric-sql/pglite';

import { startDevGateway } from '../dev-gateway/server.mjs';
import { MIME } from '../dev-gateway/static.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEMO_MODEL = 'fx-demo/scripted';

function tokenOf(request) {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  if (bearer) return bearer;
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'fxbot_token') return value.join('=');
  }
  return null;
}

function same(a, b) {
  const x = Buffer.from(String(a));
  const y = Buffer.from(String(b));
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Starts the demo gateway, PGlite in `data`, the fxbot and its server on 127.0.0.1:`port`.
 * Resolves to `{ url, openUrl, token, close() }` (`openUrl` lets the page in).
 */
export async function startBotsServer({ port = 8788, data = join(root, '.fxbot-data'), token = randomBytes(18).toString('base64url'), demoDelayMs } = {}) {
  const { createFxbot } = await import(pathToFileURL(join(root, 'pkg', 'fxbot', 'node.js')).href);
  const { createFxbotServer, listen } = await import(pathToFileURL(join(root, 'pkg', 'fxbot', 'server-node.js')).href);
  const { postgresFxbotStore, postgresSessionStore } = await import(pathToFileURL(join(root, 'pkg', 'fxbot', 'postgres.js')).href);
  const gateway = await startDevGateway({ port: 0, demo: true, ...(demoDelayMs === undefined ? {} : { demoDelayMs }) });
  await mkdir(data, { recursive: true });
  const db = new PGlite(data);
  const fxbot = await createFxbot({
    store: postgresFxbotStore(db),
    sessionStore: postgresSessionStore(db),
    env: { FX_GATEWAY_CHAT_URL: new URL('/v3/ai/language-model', gateway.url).href },
    owner: 'try-server',
  });
  // One provider for the demo model, the first time.
  const settings = await fxbot.settings.get();
  if (!settings.defaultProvider) {
    const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'dev-gateway', model: DEMO_MODEL, name: 'Dev gateway (demo)' });
    await fxbot.settings.update({ defaultProvider: provider.id });
  }
  const api = createFxbotServer(fxbot, { authorize: (request) => same(tokenOf(request) ?? '', token) });

  async function handle(request) {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/api/')) return api(request);
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('method not allowed\n', { status: 405 });
    if (url.pathname === '/') {
      if (!same(url.searchParams.get('token') ?? '', token)) {
        return new Response('open the URL the server printed (it carries the token)\n', { status: 401 });
      }
      return new Response(null, {
        status: 302,
        headers: {
          location: '/examples/bots/?server',
          'set-cookie': `fxbot_token=${token}; HttpOnly; SameSite=Strict; Path=/`,
        },
      });
    }
    let path;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return new Response('bad path\n', { status: 400 });
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = resolve(root, `.${path}`);
    if (!/^\/(pkg|examples)\//.test(path) || !file.startsWith(root + sep) || file.includes(`${sep}.`)) {
      return new Response('not found\n', { status: 404 });
    }
    try {
      const bytes = await readFile(file);
      return new Response(request.method === 'HEAD' ? null : bytes, {
        headers: { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
      });
    } catch {
      return new Response('not found\n', { status: 404 });
    }
  }

  const served = await listen(handle, { port, host: '127.0.0.1' });
  return {
    url: served.url,
    openUrl: `${served.url}/?token=${token}`,
    token,
    async close() {
      await fxbot.close();
      await served.close();
      await db.close();
      await gateway.close();
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string' }, data: { type: 'string' } } });
  const port = values.port === undefined ? Number(process.env.PORT ?? 8788) : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error('server.mjs: --port takes a port number from 0 to 65535');
    process.exit(2);
  }
  const server = await startBotsServer({ port, ...(values.data ? { data: resolve(values.data) } : {}) });
  console.log(`fxbot server on PGlite (${values.data ?? '.fxbot-data'}), demo model, offline.`);
  console.log(`Open ${server.openUrl}`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
