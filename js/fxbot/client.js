// fx-wasm/fxbot/client: the pure reducer from a chat's stream lines to its turns (fxbot DESIGN
// §4.6, §8.2). No wasm, no I/O: a page can build its transcript from `chat.stream()` lines, or
// from lines it kept, with the same code `chat.turns()` uses.
//
// The rule that makes reconnecting exact: a `turn_start` for turn t resets turn t. A stream that
// resumes inside a committed turn restarts that turn from its `turn_start`, so whatever the
// client had of it is replaced, never doubled.

const DONE_REASONS = new Set(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal']);

function statusOf(stopReason) {
  if (DONE_REASONS.has(stopReason)) return 'done';
  if (stopReason === 'cancelled') return 'cancelled';
  return 'failed';
}

/** A turn_end's error as the turn keeps it (`cause` only when there is one). */
function turnError({ status, code, cause, message }) {
  return cause === undefined ? { status, code, message } : { status, code, cause, message };
}

/** A turn for a line whose turn_start this client never saw (kept rather than dropped). */
function unknownTurn(turn) {
  return {
    turn,
    sessionId: '',
    messageId: '',
    at: '',
    input: '',
    files: [],
    skills: [],
    parts: [],
    status: 'running',
    usage: null,
    error: null,
  };
}

function startedTurn(line) {
  return {
    turn: line.turn,
    sessionId: line.sessionId ?? '',
    messageId: line.messageId ?? '',
    at: line.at ?? '',
    input: typeof line.input === 'string' ? line.input : (line.prompt ?? ''),
    files: Array.isArray(line.files) ? line.files.map((f) => ({ name: f.name, type: f.type, url: f.url })) : [],
    skills: Array.isArray(line.skills) ? [...line.skills] : [],
    parts: [],
    status: 'running',
    usage: null,
    error: null,
  };
}

/** The index where turn `turn` is or would go (turns stay sorted by number). */
function slot(turns, turn) {
  let lo = 0;
  let hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (turns[mid].turn < turn) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function withText(parts, type, text) {
  const last = parts[parts.length - 1];
  if (last && last.type === type) {
    return [...parts.slice(0, -1), { type, text: last.text + text }];
  }
  return [...parts, { type, text }];
}

/** `parts` with the tool part of `toolCallId` replaced by `change(part)`, or `fresh` appended. */
function withTool(parts, toolCallId, change, fresh) {
  const i = parts.findIndex((p) => p.type === 'tool' && p.toolCallId === toolCallId);
  if (i < 0) return [...parts, { type: 'tool', toolCallId, name: '', title: '', arguments: null, ...fresh }];
  return [...parts.slice(0, i), change(parts[i]), ...parts.slice(i + 1)];
}

function withCall(parts, line) {
  return withTool(
    parts,
    line.toolCallId,
    (part) => ({
      ...part,
      // A repeated tool_call (a status change) may know less than the first one.
      name: line.name || part.name,
      title: line.title || part.title,
      arguments: line.arguments ?? part.arguments,
      status: part.status === 'completed' || part.status === 'failed' ? part.status : line.status,
    }),
    { name: line.name ?? '', title: line.title ?? '', arguments: line.arguments ?? null, status: line.status },
  );
}

function withResult(parts, line) {
  const finished = { status: line.status, output: line.output ?? '' };
  return withTool(parts, line.toolCallId, (part) => ({ ...part, ...finished }), finished);
}

/** A tool still pending or in progress when its turn ended did not finish. */
function settled(parts) {
  return parts.map((p) =>
    p.type === 'tool' && (p.status === 'pending' || p.status === 'in_progress') ? { ...p, status: 'failed' } : p,
  );
}

/**
 * The turns after one more line: a new array (the input is not changed), sorted by turn.
 * `turn_start` resets its turn; a line of another kind updates its turn (created empty when this
 * client never saw its `turn_start`); `chat_end` and unknown line types change nothing.
 *
 * @param {readonly Turn[]} turns
 * @param {StreamLine} line
 * @returns {Turn[]}
 */
export function reduceLines(turns, line) {
  if (!Array.isArray(turns)) throw new TypeError('reduceLines(turns, line): turns must be an array');
  if (line === null || typeof line !== 'object' || typeof line.type !== 'string') {
    throw new TypeError('reduceLines(turns, line): line must be a stream line object with a string type');
  }
  if (line.type === 'chat_end') return turns.slice();
  if (!Number.isInteger(line.turn)) return turns.slice();
  const next = turns.slice();
  const i = slot(next, line.turn);
  const existing = next[i]?.turn === line.turn ? next[i] : null;
  const put = (turn) => {
    if (existing) next[i] = turn;
    else next.splice(i, 0, turn);
  };
  if (line.type === 'turn_start') {
    put(startedTurn(line));
    return next;
  }
  const turn = existing ?? unknownTurn(line.turn);
  switch (line.type) {
    case 'text':
    case 'reasoning':
      put({ ...turn, parts: withText(turn.parts, line.type, String(line.text ?? '')) });
      break;
    case 'tool_call':
      put({ ...turn, parts: withCall(turn.parts, line) });
      break;
    case 'tool_result':
      put({ ...turn, parts: withResult(turn.parts, line) });
      break;
    case 'turn_end':
      put({
        ...turn,
        parts: settled(turn.parts),
        status: statusOf(line.stopReason),
        usage: line.usage
          ? { inputTokens: line.usage.inputTokens ?? 0, outputTokens: line.usage.outputTokens ?? 0 }
          : null,
        error: line.error ? turnError(line.error) : null,
      });
      break;
    default:
      // A line type this version does not know: nothing to show.
      return turns.slice();
  }
  return next;
}

/**
 * The turns of a sequence of lines (e.g. everything `chat.stream(botId, 0)` yielded).
 *
 * @param {Iterable<StreamLine>} lines
 * @returns {Turn[]}
 */
export function turnsFromLines(lines) {
  let turns = [];
  for (const line of lines) turns = reduceLines(turns, line);
  return turns;
}

// ---------------------------------------------------------------------------------------------
// connectFxbot: the Fxbot interface over HTTP, against fx-wasm/fxbot/server (issue 23). Every
// call is one request under `${url}/api/`; `chat.stream` reads the server's event stream with
// fetch and, when the connection drops before the server said `end`, reconnects with
// `Last-Event-ID` (the last line's cursor), so no line is lost or repeated.

/** An FxbotError as the server described it. */
function remoteError(status, code, message) {
  const error = new Error(message);
  error.name = 'FxbotError';
  error.status = status;
  error.code = code;
  return error;
}


async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not our server's JSON: described by its status below.
  }
  const e = body?.error;
  if (e && typeof e.code === 'string' && typeof e.message === 'string') {
    return remoteError(Number.isInteger(e.status) ? e.status : response.status, e.code, e.message);
  }
  return remoteError(response.status, 'HTTP_ERROR', `the fxbot server answered ${response.status} without an error body`);
}

