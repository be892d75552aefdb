// The one `host` object the wasm core calls. It adapts the host application's options
// (fetch, stores, workspace, onPermission, onEvent) to a small, uniform contract:
//
// - every adapter call may be sync or async, and may throw; the core always gets a Promise,
//   and a thrown error keeps its `code` (FX_SESSION_REVISION_CONFLICT, ...);
// - results are checked here, and a bad shape becomes an error naming the adapter and method;
// - effects the core may need to stop (a fetch, a read, a command, a permission wait) come back
//   as `{ promise, abort }`, so cancelling a turn aborts exactly that turn's effects.

const MAX_RANDOM_CHUNK = 65536;
// oauthSessionStore limits (sdk-api §12.4): the record and its revision.
const MAX_OAUTH_RECORD_BYTES = 64 * 1024;
const MAX_OAUTH_REVISION_BYTES = 1024;

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

function call(target, method, args) {
  return Promise.resolve().then(() => target[method](...args));
}

function adapterError(adapter, method, message) {
  const error = new TypeError(`${adapter}.${method}() ${message}`);
  error.code = 'FX_ADAPTER_INVALID';
  return error;
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

class HttpHandle {
  #reader;
  #controller;
  constructor(response, controller) {
    this.status = response.status;
    this.retryAfter = response.headers?.get?.('retry-after') ?? null;
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
          if (bytes.byteLength > 0) return bytes;
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

export function makeHost({ fetch, env, sessionStore, configStore, oauthSessionStore, openUrl, workspace, onPermission, emit, deliver }) {
  const fetchImpl = fetch ?? globalThis.fetch?.bind(globalThis);
  return {
    /** What the core needs to start: the environment and the workspace description. */
    config() {
      return { env, workspace: workspace ? { info: readInfo(workspace), permission: readPermission(workspace) } : null };
    },
    now: () => Date.now(),
    random(bytes) {
      for (let offset = 0; offset < bytes.length; offset += MAX_RANDOM_CHUNK) {
        crypto.getRandomValues(bytes.subarray(offset, offset + MAX_RANDOM_CHUNK));
      }
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    /** A timer the core may abandon: `abort` clears it (its promise then never settles). */
    timer(ms) {
      let id;
      const promise = new Promise((resolve) => {
        id = setTimeout(resolve, ms);
      });
      return { promise, abort: () => clearTimeout(id) };
    },

    fetch(method, url, headers, body) {
      const controller = new AbortController();
      const promise = (async () => {
        if (typeof fetchImpl !== 'function') throw new TypeError('no fetch: pass options.fetch or run where globalThis.fetch exists');
        const init = { method, headers: new Headers(headers), signal: controller.signal };
        if (body && body.length > 0) init.body = body;
        const response = await fetchImpl(url, init);
        if (!response || typeof response.status !== 'number') throw new TypeError('fetch() must resolve to a Response');
        return new HttpHandle(response, controller);
      })();
      promise.catch(() => {});
      return { promise, abort: () => controller.abort() };
    },

    sessionLoad(id) {
      return call(sessionStore, 'load', [id]).then((record) => {
        if (!record) return null;
        const bytes = toBytes(record.bytes);
        if (bytes === null) throw adapterError('sessionStore', 'load', 'must return { bytes: Uint8Array, revision } or null');
        return { bytes, revision: record.revision === undefined ? '' : String(record.revision) };
      });
    },
    sessionCommit(id, bytes, expectedRevision) {
      return call(sessionStore, 'commit', [id, bytes.slice(), expectedRevision ?? undefined]).then((result) => {
        if (!result || typeof result.revision !== 'string' || result.revision === '') {
          throw adapterError('sessionStore', 'commit', 'must return { revision: string }');
        }
        return result.revision;
      });
    },
    sessionList() {
      return call(sessionStore, 'list', []).then((list) => {
        if (!Array.isArray(list)) throw adapterError('sessionStore', 'list', 'must return an array');
        return list
          .filter((entry) => entry && typeof entry.id === 'string' && Number.isInteger(entry.updatedAtMs))
          .map((entry) => ({ id: entry.id, updatedAtMs: entry.updatedAtMs }));
      });
    },
    sessionRemove(id) {
      return call(sessionStore, 'remove', [id]).then(() => undefined);
    },

    configGet(id) {
      if (typeof configStore?.get !== 'function') return Promise.resolve(null);
      return call(configStore, 'get', [id]).then((value) => {
        if (value === null || value === undefined) return null;
        if (typeof value !== 'string') throw adapterError('configStore', 'get', 'must return a string or null');
        return value;
      });
    },
    configSet(id, value) {
      if (typeof configStore?.set !== 'function') return Promise.resolve(false);
      return call(configStore, 'set', [id, value]).then(() => true);
    },

    // oauthSessionStore: the device-login record. Its bytes hold tokens: they pass through
    // untouched and are never logged or put in an error message.
    oauthLoad() {
      if (typeof oauthSessionStore?.load !== 'function') return Promise.resolve(null);
      return call(oauthSessionStore, 'load', []).then((record) => {
        if (!record) return null;
        const bytes = toBytes(record.bytes);
        if (bytes === null || typeof record.revision !== 'string') {
          throw adapterError('oauthSessionStore', 'load', 'must return { bytes: Uint8Array, revision: string } or null');
        }
        if (bytes.byteLength > MAX_OAUTH_RECORD_BYTES) throw adapterError('oauthSessionStore', 'load', 'returned a record larger than 64 KiB');
        if (record.revision.length > MAX_OAUTH_REVISION_BYTES) throw adapterError('oauthSessionStore', 'load', 'returned a revision longer than 1 KiB');
        return { bytes, revision: record.revision };
      });
    },
    oauthCommit(bytes, expectedRevision) {
      if (typeof oauthSessionStore?.commit !== 'function') {
        return Promise.reject(adapterError('oauthSessionStore', 'commit', 'is not a function'));
      }
      return call(oauthSessionStore, 'commit', [bytes.slice(), expectedRevision ?? undefined]).then((result) => {
        if (!result || typeof result.revision !== 'string' || result.revision === '') {
          throw adapterError('oauthSessionStore', 'commit', 'must return { revision: string }');
        }
        return result.revision;
      });
    },
    oauthRemove(expectedRevision) {
      if (typeof oauthSessionStore?.remove !== 'function') {
        return Promise.reject(adapterError('oauthSessionStore', 'remove', 'is not a function'));
      }
      return call(oauthSessionStore, 'remove', [expectedRevision ?? undefined]).then((result) =>
        result === false || result === 'missing' ? 'missing' : 'deleted',
      );
    },
    /** True unless there is no `openUrl`, it returned exactly `false`, or it threw. */
    openUrl(url) {
      if (typeof openUrl !== 'function') return Promise.resolve(false);
      return Promise.resolve()
        .then(() => openUrl(url))
        .then(
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
        const run = call(workspace, 'exec', [{ command, cwd, signal: inner.signal, timeoutMs, outputLimitBytes }]).then(
          (result) => checkExecResult(result),
          (error) => {
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
    event(type, detail) {
      emit(type, detail ?? {});
    },
  };
}

function checkExecResult(result) {
  if (!result || typeof result !== 'object') return { kind: 'failed', message: 'workspace.exec() must return { stdout, stderr, exitCode }' };
  const { stdout, stderr, exitCode } = result;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') {
    return { kind: 'failed', message: 'workspace.exec() must return string stdout and stderr' };
  }
  if (!Number.isInteger(exitCode) || exitCode < -2147483648 || exitCode > 2147483647) {
    return { kind: 'failed', message: 'workspace.exec() must return an integer exitCode' };
  }
  return { kind: 'exited', exitCode, stdout, stderr };
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
