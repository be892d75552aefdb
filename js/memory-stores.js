// In-memory adapters: the default session store of createFxAgent, and stores for tests and
// Node hosts. Each keeps the same contract as its browser-backed sibling.

import { codedError } from './errors.js';

/**
 * Sessions in a Map: revisions "1", "2", … from one counter; `commit` is a compare-and-set
 * (`undefined` expects no record); `append` adds bytes at the end under the same check (our
 * extension of the contract: the agent hands it only what a commit adds); `list()` is newest
 * first. A record is a list of chunks (what `commit` wrote, then each `append`), joined when
 * it is loaded.
 */
export function memorySessionStore() {
  const records = new Map();
  let counter = 0;
  const check = (id, expectedRevision) => {
    const current = records.get(id);
    if ((current?.revision ?? undefined) !== (expectedRevision ?? undefined)) {
      throw codedError(
        'FX_SESSION_REVISION_CONFLICT',
        `session ${id} is at revision ${current?.revision ?? 'none'}, not ${expectedRevision ?? 'none'}`,
      );
    }
    return current;
  };
  const next = () => {
    counter += 1;
    return String(counter);
  };
  return {
    load(id) {
      const record = records.get(id);
      if (!record) return null;
      if (record.chunks.length > 1) record.chunks = [joinChunks(record.chunks)];
      return { bytes: record.chunks[0].slice(), revision: record.revision };
    },
    commit(id, bytes, expectedRevision) {
      check(id, expectedRevision);
      const revision = next();
      records.set(id, { chunks: [bytes.slice()], revision, updatedAtMs: Date.now() });
      return { revision };
    },
    append(id, bytes, expectedRevision) {
      if (expectedRevision === undefined || expectedRevision === null) {
        throw new TypeError('memorySessionStore.append(): expectedRevision must name the stored revision');
      }
      const current = check(id, expectedRevision);
      const revision = next();
      current.chunks.push(bytes.slice());
      current.revision = revision;
      current.updatedAtMs = Date.now();
      return { revision };
    },
    list() {
      return [...records.entries()]
        .map(([id, record]) => ({ id, updatedAtMs: record.updatedAtMs }))
        .sort((a, b) => b.updatedAtMs - a.updatedAtMs);
    },
    remove(id) {
      records.delete(id);
    },
  };
}

/** One Uint8Array holding `chunks` in order. */
function joinChunks(chunks) {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Config values in a Map (`get` returns null when unset). */
export function memoryConfigStore(initial = {}) {
  const values = new Map(Object.entries(initial));
  return {
    get(id) {
      return values.has(id) ? values.get(id) : null;
    },
    set(id, value) {
      values.set(id, value);
    },
  };
}

/**
 * Prompt history per workspace, oldest to newest: `duplicate` for a repeat of the latest entry,
 * `record_too_large` over `maxRecordBytes`, at most `maxEntries` kept per workspace.
 */
export function memoryPromptHistoryStore({ maxEntries = 1000, maxRecordBytes = 256 * 1024 } = {}) {
  const byWorkspace = new Map();
  const encoder = new TextEncoder();
  return {
    load(workspaceRoot, limit) {
      const entries = byWorkspace.get(workspaceRoot) ?? [];
      return entries.slice(Math.max(0, entries.length - limit));
    },
    append(workspaceRoot, value) {
      if (encoder.encode(value).length > maxRecordBytes) return 'record_too_large';
      const entries = byWorkspace.get(workspaceRoot) ?? [];
      if (entries[entries.length - 1] === value) return 'duplicate';
      entries.push(value);
      if (entries.length > maxEntries) entries.splice(0, entries.length - maxEntries);
      byWorkspace.set(workspaceRoot, entries);
      return undefined;
    },
    clear(workspaceRoot) {
      byWorkspace.delete(workspaceRoot);
    },
  };
}

/** One OAuth record with a revision; bytes are stored as given and never inspected. */
export function memoryOAuthSessionStore() {
  let record = null;
  let counter = 0;
  const conflict = (expected) =>
    codedError(
      'FX_OAUTH_SESSION_REVISION_CONFLICT',
      `oauth session is at revision ${record?.revision ?? 'none'}, not ${expected ?? 'none'}`,
    );
  return {
    load() {
      return record ? { bytes: record.bytes.slice(), revision: record.revision } : null;
    },
    commit(bytes, expectedRevision) {
      if ((record?.revision ?? undefined) !== (expectedRevision ?? undefined)) throw conflict(expectedRevision);
      counter += 1;
      record = { bytes: bytes.slice(), revision: String(counter) };
      return { revision: record.revision };
    },
    remove(expectedRevision) {
      if (!record) return 'missing';
      if (expectedRevision !== undefined && record.revision !== expectedRevision) throw conflict(expectedRevision);
      record = null;
      return true;
    },
  };
}
