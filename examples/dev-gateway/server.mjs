// The dev gateway: a dependency-free Node server on 127.0.0.1 for the try page. It serves the
// page at / (examples/try/) and the files it loads (pkg/, examples/, a few browser bundles from
// node_modules/, and the recorded sessions under tests/fixtures/ for the session viewer) and
// speaks the AI Gateway protocol on /v3/ai/language-model and /coding-agent/v1/models. Who
// answers a model request:
//
// - the scripted demo model (demo-model.mjs, offline) when the server runs with --demo (or
//   FX_DEV_GATEWAY_DEMO=1), when the request asks for the demo model, or when there is no
//   credential at all;
// - otherwise the real AI Gateway, reached from here (same origin for the page, so no CORS),
//   with the visitor's own credential when the request carries one (a pasted key, or the token
//   of a Vercel sign-in), else with AI_GATEWAY_API_KEY from the server's environment (which the
//   page never sees).
//
// Usage: node examples/dev-gateway/server.mjs [--port N] [--demo]   (or PORT=N; default 8787;
// 0 = any free port; --help says so, and any other argument is refused)

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { DEMO_MODEL_ID, demoCatalog, demoClient, demoEvents } from './demo-model.mjs';
import { checkUpstream, proxyRequest } from './proxy.mjs';
import { MIME, sendBody, sendJson, sendText, serveStatic } from './static.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

export const DEFAULT_UPSTREAM = 'https://ai-gateway.vercel.sh';
const CHAT_PATH = '/v3/ai/language-model';
const CATALOG_PATH = '/coding-agent/v1/models';
const MAX_BODY_BYTES = 32 * 1024 * 1024;

// URL prefix → folder. Everything else is looked up in examples/try/ (the page is served at /).
const MOUNTS = [
  ['/pkg/', join(root, 'pkg')],
  ['/examples/', join(root, 'examples')],
  ['/vendor/', join(here, 'browser-shims')],
  // The recorded fx sessions the session viewer (examples/viewer/) opens.
  ['/tests/fixtures/', join(root, 'tests', 'fixtures')],
];

// The npm packages the page may load from node_modules/: xterm.js, just-bash's browser bundle
// and the packages that bundle imports.
const BROWSER_PACKAGES = [
  '@xterm/xterm',
  '@xterm/addon-fit',
  '@xterm/addon-webgl',
  'just-bash',
  'diff',
  'minimatch',
  'brace-expansion',
  'balanced-match',
  'turndown',
  'sprintf-js',
];

function sendError(res, status, type, message) {
  sendJson(res, status, { error: { type, message } });
}

/** The file a URL path maps to, or null when it is outside what the server shows. */
function resolveStatic(path) {
  let base;
  let rest;
  const mount = MOUNTS.find(([prefix]) => path.startsWith(prefix));
  if (mount) {
    [, base] = mount;
    rest = path.slice(mount[0].length);
  } else if (path.startsWith('/node_modules/')) {
    const inside = path.slice('/node_modules/'.length);
    const name = BROWSER_PACKAGES.find((pkg) => inside.startsWith(`${pkg}/`));
    if (!name) return null;
    base = join(root, 'node_modules', name);
    rest = inside.slice(name.length + 1);
  } else {
    base = join(root, 'examples', 'try');
    rest = path.slice(1);
  }
  const rel = normalize(rest).replace(/^[/\\]+/, '');
  if (rel.split(sep).includes('..')) return null;
  return join(base, rel);
}

const IMPORT_MAP = join(here, 'importmap.json');
const IMPORT_MAP_MARKER = '<!-- fx:importmap -->';

/**
 * The Content-Security-Policy of every page served here (docs/DECISIONS.md says why each part
 * is there): scripts and styles from this origin only, WebAssembly compilation, requests to this
 * origin and to the OAuth issuer (Vercel's, or the loopback one of the device-login tests).
 * `scriptHashes` allow inline scripts by content: only the import map this server inlines.
 */
