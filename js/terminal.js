// createFxTerminal: the interactive fx terminal. The screen, input, commands and the agent run
// in fx-term.wasm; this file checks the options, wires the terminal adapter's input, resize and
// output to the core, adapts the stores, and settles `exited` exactly once.

import { memorySessionStore } from './memory-stores.js';
import { makeHost, normalizeAdapterTimeout, normalizeEnv, normalizeModelIdleTimeout } from './host.js';
import { loadTerm } from './load-term.js';

/** How long the core waits after the last resize before it re-wraps. */
const RESIZE_DEBOUNCE_MS = 100;

/** A frame's time where the runtime has no animation frames (Node, workers). */
const FRAME_MS = 16;
/** How long a repaint waits for a frame that does not come (a hidden tab has none). */
const FRAME_FALLBACK_MS = 100;

/**
 * Resolves at the next animation frame; where there are none, a frame's time later. Streamed
 * updates repaint here, so the screen changes at most once a frame however many reads arrive.
 */
function nextFrame() {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame !== 'function') {
      setTimeout(resolve, FRAME_MS);
      return;
    }
    const fallback = setTimeout(() => {
      cancelAnimationFrame(frame);
      resolve();
    }, FRAME_FALLBACK_MS);
    const frame = requestAnimationFrame(() => {
      clearTimeout(fallback);
      resolve();
    });
  });
}

const WORKSPACE_ROOT = '/';
const HISTORY_LIMIT = 100;

function makeEmitter(onEvent) {
  return (type, detail = {}) => {
    if (typeof onEvent !== 'function') return;
    try {
      onEvent({ type, timestamp: performance.now(), ...detail });
    } catch {
      // A throwing listener must not break the terminal.
    }
  };
}

function errorText(error) {
  return error instanceof Error ? error.message || error.name : String(error);
}

/** `--resume last`, `--resume <id>` and a bare `--resume`; anything else is refused. */
function parseArgs(args) {
  if (args === undefined || args === null) return { resume: null };
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) {
    throw new TypeError('args must be an array of strings');
  }
  let resume = null;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--resume' || arg === '-r') {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith('-')) {
        resume = next;
        i += 1;
      } else {
        resume = 'last';
      }
    } else if (arg.startsWith('--resume=')) {
      resume = arg.slice('--resume='.length) || 'last';
    } else {
      return { error: `unsupported argument for the interactive terminal: ${arg}` };
    }
  }
  return { resume };
}

function checkTerminal(terminal) {
  if (!terminal) throw new TypeError('terminal is required');
  for (const method of ['write', 'onData', 'onResize']) {
    if (typeof terminal[method] !== 'function') throw new TypeError(`terminal.${method} must be a function`);
  }
}

/** The prompt history through the host (checked and bounded), reporting each call as an event. */
function historyAdapter(store, host, emit) {
  if (!store) return null;
  return {
    async load() {
      try {
        const entries = await host.historyLoad(WORKSPACE_ROOT, HISTORY_LIMIT);
        emit('history.restore', { workspaceRoot: WORKSPACE_ROOT, count: entries.length });
        return entries;
      } catch (error) {
        emit('history.restore_error', { workspaceRoot: WORKSPACE_ROOT, error: errorText(error) });
        throw error;
      }
    },
    async append(value) {
      try {
        const outcome = await host.historyAppend(WORKSPACE_ROOT, value, Date.now());
        emit('history.append', { workspaceRoot: WORKSPACE_ROOT });
        return outcome;
      } catch (error) {
        emit('history.append_error', { workspaceRoot: WORKSPACE_ROOT, error: errorText(error) });
        throw error;
      }
    },
  };
}

/** The host's configStore, reporting each stored value read at start as `config.restore`. */
function observedConfigStore(store, emit) {
  if (!store || typeof store.get !== 'function') return store;
  const observed = {
    async get(id) {
      const value = await store.get(id);
      if (typeof value === 'string') emit('config.restore', { configId: id, value });
      return value;
    },
  };
  if (typeof store.set === 'function') observed.set = (id, value) => store.set(id, value);
  return observed;
}

/**
 * Runs the fx terminal against `options.terminal` (see `xtermAdapter`). Resolves once the core
 * is loaded and input is attached; `interactive` resolves after the first frame is painted.
 */
