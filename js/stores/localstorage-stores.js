// configStore and promptHistoryStore over Web Storage (localStorage by default, or any object
// with getItem/setItem/removeItem). Config values are stored verbatim under `<prefix><id>`;
// prompt history is a JSON array of strings per workspace, oldest first.

import { codedError } from '../errors.js';

function resolveStorage(store, injected) {
  let storage = injected;
  if (storage === undefined) {
    try {
      storage = globalThis.localStorage;
    } catch {
      // Storage disabled for this document (opaque origin, blocked cookies): reported below.
      storage = undefined;
    }
  }
  if (
    !storage ||
    typeof storage.getItem !== 'function' ||
    typeof storage.setItem !== 'function' ||
    typeof storage.removeItem !== 'function'
  ) {
    throw codedError(
      'FX_STORE_UNAVAILABLE',
      `${store}: localStorage is not available here; pass { storage } or use a memory store`,
    );
  }
  return storage;
}

function requirePrefix(store, prefix) {
  if (typeof prefix !== 'string') throw new TypeError(`${store}: prefix must be a string`);
}

function requireString(store, method, what, value) {
  if (typeof value !== 'string') {
    throw new TypeError(`${store}.${method}(): ${what} must be a string`);
  }
}

const CONFIG = 'localStorageConfigStore';

/** Config values under `<prefix><id>` (default prefix `fx.core.config.`); `get` gives null when unset. */
export function localStorageConfigStore({ prefix = 'fx.core.config.', storage } = {}) {
  requirePrefix(CONFIG, prefix);
  const backing = resolveStorage(CONFIG, storage);
  return {
    get(id) {
      requireString(CONFIG, 'get', 'the config id', id);
      return backing.getItem(prefix + id);
    },
    set(id, value) {
      requireString(CONFIG, 'set', 'the config id', id);
      requireString(CONFIG, 'set', 'the value', value);
      backing.setItem(prefix + id, value);
    },
  };
}

const HISTORY = 'localStoragePromptHistoryStore';

function isQuotaError(err) {
  return (
    err?.name === 'QuotaExceededError' ||
    err?.name === 'NS_ERROR_DOM_QUOTA_REACHED' ||
    err?.code === 22 ||
    err?.code === 1014
  );
}

function positiveInteger(what, value) {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${HISTORY}: ${what} must be a positive integer`);
  }
}

/**
 * Prompt history per workspace under `<prefix><workspaceRoot>` (default prefix
 * `fx.term.history.`), oldest to newest. `append` returns `"duplicate"` when the value equals the
 * latest entry, `"record_too_large"` when it is over `maxRecordBytes` UTF-8 bytes (default
 * 256 KiB), and keeps at most `maxEntries` entries per workspace (default 100), dropping the
 * oldest; when storage is full it drops older entries rather than the new one. A stored value
 * that is not a JSON array of strings reads as empty and is replaced on the next append.
 */
export function localStoragePromptHistoryStore({
  prefix = 'fx.term.history.',
  maxEntries = 100,
  maxRecordBytes = 256 * 1024,
  storage,
} = {}) {
  requirePrefix(HISTORY, prefix);
  positiveInteger('maxEntries', maxEntries);
  positiveInteger('maxRecordBytes', maxRecordBytes);
  const backing = resolveStorage(HISTORY, storage);
  const encoder = new TextEncoder();

  const read = (workspaceRoot) => {
    const raw = backing.getItem(prefix + workspaceRoot);
    if (raw === null || raw === undefined) return [];
    try {
      const parsed = JSON.parse(raw);
      return Array.isArray(parsed) ? parsed.filter((entry) => typeof entry === 'string') : [];
    } catch {
      return [];
    }
  };

  const write = (workspaceRoot, entries) => {
    let kept = entries;
    for (;;) {
      try {
        backing.setItem(prefix + workspaceRoot, JSON.stringify(kept));
        return;
      } catch (err) {
        // Full: give up the older half and try again, down to the newest entry alone.
        if (!isQuotaError(err) || kept.length <= 1) throw err;
        kept = kept.slice(Math.ceil(kept.length / 2));
      }
    }
  };

  return {
    load(workspaceRoot, limit) {
      requireString(HISTORY, 'load', 'the workspace root', workspaceRoot);
      const entries = read(workspaceRoot);
      const count = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : entries.length;
      return entries.slice(Math.max(0, entries.length - count));
    },
    append(workspaceRoot, value) {
      requireString(HISTORY, 'append', 'the workspace root', workspaceRoot);
      requireString(HISTORY, 'append', 'the value', value);
      if (encoder.encode(value).length > maxRecordBytes) return 'record_too_large';
      const entries = read(workspaceRoot);
      if (entries.length > 0 && entries[entries.length - 1] === value) return 'duplicate';
      entries.push(value);
      write(workspaceRoot, entries.slice(Math.max(0, entries.length - maxEntries)));
      return undefined;
    },
    clear(workspaceRoot) {
      requireString(HISTORY, 'clear', 'the workspace root', workspaceRoot);
      backing.removeItem(prefix + workspaceRoot);
    },
  };
}
