// Types of fxbot's document stores (fxbot DESIGN §5.1).

/** A value that may be returned directly or as a promise. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Keys to bytes with revisions, the store every fxbot record but the chats lives in. `commit`
 * is a compare-and-set: `expectedRevision` `undefined` means "must not exist yet"; a stale one
 * throws an Error whose `code` is `FXBOT_STORE_REVISION_CONFLICT` and writes nothing.
 */
export interface FxbotStore {
  load(key: string): MaybePromise<{ bytes: Uint8Array; revision: string } | null>;
  commit(key: string, bytes: Uint8Array, expectedRevision: string | undefined): MaybePromise<{ revision: string }>;
  /** Every key starting with `prefix` (`""` for all), sorted by key. */
  list(prefix: string): MaybePromise<Array<{ key: string; revision: string }>>;
  /**
   * Removes `key`; with `expectedRevision`, only at that revision (else the conflict error).
   * The ready-made stores resolve to whether a record was removed.
   */
  remove(key: string, expectedRevision?: string): MaybePromise<void | boolean>;
}

/** The in-memory store: synchronous, revisions "1", "2", …, bytes copied in and out. */
export interface MemoryFxbotStore extends FxbotStore {
  load(key: string): { bytes: Uint8Array; revision: string } | null;
  commit(key: string, bytes: Uint8Array, expectedRevision: string | undefined): { revision: string };
  list(prefix: string): Array<{ key: string; revision: string }>;
  remove(key: string, expectedRevision?: string): boolean;
}

/** The in-memory store (Node's default). */
export function memoryFxbotStore(): MemoryFxbotStore;

export interface IndexedDbFxbotStoreOptions {
  /** The database name (default `fxbot`); separate names are separate stores. */
  name?: string;
  /** The IndexedDB factory (default `globalThis.indexedDB`). */
  indexedDB?: IDBFactory;
}

/** The IndexedDB store: one database, each compare-and-set in one readwrite transaction. */
export interface IndexedDbFxbotStore extends FxbotStore {
  load(key: string): Promise<{ bytes: Uint8Array; revision: string } | null>;
  commit(key: string, bytes: Uint8Array, expectedRevision: string | undefined): Promise<{ revision: string }>;
  list(prefix: string): Promise<Array<{ key: string; revision: string }>>;
  remove(key: string, expectedRevision?: string): Promise<boolean>;
  /** Closes the connection (the next call re-opens it). */
  close(): Promise<void>;
}

/** The IndexedDB store (a browser's default). */
export function indexedDbFxbotStore(options?: IndexedDbFxbotStoreOptions): IndexedDbFxbotStore;