export async function createFxTerminal(options) {
  if (options === null || typeof options !== 'object') throw new TypeError('terminal is required');
  const { terminal } = options;
  checkTerminal(terminal);
  const env = normalizeEnv(options.env);
  const adapterTimeoutMs = normalizeAdapterTimeout(options.adapterTimeoutMs);
  const modelIdleTimeoutMs = normalizeModelIdleTimeout(options.modelIdleTimeoutMs);
  const parsed = parseArgs(options.args);
  const emit = makeEmitter(options.onEvent);
  const download = typeof options.download === 'function' ? options.download : null;
  const host = makeHost({
    fetch: options.fetch,
    env,
    adapterTimeoutMs,
    modelIdleTimeoutMs,
    sessionStore: options.sessionStore ?? memorySessionStore(),
    configStore: observedConfigStore(options.configStore, emit),
    promptHistoryStore: options.promptHistoryStore,
    oauthSessionStore: options.oauthSessionStore,
    openUrl: options.openUrl,
    workspace: options.workspace,
    onPermission: undefined,
    emit,
    deliver() {},
  });
  const history = historyAdapter(options.promptHistoryStore, host, emit);
  const interruptKey = options.interruptKey === null || options.interruptKey === undefined ? '\x03' : options.interruptKey;

  emit('runtime.start', { surface: 'terminal' });
  const glue = await loadTerm(options.wasm);

  let finished = false;
  let released = false;
  let resolveExited;
  const exited = new Promise((resolve) => {
    resolveExited = resolve;
  });
  const subscriptions = [];
  const release = () => {
    if (released) return;
    released = true;
    for (const [source, unsubscribe] of subscriptions) {
      try {
        unsubscribe?.();
      } catch (error) {
        emit('terminal.cleanup_error', { source, error: errorText(error) });
      }
    }
  };
  let core = null;
  let resizeTimer = null;
  const finish = (code) => {
    if (finished) return;
    finished = true;
    clearTimeout(resizeTimer);
    release();
    // Adapter calls still pending are abandoned after one timer tick (see js/host.js).
    host.stop();
    emit('runtime.exit', { surface: 'terminal', code });
    resolveExited(code);
  };

  const size = () => {
    const cols = Number(terminal.cols) || 80;
    const rows = Number(terminal.rows) || 24;
    emit('terminal.size', { cols, rows });
    return { cols, rows };
  };

  const io = {
    write(bytes) {
      if (finished) return;
      terminal.write(bytes.slice());
    },
    nextFrame,
    historyLoad: () => (history ? history.load() : null),
    historyAppend: (value) => (history ? history.append(value) : Promise.resolve('appended')),
    async download(paths, contents) {
      if (!download) throw new Error('this host offers no downloads');
      const files = {};
      paths.forEach((path, i) => {
        files[path] = contents[i];
      });
      // The host may wait for the user here: no deadline, but it ends with the terminal.
      await host.untilStopped('download', Promise.resolve().then(() => download(files)));
    },
    exited(code) {
      // The core wrote its last frame synchronously before this call.
      queueMicrotask(() => finish(code));
    },
  };
  const { cols, rows } = size();
  try {
    core = new glue.TermCore(host, host.config(), io, cols, rows, {
      historyStore: Boolean(history),
      sessionStore: Boolean(options.sessionStore),
      downloads: Boolean(download),
      oauth: Boolean(options.oauthSessionStore) && typeof options.openUrl === 'function',
      escThenTabLeaves: terminal.escThenTabLeaves === true,
    });
  } catch (error) {
    emit('runtime.exit', { surface: 'terminal', code: 1 });
    throw error;
  }

  const forward = (data) => {
    if (finished) return;
    if (typeof data === 'string') {
      if (data === '') return;
      if (interruptKey && data.includes(interruptKey)) core.interrupt();
      core.write(new TextEncoder().encode(data));
    } else if (data && data.byteLength > 0) {
      core.write(data);
    }
  };
  // Resizes come in bursts while a window is dragged: the core re-wraps once, 100 ms after the
  // last one, as fx does.
  const applySize = () => {
    resizeTimer = null;
    if (finished) return;
    const { cols: c, rows: r } = size();
    core.resize(c, r);
  };
  const resize = () => {
    if (finished) return;
    emit('terminal.resize', { cols: Number(terminal.cols) || 80, rows: Number(terminal.rows) || 24 });
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(applySize, RESIZE_DEBOUNCE_MS);
  };
  subscriptions.push(['data', terminal.onData(forward)]);
  if (typeof terminal.onKeyData === 'function') subscriptions.push(['key_data', terminal.onKeyData(forward)]);
  subscriptions.push(['resize', terminal.onResize(() => resize())]);
  emit('runtime.ready', { surface: 'terminal' });

  const interactive = (async () => {
    if (parsed.error) {
      core.abort();
      finish(1);
      throw new Error('fx terminal exited with code 1 before becoming interactive');
    }
    await core.start(parsed.resume);
    if (finished) {
      throw new Error(`fx terminal exited with code ${await exited} before becoming interactive`);
    }
    await terminal.drain?.();
  })();
  interactive.catch(() => {});

  let lastSessionId = null;
  return {
    interactive,
    exited,
    /** The session on screen: null before one is open; kept after the terminal exits. */
    get sessionId() {
      if (!finished) lastSessionId = core.sessionId || lastSessionId;
      return lastSessionId;
    },
    write(data) {
      if (finished) throw new Error('fx runtime stdin is closed');
      forward(data);
    },
    resize,
    async setMode(mode) {
      if (typeof mode !== 'string') throw new TypeError('setMode(mode) takes a string: "ask" or "code"');
      if (finished) throw new Error('fx runtime stdin is closed');
      core.setMode(mode);
    },
    abort() {
      if (finished) return;
      release();
      core.abort();
      finish(130);
    },
  };
}
