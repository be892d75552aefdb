// fx-wasm/fxbot/server: the Fxbot object behind HTTP (issue 23). `createFxbotServer(fxbot,
// { authorize })` returns a fetch-style handler, `(Request) => Promise<Response>`, for any
// runtime with Request and Response; `listen()` (server-node.js, the `node` condition) serves it
// from Node's http. No `node:` import here: bundlers may pull this file into a browser build.
//
// Routes are under /api/, one per call of the Fxbot object, JSON in and out; a failure is
// `{ "error": { "status", "code", "message" } }` with the HTTP status. The chat stream is
// text/event-stream: each line an event whose `id` is its cursor (so `Last-Event-ID` resumes
// it), a `: hb` comment while it is silent, `event: end` once it ends, `event: error` for a
// failure after the first line. Every request is authorized first: a refused one gets 401 and
// reaches nothing. Bodies are read up to a limit, counted while they arrive.

const MIB = 1024 * 1024;

/**
 * The default body limit: a message's files together (16 MiB decoded, src/bot/upload.rs) as
 * base64 (4/3), the message text (1 MiB) with room for JSON escapes (x2), and 64 KiB for the
 * names, types and the envelope.
 */
export const DEFAULT_MAX_BODY_BYTES = Math.ceil((16 * MIB) / 3) * 4 + 2 * MIB + 64 * 1024;

/** The default heartbeat interval of a silent event stream (ms). */
export const DEFAULT_HEARTBEAT_MS = 15_000;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
// An empty id is routed too: the engine answers it (400), as in process.
const BOT_ID = '[^/]*';

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'FxbotError';
    this.status = status;
    this.code = code;
  }
}

function json(status, value, extra = {}) {
  if (status === 204) return new Response(null, { status, headers: { 'cache-control': 'no-store', ...extra } });
  return new Response(JSON.stringify(value ?? null), { status, headers: { ...JSON_HEADERS, ...extra } });
}

function errorBody(status, code, message) {
  return { error: { status, code, message } };
}

/** An error as its response: an FxbotError keeps its status and code; anything else is a 500. */
function errorResponse(error, onError) {
  const { status, code, message } = describeError(error, onError);
  return json(status, errorBody(status, code, message), status === 413 ? { connection: 'close' } : {});
}

function describeError(error, onError) {
  if (
    error &&
    Number.isInteger(error.status) &&
    error.status >= 400 &&
    error.status <= 599 &&
    typeof error.code === 'string' &&
    /^(FXBOT|HTTP)_[A-Z_]+$/.test(error.code)
  ) {
    return { status: error.status, code: error.code, message: String(error.message ?? '') };
  }
  try {
    onError?.(error);
  } catch {
    // The host's logger failing is not the client's business.
  }
  // Anything else stays on the server: its message may hold what a client must not see.
  return { status: 500, code: 'HTTP_INTERNAL', message: 'the server failed to answer this request' };
}

/** A route's value answered 201. */
class Created {
  constructor(value) {
    this.value = value;
  }
}

const badRequest = (message) => new HttpError(400, 'FXBOT_BAD_REQUEST', message);

/** The body of `request` as bytes, refused (413) once it passes `limit` bytes, before the rest is read. */
async function readBody(request, limit) {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => {});
    throw new HttpError(413, 'HTTP_PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes`);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new HttpError(413, 'HTTP_PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

async function readJson(request, limit, { optional = false } = {}) {
  const bytes = await readBody(request, limit);
  if (bytes.byteLength === 0) {
    if (optional) return undefined;
    throw badRequest('the request needs a JSON body');
  }
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw badRequest('the request body must be application/json');
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('the request body is not UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('the request body is not JSON');
  }
}

function decodeSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('a path segment is not valid percent-encoding');
  }
}