/** The events of an SSE body: `{ id, event, data }` for each, comments dropped. */
async function* sseEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { id: null, event: 'message', data: [] };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let at;
      while ((at = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, at);
        const eol = buffer[at] === '\r' && buffer[at + 1] === '\n' ? 2 : 1;
        // A lone \r at the end may be the first half of \r\n: wait for more.
        if (buffer[at] === '\r' && at + 1 === buffer.length) break;
        buffer = buffer.slice(at + eol);
        if (line === '') {
          if (event.data.length > 0 || event.event !== 'message') yield { id: event.id, event: event.event, data: event.data.join('\n') };
          event = { id: null, event: 'message', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') event.data.push(value);
        else if (field === 'event') event.event = value;
        else if (field === 'id') event.id = value;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

const wait = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The same `Fxbot` interface as `createFxbot`, served by a fxbot server at `url` (its origin,
 * or a base ending where `/api/` begins). Options: `fetch` (default globalThis.fetch),
 * `headers` (sent with every request: an `authorization`, say; a function returning them is
 * called per request), `reconnectDelayMs` (the pause before a stream reconnects, default 250),
 * `maxReconnects` (in a row without a line, default 20).
 */
export async function connectFxbot(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('connectFxbot(options): options must be an object');
  const { url, headers = {}, reconnectDelayMs = 250, maxReconnects = 20 } = options;
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') throw new TypeError('connectFxbot: fetch must be a function');
  let base;
  try {
    base = new URL(String(url));
  } catch {
    throw new TypeError('connectFxbot: url must be an absolute URL of the fxbot server');
  }
  if (headers === null || (typeof headers !== 'object' && typeof headers !== 'function')) {
    throw new TypeError('connectFxbot: headers must be an object or a function returning one');
  }
  const root = base.href.replace(/\/+$/, '');
  const streams = new Set();
  let closed = false;

  const extraHeaders = async () => (typeof headers === 'function' ? await headers() : headers);
  // Ids go as they are: the server's fxbot checks them (an id of another shape is its 400). A
  // value that is not a string goes as `<type>:<value>`, which no id shape accepts.
  const seg = (value) => encodeURIComponent(typeof value === 'string' ? value : `${typeof value}:${String(value)}`);
  const query = (params) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v));
    const s = q.toString();
    return s ? `?${s}` : '';
  };

  async function request(method, path, body, init = {}) {
    if (closed) throw remoteError(409, 'FXBOT_CLOSED', 'this fxbot was closed');
    const h = new Headers(await extraHeaders());
    if (body !== undefined) h.set('content-type', 'application/json');
    for (const [k, v] of Object.entries(init.headers ?? {})) h.set(k, v);
    let response;
    try {
      response = await fetchFn(`${root}/api${path}`, {
        method,
        headers: h,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: init.signal,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw remoteError(502, 'HTTP_UNREACHABLE', `the fxbot server could not be reached: ${error?.message ?? error}`);
    }
    return response;
  }

  async function call(method, path, body, init) {
    const response = await request(method, path, body, init);
    if (!response.ok) throw await errorOf(response);
    if (init?.raw) return response;
    if (response.status === 204) return undefined;
    return response.json();
  }

  async function* stream(botId, cursor, { sessionId, signal, follow = true } = {}) {
    // The server checks the cursor: sent as JSON, so that "0" (a string) is refused there as in process.
    const path = `/bots/${seg(botId)}/stream${query({ cursor: String(JSON.stringify(cursor)), sessionId, follow: follow ? undefined : 0 })}`;
    const own = new AbortController();
    const onAbort = () => own.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    streams.add(own);
    let lastId = null;
    let failures = 0;
    try {
      while (!own.signal.aborted && !signal?.aborted) {
        let response;
        try {
          response = await request('GET', path, undefined, {
            signal: own.signal,
            headers: { accept: 'text/event-stream', ...(lastId === null ? {} : { 'last-event-id': lastId }) },
          });
        } catch (error) {
          if (own.signal.aborted || signal?.aborted) return;
          if (closed || ++failures > maxReconnects) throw error;
          await wait(reconnectDelayMs, own.signal);
          continue;
        }
        if (!response.ok) {
          // A 5xx of a proxy between us may pass; the server's own refusals are final.
          if (response.status >= 502 && response.status <= 504 && ++failures <= maxReconnects) {
            await response.body?.cancel().catch(() => {});
            await wait(reconnectDelayMs, own.signal);
            continue;
          }
          throw await errorOf(response);
        }
        try {
          for await (const event of sseEvents(response.body)) {
            if (event.event === 'end') return;
            if (event.event === 'error') {
              let e = null;
              try {
                e = JSON.parse(event.data)?.error;
              } catch {
                // Described below.
              }
              throw remoteError(e?.status ?? 500, e?.code ?? 'HTTP_ERROR', e?.message ?? 'the stream failed');
            }
            if (event.event !== 'message') continue;
            const line = JSON.parse(event.data);
            if (event.id !== null) lastId = event.id;
            failures = 0;
            if (signal?.aborted) return;
            yield line;
          }
        } catch (error) {
          if (error?.name === 'FxbotError') throw error;
          if (own.signal.aborted || signal?.aborted) return;
          // The connection dropped: reconnect below.
        }
        if (own.signal.aborted || signal?.aborted) return;
        if (++failures > maxReconnects) throw remoteError(502, 'HTTP_UNREACHABLE', 'the fxbot server kept dropping the stream');
        if (failures > 1) await wait(reconnectDelayMs, own.signal);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      streams.delete(own);
      own.abort();
    }
  }

  const kinds = Object.freeze((await call('GET', '/providers/kinds')).map((k) => Object.freeze(k)));

  return {
    bots: {
      list: () => call('GET', '/bots'),
      get: async (botId) => call('GET', `/bots/${seg(botId)}`),
      create: (fields) => call('POST', '/bots', fields ?? {}),
      update: async (botId, patch) => call('PATCH', `/bots/${seg(botId)}`, patch ?? {}),
      remove: async (botId) => void (await call('DELETE', `/bots/${seg(botId)}`)),
    },
    chat: {
      send: async (botId, message) => call('POST', `/bots/${seg(botId)}/send`, message ?? null),
      stream: (botId, cursor, streamOptions) => stream(botId, cursor, streamOptions),
      turns: async (botId, { sessionId } = {}) => call('GET', `/bots/${seg(botId)}/turns${query({ sessionId })}`),
      stop: async (botId) => call('POST', `/bots/${seg(botId)}/stop`),
      earlier: async (botId) => call('GET', `/bots/${seg(botId)}/earlier`),
    },
    providers: {
      kinds,
      list: () => call('GET', '/providers'),
      get: async (providerId) => call('GET', `/providers/${seg(providerId)}`),
      add: (provider) => call('POST', '/providers', provider ?? null),
      remove: async (providerId) => void (await call('DELETE', `/providers/${seg(providerId)}`)),
      update: async (providerId, patch) => call('PATCH', `/providers/${seg(providerId)}`, patch ?? {}),
      models: async (providerId, { refresh = false } = {}) => call('GET', `/providers/${seg(providerId)}/models${refresh ? '?refresh=1' : ''}`),
    },
    memories: {
      list: async (botId) => call('GET', `/bots/${seg(botId)}/memories`),
      add: async (botId, text) => call('POST', `/bots/${seg(botId)}/memories`, { text }),
      update: async (botId, memoryId, text) => call('PATCH', `/bots/${seg(botId)}/memories/${seg(memoryId)}`, { text }),
      remove: async (botId, memoryId) => void (await call('DELETE', `/bots/${seg(botId)}/memories/${seg(memoryId)}`)),
      search: async (botId, searchQuery, searchOptions) =>
        call('POST', `/bots/${seg(botId)}/memories/search`, { query: searchQuery, ...(searchOptions ?? {}) }),
    },
    addons: {
      list: () => call('GET', '/addons'),
      get: async (ref) => call('GET', `/addons/${seg(ref)}`),
      addServer: (server) => call('POST', '/addons/servers', server ?? null),
      addSkill: (skill) => call('POST', '/addons/skills', skill ?? null),
      update: async (ref, patch) => call('PATCH', `/addons/${seg(ref)}`, patch ?? {}),
      remove: async (ref) => void (await call('DELETE', `/addons/${seg(ref)}`)),
      refresh: async (ref) => call('POST', `/addons/${seg(ref)}/refresh`),
      oauth: async (ref, oauthOptions) => call('POST', `/addons/${seg(ref)}/oauth`, oauthOptions ?? {}),
      completeOAuth: (callbackUrl) => call('POST', '/addons/oauth/complete', { callbackUrl }),
    },
    signIns: {
      start: (kind) => call('POST', '/sign-ins', { kind }),
      get: async (signInId) => call('GET', `/sign-ins/${seg(signInId)}`),
      async wait(signInId, { signal } = {}) {
        const path = `/sign-ins/${seg(signInId)}`;
        const cancelled = new Promise((resolve) => {
          if (!signal) return;
          const cancel = () => resolve(call('DELETE', path).then(() => call('GET', path)));
          if (signal.aborted) cancel();
          else signal.addEventListener('abort', cancel, { once: true });
        });
        return Promise.race([call('POST', `${path}/wait`), cancelled]);
      },
      cancel: async (signInId) => void (await call('DELETE', `/sign-ins/${seg(signInId)}`)),
    },
    settings: {
      get: () => call('GET', '/settings'),
      update: (patch) => call('PATCH', '/settings', patch ?? {}),
      embedding: () => call('GET', '/settings/embedding'),
    },
    library: {
      list: (filter) => call('GET', `/library${query(filter ?? {})}`),
      get: async (itemId) => call('GET', `/library/${seg(itemId)}`),
      add: (upload, addOptions) =>
        call('POST', '/library', addOptions?.tags === undefined ? upload : { ...upload, tags: addOptions.tags }),
      async read(itemId) {
        const response = await call('GET', `/library/${seg(itemId)}/file`, undefined, { raw: true });
        const bytes = new Uint8Array(await response.arrayBuffer());
        const type = response.headers.get('content-type') ?? 'application/octet-stream';
        const cd = response.headers.get('content-disposition') ?? '';
        const star = /filename\*=UTF-8''([^;]+)/i.exec(cd);
        const plain = /filename="([^"]*)"/i.exec(cd);
        let name = plain?.[1] ?? '';
        if (star) {
          try {
            name = decodeURIComponent(star[1]);
          } catch {
            // Keep the ASCII fallback.
          }
        }
        return { name, type, bytes };
      },
      remove: async (itemId) => void (await call('DELETE', `/library/${seg(itemId)}`)),
    },
    async release(botId) {
      if (botId === undefined) await call('POST', '/release');
      else await call('POST', `/bots/${seg(botId)}/release`);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const s of streams) s.abort();
    },
  };
}