export function contentSecurityPolicy({ issuer = null, scriptHashes = [] } = {}) {
  const oauth = issuer ? [new URL(issuer).origin] : ['https://vercel.com', 'https://*.vercel.com'];
  return [
    "default-src 'self'",
    ["script-src 'self' 'wasm-unsafe-eval'", ...scriptHashes.map((h) => `'${h}'`)].join(' '),
    ["connect-src 'self'", ...oauth].join(' '),
    // xterm.js 6 writes its theme, cell sizes and scrollbar colours into <style> elements it
    // creates (inline style elements); style attributes and other origins stay refused.
    "style-src 'self'",
    "style-src-elem 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * An HTML page, with `<!-- fx:importmap -->` replaced by importmap.json as an inline map, sent
 * with the Content-Security-Policy (which allows that one map by its hash).
 */
async function serveHtml(req, res, file, issuer) {
  let html = await readFile(file, 'utf8');
  const scriptHashes = [];
  if (html.includes(IMPORT_MAP_MARKER)) {
    const map = JSON.stringify(JSON.parse(await readFile(IMPORT_MAP, 'utf8')));
    html = html.replace(IMPORT_MAP_MARKER, `<script type="importmap">${map}</script>`);
    scriptHashes.push(`sha256-${createHash('sha256').update(map, 'utf8').digest('base64')}`);
  }
  return sendBody(req, res, Buffer.from(html, 'utf8'), {
    'content-type': MIME['.html'],
    'x-content-type-options': 'nosniff',
    'content-security-policy': contentSecurityPolicy({ issuer, scriptHashes }),
  });
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so the 413 still reaches the client.
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(Object.assign(new Error('request body too large'), { status: 413 }));
      else resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether `value` (a Host header or an Origin's host) names this machine's loopback. */
function isLoopbackHost(value) {
  if (typeof value !== 'string') return false;
  const host = value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.split(':')[0];
  return LOOPBACK_HOSTS.has(host.toLowerCase());
}

/** An `http://` origin on loopback (say the page at localhost calling 127.0.0.1), else null. */
function loopbackOrigin(req) {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !origin.startsWith('http://')) return null;
  return isLoopbackHost(origin.slice('http://'.length)) ? origin : null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Streams one scripted demo step as SSE, a small delay between events. */
async function streamDemo(req, res, body, delayMs, forced) {
  let parsed;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return sendError(res, 400, 'invalid_request_error', 'the request body is not JSON');
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.prompt)) {
    return sendError(res, 400, 'invalid_request_error', 'the request body needs a "prompt" array');
  }
  const requested = req.headers['ai-language-model-id'];
  const events = demoEvents(
    parsed,
    typeof requested === 'string' && requested ? requested : DEMO_MODEL_ID,
    // A server run with --demo answers every request so: no credential would change that.
    forced ? 'forced' : demoClient(req.headers.referer),
  );
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-fx-dev-gateway': 'scripted-demo',
  });
  res.flushHeaders();
  for (const event of events) {
    if (closed) return undefined;
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    if (delayMs > 0 && (event.type === 'text-delta' || event.type === 'tool-input-delta')) await sleep(delayMs);
  }
  if (!closed) res.end('data: [DONE]\n\n');
  return undefined;
}

/** The bearer credential a request carries itself (`authorization: Bearer <token>`), or null. */
function visitorAuthorization(req) {
  const value = req.headers.authorization;
  if (typeof value !== 'string') return null;
  const match = value.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? `Bearer ${match[1]}` : null;
}

