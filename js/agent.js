// createFxAgent: the headless fx agent. The agent loop, the gateway protocol and the session log
// run in fx-core.wasm; this file loads it, adapts the host's options into the one `host` object
// the core calls, and shapes the results into Agent / Session / Turn objects.

import { codedError } from './errors.js';
import { memorySessionStore } from './memory-stores.js';
import { makeHost, normalizeAdapterTimeout, normalizeEnv, normalizeModelIdleTimeout } from './host.js';
import { loadCore } from './load-core.js';

const CLOSING = 'fx agent is closing';

/**
 * Creates a headless agent. Resolves once the core is running. The model catalog is fetched
 * when something needs it (`session.loadConfigOptions()`, `setModel`, a turn with a named
 * effort), never at start-up: a plain turn costs one request.
 */
export async function createFxAgent(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('createFxAgent options must be an object');
  }
  if (options.fetch !== undefined && options.fetch !== null && typeof options.fetch !== 'function') {
    throw new TypeError('fetch must be a function (or undefined for globalThis.fetch)');
  }
  const env = normalizeEnv(options.env);
  const adapterTimeoutMs = normalizeAdapterTimeout(options.adapterTimeoutMs);
  const modelIdleTimeoutMs = normalizeModelIdleTimeout(options.modelIdleTimeoutMs);
  const events = makeEmitter(options.onEvent);
  const turns = new Map();
  const host = makeHost({
    fetch: options.fetch,
    env,
    adapterTimeoutMs,
    modelIdleTimeoutMs,
    sessionStore: options.sessionStore ?? memorySessionStore(),
    configStore: options.configStore,
    workspace: options.workspace,
    onPermission: options.onPermission,
    emit(type, detail) {
      if (type === 'turn.usage') {
        // Listeners see the step's figures (the turn's sum comes with its result).
        const { inputTokens, outputTokens } = detail;
        events.emit(type, { inputTokens, outputTokens });
        return;
      }
      events.emit(type, detail);
    },
    deliver(turnId, update) {
      turns.get(turnId)?.push(update);
    },
  });
  events.emit('runtime.start', {});
  let core;
  try {
    const glue = await loadCore(options.wasm);
    core = new glue.AgentCore(host, host.config());
  } catch (error) {
    // A failed start leaves nothing running: the core (if made) is shut down and freed.
    core?.shutdown();
    host.stop();
    core?.free();
    events.emit('runtime.exit', { code: 1 });
    throw error;
  }
  events.emit('runtime.ready', {});
  return new Agent(core, host, events, turns);
}

function makeEmitter(onEvent) {
  return {
    emit(type, detail) {
      if (typeof onEvent !== 'function') return;
      try {
        onEvent({ type, timestamp: performance.now(), ...detail });
      } catch {
        // A throwing listener must not break the agent.
      }
    },
  };
}

class Agent {
  #core;
  #host;
  #events;
  #turns;
  #active = null;
  /** close() or abort() was called: no new work is accepted. */
  #closing = false;
  /** The core is shut down (`exited` settled). */
  #stopped = false;
  #nextTurnId = 1;
  #resolveExited;

  constructor(core, host, events, turns) {
    this.#core = core;
    this.#host = host;
    this.#events = events;
    this.#turns = turns;
    /** Settles once, with 0 after close() and 130 after abort(). Never rejects. */
    this.exited = new Promise((resolve) => {
      this.#resolveExited = resolve;
    });
  }

  #assertOpen() {
    if (this.#closing) throw codedError('FX_AGENT_CLOSED', CLOSING);
  }

