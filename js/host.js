// The one `host` object the wasm core calls. It adapts the host application's options
// (fetch, stores, workspace, onPermission, onEvent) to a small, uniform contract:
//
// - every adapter call may be sync or async, and may throw; the core always gets a Promise,
//   and a thrown error keeps its `code` (FX_SESSION_REVISION_CONFLICT, ...);
// - results are checked here, in one table (RESULTS), and a bad shape becomes an error naming
//   the adapter, the method and what was wrong (the core bounds each call by its deadline);
// - effects the core may need to stop (a fetch, a read, a command, a permission wait) come back
//   as `{ promise, abort }`, so cancelling a turn aborts exactly that turn's effects.

import { codedError } from './errors.js';

const MAX_RANDOM_CHUNK = 65536;
// oauthSessionStore limits (sdk-api §12.4): the record and its revision.
const MAX_OAUTH_RECORD_BYTES = 64 * 1024;
// Every store's revision: opaque, at most 1 KiB of UTF-8 (sdk-api §12.4).
const MAX_REVISION_BYTES = 1024;

/** `env` with `undefined`/`null` values dropped and primitives stringified. */
export function normalizeEnv(env) {
  if (env === undefined || env === null) return {};
  if (typeof env !== 'object') throw new TypeError('env must be an object');
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') out[key] = String(value);
    else throw new TypeError(`env.${key} must be a string`);
  }
  return out;
}

/** The longest deadline a host timer can hold (setTimeout's limit). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** How long an adapter call may take when the host sets no `adapterTimeoutMs`. */
export const DEFAULT_ADAPTER_TIMEOUT_MS = 10_000;

/**
 * `adapterTimeoutMs`: undefined (the core's default) or a whole number of milliseconds.
 * @throws {TypeError} for anything else.
 */
export function normalizeAdapterTimeout(value) {
  return timeoutOption('adapterTimeoutMs', value);
}

/**
 * `modelIdleTimeoutMs`: undefined (the core's default, 300 000) or a whole number of
 * milliseconds.
 * @throws {TypeError} for anything else.
 */
export function normalizeModelIdleTimeout(value) {
  return timeoutOption('modelIdleTimeoutMs', value);
}