/** `FX_E2E_OAUTH_ISSUER_URL`: an `http://` loopback URL with a port, for the device-login test. */
function checkIssuer(value) {
  if (value === undefined || value === null || value === '') return null;
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`dev gateway: FX_E2E_OAUTH_ISSUER_URL ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.port === '' || url.username || url.password) {
    throw new TypeError('dev gateway: FX_E2E_OAUTH_ISSUER_URL must be an http:// loopback URL with a port');
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * Starts the dev gateway on 127.0.0.1. Options: `port` (0 = any free port), `demo` (default
 * `FX_DEV_GATEWAY_DEMO=1`: every model request gets the scripted demo, nothing leaves the
 * machine), `apiKey` (default `AI_GATEWAY_API_KEY`: used for requests that bring no credential
 * of their own), `upstream` (default `FX_DEV_GATEWAY_UPSTREAM` or the real AI Gateway),
 * `oauthIssuerUrl` (default `FX_E2E_OAUTH_ISSUER_URL`, loopback only: reported to the page for
 * device-login tests), `demoDelayMs` (pause between streamed demo deltas, default 20), `fetch`
 * (for forwarding). Resolves to `{ url, mode, close() }`; `mode` is `demo` (forced), `proxy`
 * (a server key) or `passthrough` (visitors' own credentials only).
 */
export async function startDevGateway({
  port = 0,
  demo = process.env.FX_DEV_GATEWAY_DEMO === '1',
  apiKey = process.env.AI_GATEWAY_API_KEY,
  upstream = process.env.FX_DEV_GATEWAY_UPSTREAM || DEFAULT_UPSTREAM,
  oauthIssuerUrl = process.env.FX_E2E_OAUTH_ISSUER_URL,
  demoDelayMs = 20,
  fetch: fetchImpl = globalThis.fetch,
} = {}) {
  const key = !demo && typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : null;
  const base = checkUpstream(upstream);
  const issuer = checkIssuer(oauthIssuerUrl);
  let mode = 'passthrough';
  if (demo) mode = 'demo';
  else if (key) mode = 'proxy';

  /** The authorization to forward a request with, or null when the demo model answers it. */
  function credentialFor(req) {
    if (demo) return null;
    if (req.headers['ai-language-model-id'] === DEMO_MODEL_ID) return null;
    return visitorAuthorization(req) ?? (key ? `Bearer ${key}` : null);
  }

  async function handle(req, res) {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      return sendText(res, 400, 'bad request\n');
    }
    // A page whose DNS name was rebound to 127.0.0.1 still sends its own Host: refuse it, so no
    // web site can reach the proxy (and spend the key) through the visitor's browser.
    if (!isLoopbackHost(req.headers.host)) return sendText(res, 403, 'the dev gateway answers loopback hosts only\n');
    const gatewayPath = path === CHAT_PATH || path === CATALOG_PATH;
    const origin = gatewayPath ? loopbackOrigin(req) : null;
    if (origin) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'origin');
    }
    if (gatewayPath && req.method === 'OPTIONS') {
      if (!origin) return sendText(res, 403, 'cross-origin calls are allowed from loopback pages only\n');
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
        'access-control-max-age': '600',
      });
      return res.end();
    }
    if (path === '/dev-gateway/status') {
      return sendJson(res, 200, {
        mode,
        demoModel: DEMO_MODEL_ID,
        serverKey: Boolean(key),
        chatPath: CHAT_PATH,
        oauthIssuerUrl: issuer,
      });
    }
    if (path === CHAT_PATH) {
      if (req.method !== 'POST') return sendError(res, 405, 'invalid_request_error', `${CHAT_PATH} takes POST`);
      const body = await readBody(req);
      const authorization = credentialFor(req);
      if (authorization) return proxyRequest(req, res, { upstream: base, authorization, path: CHAT_PATH, body, fetchImpl });
      return streamDemo(req, res, body, demoDelayMs, demo);
    }
    if (path === CATALOG_PATH) {
      if (req.method !== 'GET') return sendError(res, 405, 'invalid_request_error', `${CATALOG_PATH} takes GET`);
      const authorization = credentialFor(req);
      if (authorization) return proxyRequest(req, res, { upstream: base, authorization, path: CATALOG_PATH, fetchImpl });
      return sendJson(res, 200, demoCatalog());
    }
    return serveStatic(req, res, path, resolveStatic, { html: (q, r, file) => serveHtml(q, r, file, issuer) });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (res.headersSent) return res.destroy();
      if (err?.status === 413) return sendError(res, 413, 'invalid_request_error', 'the request body is over 32 MiB');
      return sendText(res, 500, 'internal error\n');
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address();
  return {
    url: `http://127.0.0.1:${bound}/`,
    mode,
    close: () =>
      new Promise((done) => {
        server.close(done);
        server.closeAllConnections?.();
      }),
  };
}

const USAGE = `Usage: node examples/dev-gateway/server.mjs [--demo] [--port N]

  --demo       every model request gets the scripted demo model (offline; or FX_DEV_GATEWAY_DEMO=1)
  --port N     listen on port N (default 8787, or PORT; 0 picks a free port)
  -h, --help   print this help and exit
`;

/**
 * The command line: `{ help, demo, port }`. Unknown options, stray arguments and a bad port
 * are a TypeError saying what was wrong (node:util's parseArgs, strict).
 */
export function parseCommandLine(argv, env = process.env) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { demo: { type: 'boolean' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    throw new TypeError(`dev gateway: ${err.message} (see --help)`);
  }
  const { values } = parsed;
  const value = values.port ?? env.PORT ?? '8787';
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new TypeError(`dev gateway: ${values.port === undefined ? 'PORT' : '--port'} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return { help: Boolean(values.help), demo: Boolean(values.demo) || env.FX_DEV_GATEWAY_DEMO === '1', port };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const options = parseCommandLine(process.argv.slice(2));
    if (options.help) {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    const gateway = await startDevGateway({ port: options.port, demo: options.demo });
    console.log(`fx dev gateway: ${gateway.url}`);
    const says = {
      demo: '--demo: every model request gets the scripted demo model (offline, no AI)',
      proxy:
        'model requests go to the AI Gateway with the visitor’s own credential, else with AI_GATEWAY_API_KEY (the page never sees it)',
      passthrough:
        'no AI_GATEWAY_API_KEY: visitors who sign in or paste a key reach the AI Gateway through this server; everyone else gets the scripted demo model',
    };
    console.log(says[gateway.mode]);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
