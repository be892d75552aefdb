// createFxbot: personal bots on the fx core (fxbot DESIGN §3). The engine runs in fx-bot.wasm
// (bots, chats as fx sessions, send and stream with cursors, the library); this file loads it,
// adapts the options (the document store, the session store, fetch) and shapes the calls.

import { makeHost, normalizeAdapterTimeout, normalizeEnv, normalizeModelIdleTimeout } from '../host.js';
import { memorySessionStore } from '../memory-stores.js';
import { indexedDbSessionStore } from '../stores/indexeddb-session-store.js';
import { turnsFromLines } from './client.js';
import { FXBOT_CODES } from './codes.js';
import { loadBot } from './load-bot.js';
import { indexedDbFxbotStore, memoryFxbotStore } from './stores.js';

export { indexedDbFxbotStore, memoryFxbotStore } from './stores.js';

/** At most this many bots are pinned. */
export const MAX_PINNED = 3;

/** The stable codes of FxbotError, from the code table (codes.js is written by the build). */
export const FxbotErrorCodes = Object.freeze(Object.keys(FXBOT_CODES));

/** An FxbotError raised here: `code` and its status come from the code table. */
function fxbotError(code, message) {
  const error = new Error(message);
  error.name = 'FxbotError';
  error.status = FXBOT_CODES[code];
  error.code = code;
  return error;
}

/** True for a bot id: 12 lowercase hex characters. */
export function isBotId(value) {
  return typeof value === 'string' && /^[0-9a-f]{12}$/.test(value);
}

function isBrowser() {
  return typeof window !== 'undefined' && typeof globalThis.indexedDB !== 'undefined';
}

function optionError(message) {
  const error = new TypeError(message);
  error.code = 'FX_ADAPTER_INVALID';
  return error;
}

function checkStore(name, store, methods) {
  if (store === undefined || store === null) return;
  if (typeof store !== 'object' || methods.some((m) => typeof store[m] !== 'function')) {
    throw optionError(`${name} must be an object with ${methods.join(', ')} methods`);
  }
}

function randomOwner() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** How long one `embed` call may take before the fill-in counts it as failed. */
const EMBED_TIMEOUT_MS = 60_000;

/**
 * The host's embedder as the core calls it: `embed` always settles, within its deadline (the
 * longer of 60 s and the adapter timeout), to what the embedder gave or to an Error.
 */
function boundedEmbedder(embedder, adapterTimeoutMs) {
  const limit = Math.max(EMBED_TIMEOUT_MS, adapterTimeoutMs ?? 0);
  return {
    model: embedder.model,
    embed(texts) {
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`embed did not answer within ${limit} ms`)), limit);
      });
      return Promise.race([Promise.resolve().then(() => embedder.embed(texts)), late]).finally(() => clearTimeout(timer));
    },
  };
}

/** A promise that resolves when `signal` aborts (never without one). */
function aborted(signal) {
  if (!signal) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
}

/**
 * Creates the fxbot object. Options: `store` (an FxbotStore; IndexedDB in a browser, memory in
 * Node), `sessionStore` (the chats; same defaults), `fetch`, `libraryUrl(id)`, `env` (test-only
 * loopback overrides such as `FX_GATEWAY_CHAT_URL`), `adapterTimeoutMs`, `modelIdleTimeoutMs`,
 * `onEvent`, `wasm`, and for MCP sign-ins `oauthRedirectPath` (default `/oauth/callback`) and
 * `oauthClientMetadataUrl` (a client-id metadata document the host serves).
 */