/** A cursor from a query string or Last-Event-ID: a whole number from 0 to 2^53 - 1. */
function parseCursor(text) {
  if (text === null || text === '') return 0;
  if (!/^[0-9]{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw badRequest(`the cursor must be a whole number of at least 0 (got ${JSON.stringify(text.slice(0, 40))})`);
  }
  return Number(text);
}

function parseFollow(text) {
  if (text === null || text === '' || text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw badRequest('follow must be 1 or 0');
}

/** A header-safe filename for Content-Disposition: ASCII fallback plus RFC 5987 UTF-8. */
function disposition(kind, name) {
  const ascii = String(name).replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(String(name)).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** A media type safe to put in a header (else application/octet-stream). */
function safeType(type) {
  return typeof type === 'string' && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(;[\x20-\x7e]*)?$/i.test(type)
    ? type
    : 'application/octet-stream';
}

function fileResponse({ name, type, bytes }) {
  const mediaType = safeType(type);
  const essence = mediaType.split(';')[0].trim().toLowerCase();
  const image = INLINE_IMAGES.has(essence);
  const headers = {
    'content-type': mediaType,
    'content-length': String(bytes.byteLength),
    'content-disposition': disposition(image ? 'inline' : 'attachment', name),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
    'cross-origin-resource-policy': 'same-origin',
  };
  // Anything but a known image cannot run script on this origin: sandboxed, nothing loads.
  if (!image) headers['content-security-policy'] = "sandbox; default-src 'none'";
  else headers['content-security-policy'] = "default-src 'none'";
  return new Response(bytes, { status: 200, headers });
}

/**
 * The handler. Options: `authorize(request)` (required: true lets the request through, false or
 * a throw is 401), `maxBodyBytes` (default DEFAULT_MAX_BODY_BYTES), `heartbeatMs` (default 15 s),
 * `onError(error)` (an unexpected failure, for the host's log; the client gets a bare 500).
 */
export function createFxbotServer(fxbot, options = {}) {
  if (fxbot === null || typeof fxbot !== 'object' || typeof fxbot.bots?.list !== 'function') {
    throw new TypeError('createFxbotServer(fxbot, options): fxbot must be the object createFxbot resolves to');
  }
  if (options === null || typeof options !== 'object' || typeof options.authorize !== 'function') {
    throw new TypeError('createFxbotServer(fxbot, { authorize }): authorize(request) is required; the server does not start without it');
  }
  const { authorize, onError } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) throw new TypeError('maxBodyBytes must be a whole number of at least 1');
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 1 || heartbeatMs > 2 ** 31 - 1) {
    throw new TypeError('heartbeatMs must be a whole number from 1 to 2147483647');
  }
  if (onError !== undefined && typeof onError !== 'function') throw new TypeError('onError must be a function');

  const body = (request) => readJson(request, maxBodyBytes);
  const optionalBody = (request) => readJson(request, maxBodyBytes, { optional: true });
  const object = (value, what) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${what} must be a JSON object`);
    return value;
  };

  // [method, pattern, handler(request, params, url)]: the handler resolves to a Response or a
  // JSON value (undefined: 204).
  const routes = [
    ['GET', '/bots', () => fxbot.bots.list()],
    ['POST', '/bots', async (req) => new Created(await fxbot.bots.create((await optionalBody(req)) ?? {}))],
    ['GET', `/bots/(${BOT_ID})`, (_req, [id]) => fxbot.bots.get(id)],
    ['PATCH', `/bots/(${BOT_ID})`, async (req, [id]) => fxbot.bots.update(id, object(await body(req), 'the patch'))],
    ['DELETE', `/bots/(${BOT_ID})`, async (_req, [id]) => void (await fxbot.bots.remove(id))],
    ['POST', `/bots/(${BOT_ID})/send`, async (req, [id]) => fxbot.chat.send(id, object(await body(req), 'the message'))],
    ['GET', `/bots/(${BOT_ID})/stream`, (req, [id], url) => stream(req, id, url)],
    ['GET', `/bots/(${BOT_ID})/turns`, (_req, [id], url) => fxbot.chat.turns(id, sessionOption(url))],
    ['POST', `/bots/(${BOT_ID})/stop`, async (_req, [id]) => fxbot.chat.stop(id)],
    ['GET', `/bots/(${BOT_ID})/earlier`, (_req, [id]) => fxbot.chat.earlier(id)],
    ['POST', `/bots/(${BOT_ID})/release`, async (_req, [id]) => void (await fxbot.release(id))],
    ['POST', '/release', async () => void (await fxbot.release())],
    ['GET', '/providers/kinds', () => fxbot.providers.kinds],
    ['GET', '/providers', () => fxbot.providers.list()],
    ['POST', '/providers', async (req) => new Created(await fxbot.providers.add(object(await body(req), 'the provider')))],
    ['GET', '/providers/([^/]+)', (_req, [id]) => fxbot.providers.get(id)],
    ['DELETE', '/providers/([^/]+)', async (_req, [id]) => void (await fxbot.providers.remove(id))],
    ['PATCH', '/providers/([^/]+)', async (req, [id]) => fxbot.providers.update(id, object(await body(req), 'the patch'))],
    ['GET', '/providers/([^/]+)/models', (_req, [id], url) => fxbot.providers.models(id, { refresh: url.searchParams.get('refresh') === '1' })],
    ['GET', `/bots/(${BOT_ID})/memories`, (_req, [id]) => fxbot.memories.list(id)],
    ['POST', `/bots/(${BOT_ID})/memories`, async (req, [id]) => new Created(await fxbot.memories.add(id, object(await body(req), 'the memory').text))],
    ['POST', `/bots/(${BOT_ID})/memories/search`, async (req, [id]) => {
      const { query, limit } = object(await body(req), 'the search');
      return fxbot.memories.search(id, query, limit === undefined ? undefined : { limit });
    }],
    ['PATCH', `/bots/(${BOT_ID})/memories/([^/]+)`, async (req, [id, memoryId]) => fxbot.memories.update(id, memoryId, object(await body(req), 'the memory').text)],
    ['DELETE', `/bots/(${BOT_ID})/memories/([^/]+)`, async (_req, [id, memoryId]) => void (await fxbot.memories.remove(id, memoryId))],
    ['GET', '/settings/embedding', () => fxbot.settings.embedding()],
    ['GET', '/addons', () => fxbot.addons.list()],
    ['POST', '/addons/servers', async (req) => new Created(await fxbot.addons.addServer(object(await body(req), 'the server')))],
    ['POST', '/addons/skills', async (req) => new Created(await fxbot.addons.addSkill(object(await body(req), 'the skill')))],
    ['POST', '/addons/oauth/complete', async (req) => fxbot.addons.completeOAuth(object(await body(req), 'the callback').callbackUrl)],
    ['GET', '/addons/([^/]+)', (_req, [ref]) => fxbot.addons.get(ref)],
    ['PATCH', '/addons/([^/]+)', async (req, [ref]) => fxbot.addons.update(ref, object(await body(req), 'the patch'))],
    ['DELETE', '/addons/([^/]+)', async (_req, [ref]) => void (await fxbot.addons.remove(ref))],
    ['POST', '/addons/([^/]+)/refresh', async (_req, [ref]) => fxbot.addons.refresh(ref)],
    ['POST', '/addons/([^/]+)/oauth', async (req, [ref]) => fxbot.addons.oauth(ref, object(await body(req), 'the options'))],
    ['POST', '/sign-ins', async (req) => new Created(await fxbot.signIns.start(object(await body(req), 'the sign-in').kind))],
    ['GET', '/sign-ins/([^/]+)', (_req, [id]) => fxbot.signIns.get(id)],
    ['POST', '/sign-ins/([^/]+)/wait', (req, [id]) => fxbot.signIns.wait(id, { signal: req.signal })],
    ['DELETE', '/sign-ins/([^/]+)', async (_req, [id]) => void (await fxbot.signIns.cancel(id))],
    ['GET', '/settings', () => fxbot.settings.get()],
    ['PATCH', '/settings', async (req) => fxbot.settings.update(object(await body(req), 'the patch'))],
    ['GET', '/library', (_req, _p, url) => fxbot.library.list(libraryFilter(url))],
    [
      'POST',
      '/library',
      async (req) => {
        const { tags, ...upload } = object(await body(req), 'the upload');
        return new Created(await fxbot.library.add(upload, tags === undefined ? undefined : { tags }));
      },
    ],
    ['GET', '/library/([^/]+)', (_req, [id]) => fxbot.library.get(id)],
    ['DELETE', '/library/([^/]+)', async (_req, [id]) => void (await fxbot.library.remove(id))],
    ['GET', '/library/([^/]+)/file', async (_req, [id]) => fileResponse(await fxbot.library.read(id))],
  ].map(([method, pattern, run]) => ({ method, pattern: new RegExp(`^${pattern}$`), run }));

  function sessionOption(url) {
    const sessionId = url.searchParams.get('sessionId');
    return sessionId === null ? {} : { sessionId };
  }

  function libraryFilter(url) {
    const filter = {};
    for (const key of ['botId', 'sessionId', 'tag']) {
      const value = url.searchParams.get(key);
      if (value !== null) filter[key] = value;
    }
    return filter;
  }

  async function stream(request, botId, url) {
    const lastEventId = request.headers.get('last-event-id');
    const cursor = parseCursor(lastEventId !== null && lastEventId !== '' ? lastEventId : url.searchParams.get('cursor'));
    const follow = parseFollow(url.searchParams.get('follow'));
    const sessionId = url.searchParams.get('sessionId') ?? undefined;
    // The stream stops when the client goes away (or the response is cancelled); the turn does not.
    const stop = new AbortController();
    request.signal?.addEventListener('abort', () => stop.abort(), { once: true });
    const iterator = fxbot.chat.stream(botId, cursor, { sessionId, follow, signal: stop.signal })[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const HEARTBEAT = Symbol('heartbeat');
    let pending = iterator.next();
    // A bad bot id or an unknown bot fails at once: answer that as JSON, not as a stream.
    let first;
    try {
      first = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve(HEARTBEAT), 20))]);
    } catch (error) {
      stop.abort();
      throw error;
    }
    if (first !== HEARTBEAT) pending = Promise.resolve(first);
    let ended = false;
    const finish = (controller, text) => {
      ended = true;
      controller.enqueue(encoder.encode(text));
      controller.close();
    };
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(encoder.encode(': stream\n\n'));
      },
      async pull(controller) {
        if (ended) return;
        let timer;
        const beat = new Promise((resolve) => {
          timer = setTimeout(() => resolve(HEARTBEAT), heartbeatMs);
        });
        let got;
        try {
          got = await Promise.race([pending, beat]);
        } catch (error) {
          const { status, code, message } = describeError(error, onError);
          finish(controller, `event: error\ndata: ${JSON.stringify(errorBody(status, code, message))}\n\n`);
          return;
        } finally {
          clearTimeout(timer);
        }
        if (got === HEARTBEAT) {
          controller.enqueue(encoder.encode(': hb\n\n'));
          return;
        }
        if (got.done) {
          finish(controller, 'event: end\ndata: {}\n\n');
          return;
        }
        pending = iterator.next();
        const line = got.value;
        controller.enqueue(encoder.encode(`id: ${line.cursor}\ndata: ${JSON.stringify(line)}\n\n`));
      },
      cancel() {
        ended = true;
        stop.abort();
        pending.catch(() => {});
        iterator.return?.().catch(() => {});
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-content-type-options': 'nosniff',
      },
    });
  }

  return async function handle(request) {
    let url;
    try {
      url = new URL(request.url);
    } catch {
      return errorResponse(badRequest('the request URL is not valid'));
    }
    // Nothing is read, routed or touched before the request is authorized.
    let allowed = false;
    try {
      allowed = (await authorize(request)) === true;
    } catch {
      allowed = false;
    }
    if (!allowed) {
      await request.body?.cancel().catch(() => {});
      return json(401, errorBody(401, 'HTTP_UNAUTHORIZED', 'this request is not authorized'), { 'www-authenticate': 'Bearer' });
    }
    if (!url.pathname.startsWith('/api/')) {
      return json(404, errorBody(404, 'HTTP_NOT_FOUND', `no route ${url.pathname}`));
    }
    const path = url.pathname.slice(4);
    let matched = false;
    for (const route of routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      matched = true;
      if (route.method !== request.method) continue;
      try {
        const params = m.slice(1).map(decodeSegment);
        const result = await route.run(request, params, url);
        if (result instanceof Response) return result;
        if (result instanceof Created) return json(201, result.value);
        return result === undefined ? json(204) : json(200, result);
      } catch (error) {
        return errorResponse(error, onError);
      }
    }
    if (matched) {
      await request.body?.cancel().catch(() => {});
      return json(405, errorBody(405, 'HTTP_METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}`));
    }
    await request.body?.cancel().catch(() => {});
    return json(404, errorBody(404, 'HTTP_NOT_FOUND', `no route ${url.pathname}`));
  };
}
