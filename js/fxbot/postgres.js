// fx-wasm/fxbot/postgres: fxbot's stores on Postgres (issue 23), over one small interface that
// PGlite (`new PGlite(dir)`) and pg's `Pool` both satisfy: `query(sql, params) =>
// Promise<{ rows }>`. Neither is a dependency of the package: the host passes its own.
//
// Every write is ONE statement, so it is atomic without a transaction (a Pool may run each query
// on another connection): a compare-and-set is an UPDATE ... WHERE revision = $expected (or an
// INSERT ... ON CONFLICT DO NOTHING for "must not exist"), which Postgres serializes per row
// across connections and processes. Revisions come from one sequence: unique and never reused.
//
// Schema: `<prefix>_schema_version` (one row per store kind and its version), `<prefix>_docs`
// (key, bytes, revision), `<prefix>_sessions` (id, revision, gen, chunks, updated_at_ms) and
// `<prefix>_session_chunks` (id, gen, seq, bytes). A session's bytes are its chunks of the
// current generation in order: `commit` starts a generation (chunk 0) and drops the older ones,
// `append` inserts chunk n and moves the head on, in the same statement. Created on first use.
// Migration path: MIGRATIONS[v] takes a database from version v to v + 1; the first call of a
// store applies the missing ones, each moving the version row on by compare-and-set (a second
// process that lost the race finds the work done); a database newer than this code is refused.

import { codedError } from '../errors.js';

const DOC_CONFLICT = 'FXBOT_STORE_REVISION_CONFLICT';
const MAX_KEY_LENGTH = 1024;

/** The migrations, in order; `SCHEMA_VERSION` is how many there are. */
const MIGRATIONS = [
  (t) => [
    `CREATE SEQUENCE IF NOT EXISTS ${t.seq}`,
    `CREATE TABLE IF NOT EXISTS ${t.docs} (key text COLLATE "C" PRIMARY KEY, bytes bytea NOT NULL, revision bigint NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${t.sessions} (id text PRIMARY KEY, revision bigint NOT NULL, gen bigint NOT NULL, chunks integer NOT NULL, updated_at_ms bigint NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${t.chunks} (id text NOT NULL, gen bigint NOT NULL, seq integer NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (id, gen, seq))`,
    `CREATE INDEX IF NOT EXISTS ${t.prefix}_sessions_updated ON ${t.sessions} (updated_at_ms DESC)`,
  ],
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

function tables(prefix) {
  if (typeof prefix !== 'string' || !/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw new TypeError('prefix must be 1 to 41 lowercase letters, digits or underscores, not starting with a digit');
  }
  return {
    prefix,
    version: `${prefix}_schema_version`,
    seq: `${prefix}_revision`,
    docs: `${prefix}_docs`,
    sessions: `${prefix}_sessions`,
    chunks: `${prefix}_session_chunks`,
  };
}

function checkDb(name, db) {
  if (db === null || typeof db !== 'object' || typeof db.query !== 'function') {
    throw new TypeError(`${name}(db): db must have query(sql, params) => Promise<{ rows }> (a PGlite or a pg Pool)`);
  }
}

function failed(store, what, cause) {
  return codedError('FX_STORE_FAILED', `${store}: ${what}${cause?.message ? `: ${cause.message}` : ''}`, cause);
}

/** One statement; a failure of the database is FX_STORE_FAILED. */
async function run(store, db, sql, params = []) {
  let result;
  try {
    result = await db.query(sql, params);
  } catch (error) {
    throw failed(store, 'the database refused a query', error);
  }
  if (!result || !Array.isArray(result.rows)) throw failed(store, 'query() did not resolve to { rows }');
  return result.rows;
}

/** Creates or migrates the schema once per (db, prefix); later calls wait on the same promise. */
const ready = new WeakMap();
function ensureSchema(store, db, t) {
  let byPrefix = ready.get(db);
  if (!byPrefix) {
    byPrefix = new Map();
    ready.set(db, byPrefix);
  }
  let promise = byPrefix.get(t.prefix);
  if (!promise) {
    promise = migrate(store, db, t);
    byPrefix.set(t.prefix, promise);
    promise.catch(() => byPrefix.delete(t.prefix));
  }
  return promise;
}

async function migrate(store, db, t) {
  // Two processes creating the same table at once may see a catalog race: run it again.
  for (let attempt = 0; ; attempt++) {
    try {
      await run(store, db, `CREATE TABLE IF NOT EXISTS ${t.version} (name text PRIMARY KEY, version integer NOT NULL)`);
      await run(store, db, `INSERT INTO ${t.version} (name, version) VALUES ('fxbot', 0) ON CONFLICT (name) DO NOTHING`);
      for (;;) {
        const [row] = await run(store, db, `SELECT version FROM ${t.version} WHERE name = 'fxbot'`);
        const version = Number(row?.version);
        if (!Number.isInteger(version) || version < 0) throw failed(store, `the schema version row is damaged (${row?.version})`);
        if (version > SCHEMA_VERSION) {
          throw failed(store, `the database is at schema version ${version}, newer than this fx-wasm knows (${SCHEMA_VERSION}); update fx-wasm`);
        }
        if (version === SCHEMA_VERSION) return;
        for (const sql of MIGRATIONS[version](t)) await run(store, db, sql);
        await run(store, db, `UPDATE ${t.version} SET version = $1 WHERE name = 'fxbot' AND version = $2`, [version + 1, version]);
      }
    } catch (error) {
      if (attempt >= 3 || error?.message?.includes('newer than this fx-wasm')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1)));
    }
  }
}