export async function createFxbot(options = {}) {
  if (options === null || typeof options !== 'object') throw optionError('createFxbot options must be an object');
  if (options.fetch !== undefined && options.fetch !== null && typeof options.fetch !== 'function') {
    throw optionError('fetch must be a function (or undefined for globalThis.fetch)');
  }
  if (options.libraryUrl !== undefined && typeof options.libraryUrl !== 'function') {
    throw optionError('libraryUrl must be a function of the item id');
  }
  if (options.openUrl !== undefined && typeof options.openUrl !== 'function') {
    throw optionError('openUrl must be a function');
  }
  if (options.oauthRedirectPath !== undefined && !(typeof options.oauthRedirectPath === 'string' && options.oauthRedirectPath.startsWith('/'))) {
    throw optionError('oauthRedirectPath must be a path starting with /');
  }
  if (options.oauthClientMetadataUrl !== undefined && typeof options.oauthClientMetadataUrl !== 'string') {
    throw optionError('oauthClientMetadataUrl must be a URL string');
  }
  if (options.embedder !== undefined && !(options.embedder && typeof options.embedder === 'object' && typeof options.embedder.embed === 'function' && typeof options.embedder.model === 'string')) {
    throw optionError('embedder must be an object with a model name and an embed(texts) function');
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw optionError('onEvent must be a function');
  }
  if (options.owner !== undefined && !(typeof options.owner === 'string' && /^[\x21-\x7e]{1,64}$/.test(options.owner))) {
    throw optionError('owner must be 1 to 64 printable ASCII characters without spaces');
  }
  checkStore('store', options.store, ['load', 'commit', 'list', 'remove']);
  checkStore('sessionStore', options.sessionStore, ['load', 'commit', 'list', 'remove']);
  const env = normalizeEnv(options.env);
  const adapterTimeoutMs = normalizeAdapterTimeout(options.adapterTimeoutMs);
  const modelIdleTimeoutMs = normalizeModelIdleTimeout(options.modelIdleTimeoutMs);
  const browser = isBrowser();
  const ownStore = options.store ? null : browser ? indexedDbFxbotStore({ name: 'fxbot' }) : memoryFxbotStore();
  const store = options.store ?? ownStore;
  const sessionStore = options.sessionStore ?? (browser ? indexedDbSessionStore({ name: 'fxbot-sessions' }) : memorySessionStore());
  const onEvent = options.onEvent;
  const host = makeHost({
    fetch: options.fetch,
    env,
    adapterTimeoutMs,
    sessionStore,
    docStore: store,
    openUrl: options.openUrl,
    emit(type, detail) {
      try {
        onEvent?.({ type, ...detail });
      } catch {
        // A listener's failure is not ours to report.
      }
    },
    deliver() {},
  });
  const glue = await loadBot(options.wasm);
  const core = new glue.FxbotCore(host, {
    embedder: options.embedder ? boundedEmbedder(options.embedder, adapterTimeoutMs) : undefined,
    env,
    owner: options.owner ?? randomOwner(),
    libraryUrl: options.libraryUrl,
    modelIdleTimeoutMs,
  });
  let closed = false;

  const closedError = () => fxbotError('FXBOT_CLOSED', 'this fxbot was closed');

  // The first batch reads the chat from the store (another process's turns appear there);
  // every later one comes from the engine's memory: the kept replay and the live journal.
  async function* stream(botId, cursor, { sessionId, signal, follow = true } = {}) {
    let at = cursor;
    const stop = aborted(signal).then(() => false);
    if (signal?.aborted) return;
    let batch = await core.stream(botId, at, sessionId ?? undefined);
    for (;;) {
      for (const line of batch.lines) {
        if (signal?.aborted) return;
        at = line.cursor;
        yield line;
      }
      if (batch.end || (!follow && !batch.live)) return;
      const more = await Promise.race([core.wait(botId, at, batch.epoch), stop]);
      if (!more || signal?.aborted) return;
      batch = await core.follow(botId, at, batch.epoch);
    }
  }

  // A new or changed memory is searchable by meaning once the fill-in gives it a vector.
  const filled = (value) => {
    core.fill();
    return value;
  };

  const kinds = Object.freeze(core.kinds().map((k) => Object.freeze(k)));

  return {
    bots: {
      list: () => core.botsList(),
      get: (botId) => core.botsGet(botId),
      create: (fields) => core.botsCreate(fields ?? {}),
      update: (botId, patch) => core.botsUpdate(botId, patch),
      remove: (botId) => core.botsRemove(botId).then(() => undefined),
    },
    memories: {
      list: (botId) => core.memories('list', botId),
      add: (botId, text) => core.memories('add', botId, text).then(filled),
      update: (botId, memoryId, text) => core.memories('update', botId, memoryId, text).then(filled),
      remove: (botId, memoryId) => core.memories('remove', botId, memoryId).then(() => undefined),
      search: (botId, query, searchOptions) => core.memories('search', botId, query, searchOptions ?? {}),
    },
    chat: {
      send: (botId, message) => core.send(botId, message),
      stream: (botId, cursor, streamOptions) => stream(botId, cursor, streamOptions),
      async turns(botId, { sessionId } = {}) {
        const batch = await core.stream(botId, 0, sessionId ?? undefined);
        return turnsFromLines(batch.lines);
      },
      stop: (botId) => core.stop(botId),
      earlier: (botId) => core.earlier(botId),
    },
    providers: {
      kinds,
      list: () => core.providersList(),
      get: (providerId) => core.providersGet(providerId),
      add: (provider) => core.providersAdd(provider),
      update: (providerId, patch) => core.providersUpdate(providerId, patch),
      models: (providerId, modelsOptions) => core.providersModels(providerId, modelsOptions?.refresh === true),
      remove: (providerId) => core.providersRemove(providerId).then(() => undefined),
    },
    signIns: {
      start: (kind) => core.signInStart(kind),
      async get(signInId) {
        return core.signInGet(signInId);
      },
      async wait(signInId, { signal } = {}) {
        const cancelled = aborted(signal).then(() => {
          core.signInCancel(signInId);
          return core.signInWait(signInId);
        });
        return Promise.race([core.signInWait(signInId), cancelled]);
      },
      async cancel(signInId) {
        core.signInCancel(signInId);
      },
    },
    settings: {
      get: () => core.settingsGet(),
      async update(patch) {
        const settings = await core.settingsUpdate(patch);
        core.fill();
        return settings;
      },
      embedding: () => core.settingsEmbedding(),
    },
    library: {
      list: (filter) => core.libraryList(filter ?? {}),
      get: (itemId) => core.libraryGet(itemId),
      add: (upload, addOptions) => core.libraryAdd(upload, addOptions?.tags ?? null),
      async read(itemId) {
        const { name, type, data } = await core.libraryRead(itemId);
        const binary = atob(data);
        const bytes = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        return { name, type, bytes };
      },
      remove: (itemId) => core.libraryRemove(itemId).then(() => undefined),
    },
    addons: {
      list: () => core.addons('list'),
      get: (ref) => core.addons('get', ref),
      addSkill: (skill) => core.addons('addSkill', skill),
      addServer: (server) => core.addons('addServer', server),
      update: (ref, patch) => core.addons('update', ref, patch ?? {}),
      remove: (ref) => core.addons('remove', ref).then(() => undefined),
      refresh: (ref) => core.addons('refresh', ref),
      async oauth(ref, { origin } = {}) {
        // In a page the origin is the page's own: the server checks it against its host.
        if (browser && typeof origin === 'string' && origin !== globalThis.location?.origin) {
          throw fxbotError('FXBOT_BAD_REQUEST', `origin must be this page's origin (${globalThis.location?.origin}), not ${JSON.stringify(origin)}`);
        }
        return core.addons('oauth', ref, {
          origin,
          redirectPath: options.oauthRedirectPath,
          clientMetadataUrl: options.oauthClientMetadataUrl,
        });
      },
      completeOAuth: (callbackUrl) => core.addons('completeOAuth', callbackUrl),
    },
    async release(botId) {
      if (closed) throw closedError();
      await core.release(botId);
    },
    async close() {
      if (closed) return;
      closed = true;
      core.close();
      host.stop();
      await ownStore?.close?.();
    },
  };
}