function timeoutOption(name, value) {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new TypeError(`${name} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

function adapterError(adapter, method, message) {
  return codedError('FX_ADAPTER_INVALID', `${adapter}.${method}() ${message}`);
}

/** What a value is, for messages ("a string", "null", "an array", ...). */
function kind(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  const type = typeof value;
  return type === 'object' ? 'an object' : type === 'undefined' ? 'undefined' : `a ${type}`;
}

const utf8Length = (text) => new TextEncoder().encode(text).byteLength;

/** A revision as stores return it: a non-empty string of at most 1 KiB. Returns a problem or null. */
function revisionProblem(revision) {
  if (typeof revision !== 'string') return `a revision that is ${kind(revision)}, not a string`;
  if (revision === '') return 'an empty revision';
  if (utf8Length(revision) > MAX_REVISION_BYTES) return 'a revision longer than 1 KiB';
  return null;
}

/** `{ bytes, revision }` or null (`load` of the session and OAuth stores). */
function storedRecord(maxBytes) {
  return (record, fail) => {
    if (record === null || record === undefined) return null;
    if (typeof record !== 'object') fail(`must return { bytes: Uint8Array, revision: string } or null, not ${kind(record)}`);
    const bytes = toBytes(record.bytes);
    if (bytes === null) fail(`returned a record whose bytes are ${kind(record.bytes)}, not a Uint8Array`);
    const problem = revisionProblem(record.revision);
    if (problem) fail(`returned a record with ${problem}`);
    if (maxBytes !== undefined && bytes.byteLength > maxBytes) fail('returned a record larger than 64 KiB');
    return { bytes, revision: record.revision };
  };
}

/** `{ revision }` (`commit` of the session and OAuth stores): the revision. */
function committedRevision(result, fail) {
  if (result === null || typeof result !== 'object') fail(`must return { revision: string }, not ${kind(result)}`);
  const problem = revisionProblem(result.revision);
  if (problem) fail(`must return { revision: string }; it returned ${problem}`);
  return result.revision;
}

function sessionList(list, fail) {
  if (!Array.isArray(list)) fail(`must return an array, not ${kind(list)}`);
  return list.map((entry, i) => {
    if (entry === null || typeof entry !== 'object') fail(`returned entry ${i} as ${kind(entry)}, not { id, updatedAtMs }`);
    if (typeof entry.id !== 'string' || entry.id === '') fail(`returned entry ${i} without a string id`);
    if (!Number.isSafeInteger(entry.updatedAtMs)) fail(`returned entry ${i} whose updatedAtMs is not an integer`);
    return { id: entry.id, updatedAtMs: entry.updatedAtMs };
  });
}

/** `[{ key, revision }]` (`list` of the bots' document store), keys as strings. */
function docList(list, fail) {
  if (!Array.isArray(list)) fail(`must return an array, not ${kind(list)}`);
  return list.map((entry, i) => {
    if (entry === null || typeof entry !== 'object') fail(`returned entry ${i} as ${kind(entry)}, not { key, revision }`);
    if (typeof entry.key !== 'string') fail(`returned entry ${i} without a string key`);
    const problem = revisionProblem(entry.revision);
    if (problem) fail(`returned entry ${i} with ${problem}`);
    return { key: entry.key, revision: entry.revision };
  });
}

function execResult(result, fail) {
  if (!result || typeof result !== 'object') fail('must return { stdout, stderr, exitCode }');
  const { stdout, stderr, exitCode } = result;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') fail('must return string stdout and stderr');
  if (!Number.isInteger(exitCode) || exitCode < -2147483648 || exitCode > 2147483647) fail('must return an integer exitCode');
  return { kind: 'exited', exitCode, stdout, stderr };
}

/**
 * What each adapter method must return, and what the core gets from it. The one place results
 * are checked: a wrong shape becomes a TypeError (code FX_ADAPTER_INVALID) naming the adapter,
 * the method and what was wrong.
 */
const RESULTS = {
  'sessionStore.load': storedRecord(),
  'sessionStore.commit': committedRevision,
  'sessionStore.append': committedRevision,
  'sessionStore.list': sessionList,
  'sessionStore.remove': () => undefined,
  'configStore.get': (value, fail) => {
    if (value === null || value === undefined) return null;
    if (typeof value !== 'string') fail(`must return a string or null, not ${kind(value)}`);
    return value;
  },
  'configStore.set': () => true,
  'oauthSessionStore.load': storedRecord(MAX_OAUTH_RECORD_BYTES),
  'oauthSessionStore.commit': committedRevision,
  'oauthSessionStore.remove': (result) => (result === false || result === 'missing' ? 'missing' : 'deleted'),
  // The bots' document store (`createFxbot({ store })`): the session store's record rules.
  'store.load': storedRecord(),
  'store.commit': committedRevision,
  'store.list': docList,
  'store.remove': (result) => (result === false ? 'missing' : 'deleted'),
  'promptHistoryStore.load': (entries, fail) => {
    if (!Array.isArray(entries)) fail(`must return an array of strings, not ${kind(entries)}`);
    const bad = entries.findIndex((entry) => typeof entry !== 'string');
    if (bad >= 0) fail(`returned entry ${bad} as ${kind(entries[bad])}, not a string`);
    return entries;
  },
  'promptHistoryStore.append': (outcome) => (outcome === 'duplicate' || outcome === 'record_too_large' ? outcome : 'appended'),
  'workspace.exec': execResult,
};

/**
 * Calls `adapter.method(...args)` (sync or async, throwing or not) and checks its result against
 * {@link RESULTS}. Always a Promise; a thrown error keeps its `code`.
 */
export function callAdapter(adapterName, target, method, args) {
  const name = `${adapterName}.${method}`;
  const check = RESULTS[name];
  const fail = (message) => {
    throw adapterError(adapterName, method, message);
  };
  return Promise.resolve()
    .then(() => target[method](...args))
    .then((result) => check(result, fail));
}

function sameBytes(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function toBytes(value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer || Array.isArray(value)) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return null;
}

function errorText(error) {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** An `{ promise, abort }` pair around an AbortController. */
function abortable(run) {
  const controller = new AbortController();
  const promise = Promise.resolve().then(() => run(controller.signal));
  promise.catch(() => {});
  return { promise, abort: (reason) => controller.abort(reason) };
}

/**
 * Resolves in a new task of the event loop, so what waits there (keys, clicks, timers, the
 * terminal's frames) runs between two reads even when a stream's chunks are all available at
 * once (a read of a queued chunk resolves in a microtask).
 */
const nextTask = (() => {
  if (typeof setImmediate === 'function') return () => new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel !== 'function') return () => new Promise((resolve) => setTimeout(resolve, 0));
  let channel = null;
  const waiting = [];
  return () =>
    new Promise((resolve) => {
      if (channel === null) {
        channel = new MessageChannel();
        channel.port1.onmessage = () => waiting.shift()?.();
      }
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
})();

class HttpHandle {
  #reader;
  #controller;
  constructor(response, controller) {
    this.status = response.status;
    this.retryAfter = response.headers?.get?.('retry-after') ?? null;
    this.contentType = response.headers?.get?.('content-type') ?? null;
    // Read by the bots' MCP client (a browser shows them only when the server exposes them).
    this.mcpSessionId = response.headers?.get?.('mcp-session-id') ?? null;
    this.wwwAuthenticate = response.headers?.get?.('www-authenticate') ?? null;
    this.#reader = response.body?.getReader?.() ?? null;
    this.#controller = controller;
  }
  /** The next chunk, or null at the end. */
  read() {
    return abortable(async (readSignal) => {
      if (!this.#reader) return null;
      const reader = this.#reader;
      const onAbort = () => {
        this.#controller.abort();
        reader.cancel().catch(() => {});
      };
      readSignal.addEventListener('abort', onAbort, { once: true });
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return null;
          const bytes = toBytes(value);
          if (bytes === null) throw new TypeError('fetch response body produced a non-byte chunk');
          if (bytes.byteLength > 0) {
            // The core handles the chunk in the task that resolves this read; input waiting
            // since the last chunk runs first.
            await nextTask();
            return bytes;
          }
        }
      } finally {
        readSignal.removeEventListener('abort', onAbort);
      }
    });
  }
  /** Aborts the whole request (the host's `init.signal` fires). */
  abort() {
    this.#controller.abort();
  }
}

const after = (ms, run) => setTimeout(run, ms);

/**
 * Deadlines for adapter calls. Each call ends at its deadline (FX_ADAPTER_TIMEOUT naming the
 * adapter and method) or, once `stop()` was called, one timer tick later (FX_AGENT_CLOSED); its
 * late answer is dropped. The tick lets a store that answers at once still save the turn an
 * abort cancelled, while one that hangs holds nothing up.
 */
function makeDeadlines(timeoutMs) {
  let stopped = false;
  const onStop = new Set();
  const race = (name, promise, deadlineMs) =>
    new Promise((resolve, reject) => {
      let deadline;
      let grace;
      const settle = (done, value) => {
        clearTimeout(deadline);
        clearTimeout(grace);
        onStop.delete(stop);
        done(value);
      };
      const stop = () => {
        grace = after(0, () => settle(reject, codedError('FX_AGENT_CLOSED', `${name}() was abandoned: the agent stopped before it answered`)));
      };
      if (deadlineMs !== undefined) {
        deadline = after(deadlineMs, () => settle(reject, codedError('FX_ADAPTER_TIMEOUT', `${name}() did not answer within ${deadlineMs} ms`)));
      }
      if (stopped) stop();
      else onStop.add(stop);
      promise.then(
        (value) => settle(resolve, value),
        (error) => settle(reject, error),
      );
    });
  return {
    /** `promise` (a call of adapter method `name`) until its deadline or the stop. */
    call: (name, promise) => race(name, promise, timeoutMs),
    /** A wait with no deadline (the user may take their time), ended by the stop only. */
    untilStopped: (name, promise) => race(name, promise, undefined),
    stop() {
      if (stopped) return;
      stopped = true;
      for (const stop of [...onStop]) stop();
    },
  };
}

export function makeHost({ fetch, env, adapterTimeoutMs, modelIdleTimeoutMs, sessionStore, configStore, oauthSessionStore, promptHistoryStore, docStore, openUrl, workspace, onPermission, emit, deliver }) {
  const fetchImpl = fetch ?? globalThis.fetch?.bind(globalThis);
  const deadlines = makeDeadlines(adapterTimeoutMs ?? DEFAULT_ADAPTER_TIMEOUT_MS);
  // `sessionStore.append` is our extension of the contract: a store without it gets every
  // commit whole. Read once, so a store cannot change its mind mid-session.
  const appends = typeof sessionStore?.append === 'function';
  /** One adapter call: checked by {@link callAdapter}, bounded by the deadlines. */
  const bounded = (adapterName, target, method, args) =>
    deadlines.call(`${adapterName}.${method}`, callAdapter(adapterName, target, method, args));
  const deadlineMs = adapterTimeoutMs ?? DEFAULT_ADAPTER_TIMEOUT_MS;
  // Session writes the stop abandoned, by session id: each settles true once the store answered
  // within the call's deadline (a slow store still writes the record), else false.
  const abandoned = new Map();
  const sessionWrite = (method, id, args) => {
    const started = Date.now();
    const call = callAdapter('sessionStore', sessionStore, method, args);
    return deadlines.call(`sessionStore.${method}`, call).catch((error) => {
      if (error?.code === 'FX_AGENT_CLOSED') {
        const landed = new Promise((resolve) => {
          const timer = after(Math.max(0, deadlineMs - (Date.now() - started)), () => resolve(false));
          const settle = (ok) => {
            clearTimeout(timer);
            resolve(ok);
          };
          call.then(() => settle(true), () => settle(false));
        });
        abandoned.set(id, [...(abandoned.get(id) ?? []), landed]);
      }
      throw error;
    });
  };
  /**
   * `session.unsaved` for a session whose write the stop abandoned waits for that write (up
   * to its deadline): when one landed and the store now holds exactly the bytes reported, the
   * session is saved and nothing is reported.
   */
  const reportUnsaved = async (event) => {
    const landed = await Promise.all(abandoned.get(event.sessionId) ?? []);
    if (landed.some(Boolean)) {
      let timer;
      const load = callAdapter('sessionStore', sessionStore, 'load', [event.sessionId]);
      const deadline = new Promise((resolve) => {
        timer = after(deadlineMs, () => resolve(null));
      });
      const record = await Promise.race([load, deadline]).catch(() => null);
      clearTimeout(timer);
      if (record && sameBytes(record.bytes, event.bytes)) return;
    }
    emit(event.type, event);
  };
  return {
    /** What the core needs to start: the environment, the workspace description, the model idle deadline. */
    config() {
      return {
        env,
        workspace: workspace ? { info: readInfo(workspace), permission: readPermission(workspace) } : null,
        modelIdleTimeoutMs,
      };
    },
    /** The agent stopped: pending adapter calls are abandoned after one timer tick. */
    stop() {
      deadlines.stop();
    },
    /** `promptHistoryStore` for the terminal: checked and bounded like every store call. */
    historyLoad(workspaceRoot, limit) {
      return bounded('promptHistoryStore', promptHistoryStore, 'load', [workspaceRoot, limit]);
    },
    historyAppend(workspaceRoot, value, timestampMs) {
      return bounded('promptHistoryStore', promptHistoryStore, 'append', [workspaceRoot, value, timestampMs]);
    },
    /** A host callback that may wait for the user (a download dialog): ended only by the stop. */
    untilStopped(name, promise) {
      return deadlines.untilStopped(name, promise);
    },
    now: () => Date.now(),
    random(bytes) {
      for (let offset = 0; offset < bytes.length; offset += MAX_RANDOM_CHUNK) {
        crypto.getRandomValues(bytes.subarray(offset, offset + MAX_RANDOM_CHUNK));
      }
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    /**
     * A timer the core may abandon: `abort` clears it and settles its promise at once. (A
     * promise left pending for ever would keep the two callbacks the core's future gave it:
     * wasm-bindgen-futures frees them only when the promise settles, so each abandoned deadline
     * leaked about 0.8 KiB of JS heap and some wasm memory, two deadlines a turn.)
     */
    timer(ms) {
      let id;
      let settle;
      const promise = new Promise((resolve) => {
        settle = resolve;
        id = setTimeout(resolve, ms);
      });
      return {
        promise,
        abort: () => {
          clearTimeout(id);
          settle();
        },
      };
    },

    fetch(method, url, headers, body) {
      const controller = new AbortController();
      const promise = (async () => {
        if (typeof fetchImpl !== 'function') throw new TypeError('no fetch: pass options.fetch or run where globalThis.fetch exists');
        const init = { method, headers: new Headers(headers), signal: controller.signal };
        if (body && body.length > 0) init.body = body;
        const response = await fetchImpl(url, init);
        if (!response || typeof response.status !== 'number') throw new TypeError('fetch() must resolve to a Response');
        // `Response.error()` (and an opaque response) carries no HTTP status: a network failure.
        if (response.type === 'error' || response.status === 0) {
          throw new TypeError('the request failed: fetch gave a network error response (status 0)');
        }
        return new HttpHandle(response, controller);
      })();
      promise.catch(() => {});
      return { promise, abort: () => controller.abort() };
    },

    sessionLoad(id) {
      return bounded('sessionStore', sessionStore, 'load', [id]);
    },
    sessionCommit(id, bytes, expectedRevision) {
      return sessionWrite('commit', id, [id, bytes.slice(), expectedRevision ?? undefined]);
    },
    /** Whether the core may hand the store only the new bytes of a commit. */
    sessionAppends() {
      return appends;
    },
    /** The bytes a commit adds at the end of the record stored at `expectedRevision`. */
    sessionAppend(id, bytes, expectedRevision) {
      return sessionWrite('append', id, [id, bytes.slice(), expectedRevision]);
    },
    sessionList() {
      return bounded('sessionStore', sessionStore, 'list', []);
    },
    sessionRemove(id) {
      return bounded('sessionStore', sessionStore, 'remove', [id]);
    },

    // The bots' document store. A commit's bytes are copied here, at once: the view the core
    // hands over is into wasm memory, which moves on before an async store reads it.
    docLoad(key) {
      return bounded('store', docStore, 'load', [key]);
    },
    docCommit(key, bytes, expectedRevision) {
      return bounded('store', docStore, 'commit', [key, bytes.slice(), expectedRevision ?? undefined]);
    },
    docList(prefix) {
      return bounded('store', docStore, 'list', [prefix]);
    },
    docRemove(key, expectedRevision) {
      const args = expectedRevision === undefined || expectedRevision === null ? [key] : [key, expectedRevision];
      return bounded('store', docStore, 'remove', args);
    },

    configGet(id) {
      if (typeof configStore?.get !== 'function') return Promise.resolve(null);
      return bounded('configStore', configStore, 'get', [id]);
    },
    configSet(id, value) {
      if (typeof configStore?.set !== 'function') return Promise.resolve(false);
      return bounded('configStore', configStore, 'set', [id, value]);
    },

    // oauthSessionStore: the device-login record. Its bytes hold tokens: they pass through
    // untouched and are never logged or put in an error message.
    oauthLoad() {
      if (typeof oauthSessionStore?.load !== 'function') return Promise.resolve(null);
      return bounded('oauthSessionStore', oauthSessionStore, 'load', []);
    },
    oauthCommit(bytes, expectedRevision) {
      if (typeof oauthSessionStore?.commit !== 'function') {
        return Promise.reject(adapterError('oauthSessionStore', 'commit', 'is not a function'));
      }
      return bounded('oauthSessionStore', oauthSessionStore, 'commit', [bytes.slice(), expectedRevision ?? undefined]);
    },
    oauthRemove(expectedRevision) {
      if (typeof oauthSessionStore?.remove !== 'function') {
        return Promise.reject(adapterError('oauthSessionStore', 'remove', 'is not a function'));
      }
      return bounded('oauthSessionStore', oauthSessionStore, 'remove', [expectedRevision ?? undefined]);
    },
    /** True unless there is no `openUrl`, it returned exactly `false`, or it threw. */
    openUrl(url) {
      if (typeof openUrl !== 'function') return Promise.resolve(false);
      const opened = Promise.resolve().then(() => openUrl(url));
      return deadlines.call('openUrl', opened).then(
        (result) => result !== false,
        () => false,
      );
    },

    exec(command, cwd, timeoutMs, outputLimitBytes) {
      return abortable(async (signal) => {
        if (typeof workspace?.exec !== 'function') return { kind: 'failed', message: 'workspace.exec is not a function' };
        let timer;
        const deadline = new Promise((resolve) => {
          timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
        });
        const inner = new AbortController();
        const onAbort = () => inner.abort(new DOMException('The command was cancelled.', 'AbortError'));
        signal.addEventListener('abort', onAbort, { once: true });
        const cancelled = new Promise((resolve) => signal.addEventListener('abort', () => resolve({ kind: 'cancelled' }), { once: true }));
        const run = callAdapter('workspace', workspace, 'exec', [{ command, cwd, signal: inner.signal, timeoutMs, outputLimitBytes }]).then(
          (result) => result,
          (error) => {
            if (error?.code === 'FX_ADAPTER_INVALID') return { kind: 'failed', message: error.message };
            if (error?.name === 'TimeoutError') return { kind: 'timeout' };
            if (error?.name === 'AbortError' || inner.signal.aborted) return { kind: 'cancelled' };
            return { kind: 'failed', message: errorText(error) };
          },
        );
        try {
          const outcome = await Promise.race([run, deadline, cancelled]);
          if (outcome.kind === 'timeout') inner.abort(new DOMException('The command timed out.', 'TimeoutError'));
          return outcome;
        } finally {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        }
      });
    },

    permission(request) {
      return abortable(async () => {
        emit('permission.request', { request });
        let optionId = null;
        if (typeof onPermission === 'function') {
          try {
            const answer = await onPermission(request);
            optionId = typeof answer === 'string' && answer !== '' ? answer : null;
          } catch {
            optionId = null;
          }
        }
        emit('permission.resolve', { optionId });
        return optionId;
      });
    },

    /** One ACP update for turn `turnId`. */
    update(turnId, update) {
      deliver(turnId, update);
    },
    /** The hot path: a streamed text chunk. */
    text(turnId, text) {
      deliver(turnId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    },
    /** A core event: `{ type, ...detail }`. */
    event(event) {
      if (event.type === 'session.unsaved' && abandoned.has(event.sessionId)) {
        reportUnsaved(event).catch(() => emit(event.type, event));
        return;
      }
      emit(event.type, event);
    },
  };
}

function readInfo(workspace) {
  let info;
  try {
    info = workspace.info;
  } catch (error) {
    throw new TypeError(`workspace.info could not be read: ${errorText(error)}`);
  }
  if (!info || typeof info !== 'object') throw new TypeError('workspace.info must be an object');
  try {
    return {
      version: info.version,
      root: info.root,
      cwd: info.cwd,
      home: info.home,
      gitAvailable: info.gitAvailable,
      ephemeral: info.ephemeral,
    };
  } catch (error) {
    throw new TypeError(`workspace.info could not be read: ${errorText(error)}`);
  }
}

function readPermission(workspace) {
  try {
    return workspace.permission;
  } catch {
    return null;
  }
}