/** A Uint8Array of exactly these bytes (pg gives Buffers; both may share a larger buffer). */
function ownBytes(value) {
  if (!ArrayBuffer.isView(value)) return null;
  return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
}

function checkBytes(store, method, bytes) {
  if (!ArrayBuffer.isView(bytes) || bytes[Symbol.toStringTag] !== 'Uint8Array') {
    throw new TypeError(`${store}.${method}(): bytes must be a Uint8Array`);
  }
  return new Uint8Array(bytes);
}

function checkKey(store, method, key) {
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH) {
    throw new TypeError(`${store}.${method}(): the key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters`);
  }
}

function checkExpected(store, method, expected) {
  const value = expected ?? undefined;
  if (value !== undefined && typeof value !== 'string') {
    throw new TypeError(`${store}.${method}(): expectedRevision must be a string or undefined`);
  }
  return value;
}

/**
 * The FxbotStore on Postgres: the same compare-and-set contract as memoryFxbotStore and
 * indexedDbFxbotStore (a stale revision throws FXBOT_STORE_REVISION_CONFLICT and writes
 * nothing), `list(prefix)` sorted by key as JavaScript sorts strings. Options: `prefix` of the
 * table names (default `fxbot`; separate prefixes are separate stores in one database).
 */
export function postgresFxbotStore(db, { prefix = 'fxbot' } = {}) {
  const STORE = 'postgresFxbotStore';
  checkDb(STORE, db);
  const t = tables(prefix);
  const q = async (sql, params) => {
    await ensureSchema(STORE, db, t);
    return run(STORE, db, sql, params);
  };
  const current = async (key) => (await q(`SELECT revision::text AS revision FROM ${t.docs} WHERE key = $1`, [key]))[0]?.revision;
  const conflict = async (key, expected) => {
    const actual = await current(key);
    return codedError(DOC_CONFLICT, `${key} is at revision ${actual ?? 'none'}, not ${expected ?? 'none'}`);
  };

  return {
    async load(key) {
      checkKey(STORE, 'load', key);
      const [row] = await q(`SELECT bytes, revision::text AS revision FROM ${t.docs} WHERE key = $1`, [key]);
      if (!row) return null;
      const bytes = ownBytes(row.bytes);
      if (!bytes || typeof row.revision !== 'string') throw failed(STORE, `the stored record ${key} is damaged`);
      return { bytes, revision: row.revision };
    },

    async commit(key, bytes, expectedRevision) {
      checkKey(STORE, 'commit', key);
      const copy = checkBytes(STORE, 'commit', bytes);
      const expected = checkExpected(STORE, 'commit', expectedRevision);
      const rows =
        expected === undefined
          ? await q(
              `INSERT INTO ${t.docs} (key, bytes, revision) VALUES ($1, $2, nextval('${t.seq}')) ON CONFLICT (key) DO NOTHING RETURNING revision::text AS revision`,
              [key, copy],
            )
          : await q(
              `UPDATE ${t.docs} SET bytes = $2, revision = nextval('${t.seq}') WHERE key = $1 AND revision::text = $3 RETURNING revision::text AS revision`,
              [key, copy, expected],
            );
      if (rows.length !== 1) throw await conflict(key, expected);
      return { revision: rows[0].revision };
    },

    async list(prefixOfKeys) {
      if (typeof prefixOfKeys !== 'string') throw new TypeError(`${STORE}.list(): the prefix must be a string`);
      const rows = await q(`SELECT key, revision::text AS revision FROM ${t.docs} WHERE starts_with(key, $1)`, [prefixOfKeys]);
      // JavaScript's order (UTF-16 code units), which no collation of Postgres gives exactly.
      return rows
        .map(({ key, revision }) => ({ key, revision }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async remove(key, expectedRevision) {
      checkKey(STORE, 'remove', key);
      const expected = checkExpected(STORE, 'remove', expectedRevision);
      if (expected === undefined) {
        return (await q(`DELETE FROM ${t.docs} WHERE key = $1 RETURNING 1 AS gone`, [key])).length === 1;
      }
      const rows = await q(`DELETE FROM ${t.docs} WHERE key = $1 AND revision::text = $2 RETURNING 1 AS gone`, [key, expected]);
      if (rows.length !== 1) throw await conflict(key, expected);
      return true;
    },
  };
}

/**
 * The session store on Postgres: the contract of memorySessionStore and indexedDbSessionStore
 * (`commit` a compare-and-set, `undefined` expecting no record; `append` one INSERT of the new
 * chunk under the same check; a stale revision throws FX_SESSION_REVISION_CONFLICT and writes
 * nothing; `list()` newest first). Options: `prefix` (as postgresFxbotStore's; one prefix holds
 * both stores).
 */
export function postgresSessionStore(db, { prefix = 'fxbot' } = {}) {
  const STORE = 'postgresSessionStore';
  checkDb(STORE, db);
  const t = tables(prefix);
  const q = async (sql, params) => {
    await ensureSchema(STORE, db, t);
    return run(STORE, db, sql, params);
  };
  const requireId = (method, id) => {
    if (typeof id !== 'string' || id === '') throw new TypeError(`${STORE}.${method}(): the id must be a non-empty string`);
  };
  const conflict = async (id, expected) => {
    const [row] = await q(`SELECT revision::text AS revision FROM ${t.sessions} WHERE id = $1`, [id]);
    return codedError(
      'FX_SESSION_REVISION_CONFLICT',
      `session ${id} is at revision ${row?.revision ?? 'none'}, not ${expected ?? 'none'}`,
    );
  };

  return {
    async load(id) {
      requireId('load', id);
      // One statement: the head and its chunks from one snapshot.
      const rows = await q(
        `SELECT h.revision::text AS revision, h.chunks, c.seq, c.bytes FROM ${t.sessions} h
         LEFT JOIN ${t.chunks} c ON c.id = h.id AND c.gen = h.gen WHERE h.id = $1 ORDER BY c.seq`,
        [id],
      );
      if (rows.length === 0) return null;
      const { revision, chunks } = rows[0];
      const parts = rows.filter((r) => r.seq !== null && r.seq !== undefined);
      if (parts.length !== Number(chunks) || parts.some((r, i) => Number(r.seq) !== i || !ArrayBuffer.isView(r.bytes))) {
        throw failed(STORE, `the stored session ${id} is damaged (${parts.length} of ${chunks} chunks); nothing was loaded`);
      }
      const out = new Uint8Array(parts.reduce((n, r) => n + r.bytes.byteLength, 0));
      let offset = 0;
      for (const r of parts) {
        out.set(r.bytes, offset);
        offset += r.bytes.byteLength;
      }
      return { bytes: out, revision };
    },

    async commit(id, bytes, expectedRevision) {
      requireId('commit', id);
      const copy = checkBytes(STORE, 'commit', bytes);
      const expected = checkExpected(STORE, 'commit', expectedRevision);
      const now = Date.now();
      const head =
        expected === undefined
          ? `WITH r AS (SELECT nextval('${t.seq}') AS v),
             head AS (INSERT INTO ${t.sessions} (id, revision, gen, chunks, updated_at_ms)
               SELECT $1::text, v, v, 1, $3::bigint FROM r ON CONFLICT (id) DO NOTHING RETURNING id, revision, gen)`
          : `WITH r AS (SELECT nextval('${t.seq}') AS v),
             head AS (UPDATE ${t.sessions} SET revision = r.v, gen = r.v, chunks = 1, updated_at_ms = $3::bigint FROM r
               WHERE id = $1 AND revision::text = $4::text RETURNING id, revision, gen)`;
      const rows = await q(
        `${head},
         dropped AS (DELETE FROM ${t.chunks} WHERE id = $1::text AND EXISTS (SELECT 1 FROM head)),
         added AS (INSERT INTO ${t.chunks} (id, gen, seq, bytes) SELECT id, gen, 0, $2::bytea FROM head)
         SELECT revision::text AS revision FROM head`,
        expected === undefined ? [id, copy, now] : [id, copy, now, expected],
      );
      if (rows.length !== 1) throw await conflict(id, expected);
      return { revision: rows[0].revision };
    },

    async append(id, bytes, expectedRevision) {
      requireId('append', id);
      const copy = checkBytes(STORE, 'append', bytes);
      if (expectedRevision === undefined || expectedRevision === null) {
        throw new TypeError(`${STORE}.append(): expectedRevision must name the stored revision`);
      }
      const expected = checkExpected(STORE, 'append', expectedRevision);
      const rows = await q(
        `WITH head AS (UPDATE ${t.sessions} SET revision = nextval('${t.seq}'), chunks = chunks + 1, updated_at_ms = $3::bigint
           WHERE id = $1::text AND revision::text = $4::text RETURNING id, gen, chunks - 1 AS seq, revision),
         added AS (INSERT INTO ${t.chunks} (id, gen, seq, bytes) SELECT id, gen, seq, $2::bytea FROM head)
         SELECT revision::text AS revision FROM head`,
        [id, copy, Date.now(), expected],
      );
      if (rows.length !== 1) throw await conflict(id, expected);
      return { revision: rows[0].revision };
    },

    async list() {
      const rows = await q(`SELECT id, updated_at_ms::float8 AS updated FROM ${t.sessions} ORDER BY updated_at_ms DESC, id`);
      return rows.map((r) => ({ id: r.id, updatedAtMs: Number(r.updated) }));
    },

    async remove(id) {
      requireId('remove', id);
      await q(
        `WITH head AS (DELETE FROM ${t.sessions} WHERE id = $1::text RETURNING id) DELETE FROM ${t.chunks} WHERE id = $1::text`,
        [id],
      );
    },
  };
}
