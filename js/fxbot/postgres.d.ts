// Types of fx-wasm/fxbot/postgres: fxbot's stores on Postgres (issue 23).

import type { FxbotStore } from './stores.js';

/** What both PGlite and pg's Pool (or Client) give: one statement with $n parameters. */
export interface PostgresQueryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

export interface PostgresStoreOptions {
  /** Prefix of the table names (default `fxbot`): `<prefix>_docs`, `<prefix>_sessions`, ... */
  prefix?: string;
}

/** The schema version this fx-wasm writes (a `<prefix>_schema_version` row holds the database's). */
export const SCHEMA_VERSION: number;

/** FxbotStore on Postgres: each compare-and-set one statement, revisions from one sequence. */
export interface PostgresFxbotStore extends FxbotStore {
  load(key: string): Promise<{ bytes: Uint8Array; revision: string } | null>;
  commit(key: string, bytes: Uint8Array, expectedRevision: string | undefined): Promise<{ revision: string }>;
  list(prefix: string): Promise<Array<{ key: string; revision: string }>>;
  remove(key: string, expectedRevision?: string): Promise<boolean>;
}

/** The session store (as memorySessionStore), `append` one insert of the new chunk. */
export interface PostgresSessionStore {
  load(id: string): Promise<{ bytes: Uint8Array; revision: string } | null>;
  commit(id: string, bytes: Uint8Array, expectedRevision: string | undefined): Promise<{ revision: string }>;
  append(id: string, bytes: Uint8Array, expectedRevision: string): Promise<{ revision: string }>;
  list(): Promise<Array<{ id: string; updatedAtMs: number }>>;
  remove(id: string): Promise<void>;
}

export function postgresFxbotStore(db: PostgresQueryable, options?: PostgresStoreOptions): PostgresFxbotStore;
export function postgresSessionStore(db: PostgresQueryable, options?: PostgresStoreOptions): PostgresSessionStore;