  async #replaceActive() {
    const previous = this.#active;
    this.#active = null;
    if (previous) await previous.close();
  }

  /** Closes the active session and starts a new one. */
  async createSession() {
    this.#assertOpen();
    await this.#replaceActive();
    this.#assertOpen();
    const opened = await this.#core.createSession();
    return this.#adopt(opened);
  }

  /** Closes the active session and opens a stored one; its turns are in `session.history`. */
  async openSession(id) {
    if (typeof id !== 'string' || id === '') throw new TypeError('openSession(id) needs a session id string');
    this.#assertOpen();
    await this.#replaceActive();
    this.#assertOpen();
    const opened = await this.#core.openSession(id);
    return this.#adopt(opened);
  }

  #adopt(opened) {
    const session = new Session(this, opened);
    this.#active = session;
    return session;
  }

  /** Stored sessions, newest first: `{ sessionId, cwd, updatedAt, title }`. */
  async listSessions() {
    this.#assertOpen();
    return this.#core.listSessions();
  }

  /**
   * Cancels any turn, stores what the session store does not hold yet (retrying a commit that
   * failed earlier; `session.unsaved` reports what still fails), then shuts the core down.
   * Resolves with the exit code: 0, or 130 when `abort()` came first.
   */
  async close() {
    if (this.#closing) return this.exited;
    this.#closing = true;
    try {
      await this.#replaceActive();
    } finally {
      this.#shutdown(0);
    }
    return this.exited;
  }

  /**
   * Stops everything now: running turns are cancelled, adapter calls in flight are abandoned,
   * pending turns and `close()` settle, and `exited` settles with 130. What the store does not
   * hold is reported by a `session.unsaved` event.
   */
  abort() {
    if (this.#stopped) return;
    this.#closing = true;
    const active = this.#active;
    this.#active = null;
    this.#shutdown(130);
    active?.markClosed();
  }

  #shutdown(code) {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const turn of this.#turns.values()) turn.cancel();
    this.#core.shutdown();
    // Adapter calls still pending are abandoned after one timer tick (see js/host.js).
    this.#host.stop();
    this.#events.emit('runtime.exit', { code });
    this.#resolveExited(code);
  }

  // Internal plumbing for Session and Turn.
  get core() {
    this.#assertOpen();
    return this.#core;
  }
  get events() {
    return this.#events;
  }
  isActive(session) {
    return this.#active === session;
  }
  release(session) {
    if (this.#active === session) this.#active = null;
  }
  /** Stores what the core's session `sessionId` has not stored yet, then drops it (never rejects). */
  forget(sessionId) {
    if (this.#stopped) return Promise.resolve();
    return this.#core.closeSession(sessionId);
  }
  registerTurn(turn) {
    const id = this.#nextTurnId++;
    this.#turns.set(id, turn);
    return id;
  }
  unregisterTurn(id) {
    this.#turns.delete(id);
  }
}

class Session {
  #agent;
  #configOptions;
  #turn = null;
  #closed = false;

  constructor(agent, opened) {
    this.#agent = agent;
    this.id = opened.sessionId;
    this.modes = opened.modes;
    this.history = opened.history ?? [];
    this.#configOptions = opened.configOptions;
  }

  get configOptions() {
    return this.#configOptions;
  }

  #assertOpen() {
    if (this.#closed) throw new Error('fx session is closed');
    if (!this.#agent.isActive(this)) throw new Error('fx session is no longer active');
  }

  /** Sets one config option (`model`, `mode`); persisted through `configStore` once accepted. */
  async setConfigOption(configId, value, source = 'sdk') {
    this.#assertOpen();
    if (typeof configId !== 'string' || typeof value !== 'string') {
      throw new TypeError('setConfigOption(configId, value) takes two strings');
    }
    const result = await this.#agent.core.setConfigOption(this.id, configId, value, source);
    this.#configOptions = result.configOptions;
    this.modes = result.modes;
    return this.#configOptions;
  }

  /**
   * `configOptions` with the model catalog's ids in the model select (the current model after
   * them when the catalog lacks it), fetching the catalog first if it was not (waiting at most
   * 2 s; a failed catalog is a `catalog.error` event and the select lists the current model).
   */
  async loadConfigOptions() {
    this.#assertOpen();
    const current = (options, id) => options.find((o) => o.id === id)?.currentValue;
    const before = this.#configOptions;
    const options = await this.#agent.core.configOptions(current(before, 'model'), current(before, 'mode'));
    // A change meanwhile wins: its options are newer (and list the catalog too).
    if (this.#configOptions === before) this.#configOptions = options;
    return this.#configOptions;
  }

  setModel(value) {
    return this.setConfigOption('model', value);
  }

  setMode(value) {
    return this.setConfigOption('mode', value);
  }

  /** Applies each entry in order; the first failure rejects and stops. */
  async setConfig(values) {
    if (values === null || typeof values !== 'object') throw new TypeError('setConfig() takes an object');
    for (const [configId, value] of Object.entries(values)) await this.setConfigOption(configId, value);
    return this.#configOptions;
  }

  /**
   * Starts a turn. Returns at once with a Turn: iterate it for ACP updates, await `result` or
   * `stopReason`. Leaving a `for await` loop early cancels the turn.
   */
  prompt(input, { signal } = {}) {
    this.#assertOpen();
    if (this.#turn) throw new Error('a prompt is already in progress for this session');
    const blocks = normalizePrompt(input);
    if (signal !== undefined && (typeof signal?.addEventListener !== 'function' || typeof signal?.removeEventListener !== 'function')) {
      throw new TypeError('prompt signal must be an AbortSignal');
    }
    const turn = new Turn(this.#agent, this.id, blocks, signal, (sessionId) => {
      // After a fork (another writer moved the stored session on) the session has a new id.
      if (typeof sessionId === 'string') this.id = sessionId;
      if (this.#turn === turn) this.#turn = null;
    });
    this.#turn = turn;
    return turn;
  }

  /**
   * Cancels the running turn (if any), stores what the store does not hold yet (a commit that
   * failed earlier is retried) and closes the session. Idempotent.
   */
  async close() {
    if (this.#closed) return;
    const turn = this.#turn;
    if (turn) {
      turn.cancel();
      await turn.result.catch(() => {});
    }
    await this.markClosed();
  }

  markClosed() {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#agent.release(this);
    return this.#agent.forget(this.id);
  }

  /** Deletes the stored session. Refused while a turn runs; on failure the session stays usable. */
  async remove() {
    if (this.#turn) throw new Error('cannot remove a session while a prompt is active');
    await this.#agent.core.removeSession(this.id);
    await this.markClosed();
  }
}

class Turn {
  #agent;
  #core;
  #id;
  #queue = [];
  #waiters = [];
  #done = false;
  #cancelled = false;
  #signal;
  #onAbort;

  constructor(agent, sessionId, blocks, signal, onSettled) {
    this.#agent = agent;
    this.#id = agent.registerTurn(this);
    const core = agent.core;
    this.#core = core;
    let newSessionId;
    this.result = core.prompt(sessionId, this.#id, blocks).then((end) => {
      newSessionId = end.sessionId;
      return { stopReason: end.stopReason, usage: end.usage };
    });
    this.stopReason = this.result.then((r) => r.stopReason);
    this.stopReason.catch(() => {});
    const settle = () => {
      this.#done = true;
      agent.unregisterTurn(this.#id);
      signal?.removeEventListener('abort', this.#onAbort);
      onSettled(newSessionId);
      for (const waiter of this.#waiters.splice(0)) waiter.resolve(this.#next());
    };
    this.result.then(settle, settle);
    if (signal) {
      this.#signal = signal;
      this.#onAbort = () => this.cancel();
      // An already aborted signal cancels before anything is sent (the turn is registered).
      if (signal.aborted) this.cancel();
      else signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  /** Called by the host object for each update of this turn. */
  push(update) {
    if (this.#done) return;
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve({ value: update, done: false });
    else this.#queue.push(update);
  }

  #next() {
    if (this.#queue.length > 0) return { value: this.#queue.shift(), done: false };
    if (this.#done) return { value: undefined, done: true };
    return null;
  }

  /** Stops the turn: the running request or command is aborted; `stopReason` is "cancelled". */
  cancel() {
    if (this.#done || this.#cancelled) return;
    this.#cancelled = true;
    this.#core.cancelTurn(this.#id);
  }

  [Symbol.asyncIterator]() {
    return {
      next: () => {
        const ready = this.#next();
        if (ready) return Promise.resolve(ready);
        return new Promise((resolve) => this.#waiters.push({ resolve }));
      },
      return: async () => {
        this.cancel();
        await this.result.catch(() => {});
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}

/** Turns `prompt()` input into ACP content blocks, or throws a TypeError naming the problem. */
export function normalizePrompt(input) {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  if (!Array.isArray(input)) throw new TypeError('prompt input must be a string or an array of prompt blocks');
  return input.map((block, i) => {
    if (block === null || typeof block !== 'object') throw new TypeError(`prompt block ${i} must be an object`);
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') throw new TypeError(`text prompt block ${i} requires text`);
        return { type: 'text', text: block.text };
      case 'resource': {
        const resource = block.resource ?? block;
        if (typeof resource.uri !== 'string') throw new TypeError(`resource prompt block ${i} requires uri`);
        if (resource.text !== undefined && typeof resource.text !== 'string') {
          throw new TypeError(`resource prompt block ${i} text must be a string`);
        }
        return { type: 'resource', resource: { uri: resource.uri, ...(resource.text === undefined ? {} : { text: resource.text }) } };
      }
      case 'image':
        throw new TypeError('image prompt blocks are unsupported');
      default:
        throw new TypeError(`unsupported prompt block type: ${block.type}`);
    }
  });
}

