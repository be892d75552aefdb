// Type declarations for fx-wasm. Hand-written: every public member is documented here.

/**
 * Where a WebAssembly artifact comes from: a URL (string or `URL`; `file:` URLs and paths are
 * read from disk in Node), a `Response`, the bytes, a compiled `WebAssembly.Module`, or a
 * Promise of any of these.
 */
export type WasmSource =
  | string
  | URL
  | Response
  | ArrayBuffer
  | ArrayBufferView
  | WebAssembly.Module
  | Promise<string | URL | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module>;

/**
 * Sets where `fx-core.wasm` is loaded from. By default it is the file next to this module
 * (fetched in browsers, read from disk in Node). Call before the first session function; once
 * loaded, the module stays.
 *
 * @throws {TypeError} when `source` is not one of the {@link WasmSource} forms.
 */
export function setWasm(source: WasmSource): void;

/** An error raised by fx. `code` is stable and meant for branching; `message` is for people. */
export interface FxError extends Error {
  name: 'FxError';
  /** `FX_SESSION_INVALID` when session bytes or a session directory cannot be loaded. */
  code: 'FX_SESSION_INVALID' | (string & {});
}

/** The model preferences a session carries. */
export interface SessionPreferences {
  /** Model id, e.g. `anthropic/claude-sonnet-4.5`. */
  model: string;
  /** Reasoning effort: `auto`, or a level name such as `low`, `medium`, `high`. */
  effort: string;
  fastMode: boolean;
  provider: 'gateway' | 'codex' | 'grok';
}

/** The session's usage snapshot (billing view; may lag the token totals while billing is pending). */
export interface SessionUsage {
  billing: 'complete' | 'pending' | 'incomplete' | 'legacy';
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** In US dollars. */
  totalCost: number;
  apiDurationMs: number;
  wallDurationMs: number;
}

/** An image attached to a user message. */
export interface SessionImage {
  /** Position of the image in the session (`[Image #id]`), from 1. */
  id: number;
  /** Where the image was picked from. */
  path: string;
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  /** The stored copy, `images/image-<id>-<hash>.bin`, or null when none was kept. */
  snapshotPath: string | null;
  /** SHA-256 (lowercase hex) of the stored copy, or null. */
  snapshotSha256: string | null;
}

/** What the user sent to start a turn. */
export interface UserMessage {
  text: string;
  images: SessionImage[];
}

/** A tool call made by the model. */
export interface ToolCall {
  id: string;
  /** Tool name: `terminal` in the browser; the fx CLI has others (`read_file`, ...). */
  name: string;
  /** The arguments exactly as the model wrote them (JSON text). */
  argumentsJson: string;
}

/** The recorded result of a tool call. */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  status: 'success' | 'failure';
  /** What the model saw: the tool's output, or a JSON error document on failure. */
  output: string;
  /** Size of the full output in bytes (the stored `output` may be a preview of it). */
  outputBytes: number;
  truncated: boolean;
  /** The exit code of the command the tool ran, when it ran one and it exited. */
  exitCode: number | null;
}

/** One model step that issued tool calls, with their results. */
export interface ToolStep {
  /** Text the model wrote before the calls, if any. */
  assistant: string | null;
  toolCalls: ToolCall[];
  toolResults: ToolResult[];
}

/** A file a turn's tools read or changed. */
export interface TouchedFile {
  path: string;
  /** `read`, `write`, `edit`, `delete`, `rename`, `copy`, `search`, `list` or `unknown`. */
  action: string;
  status: 'success' | 'failure';
  toolName: string;
}

/** A completed turn: the user's message, the tool steps, and the final answer. */
export interface AssistantTurn {
  kind: 'assistant';
  user: UserMessage;
  steps: ToolStep[];
  /** The final answer (may be empty). */
  assistant: string;
  files: TouchedFile[];
}

/** A turn that stopped before its answer (cancelled by the user, or failed). */
export interface InterruptedTurn {
  kind: 'interrupted';
  user: UserMessage;
  steps: ToolStep[];
  /** Partial answer text, if any was streamed. */
  assistant: string | null;
  /** Why the turn stopped. */
  reason: 'cancelled' | 'failed';
  /** The tool call in flight when the turn stopped, if any. */
  toolCall: ToolCall | null;
  completedToolNames: string[];
}

/** A turn that started a background command (fx CLI). */
export interface BackgroundCommandTurn {
  kind: 'background_command';
  user: UserMessage;
  steps: ToolStep[];
  assistant: string | null;
  logPath: string;
  url: string | null;
}

/** Older turns folded into a summary. */
export interface CompactedSummaryTurn {
  kind: 'compacted_summary';
  summary: string;
  removedTurnCount: number;
}

export type SessionTurn = AssistantTurn | InterruptedTurn | BackgroundCommandTurn | CompactedSummaryTurn;

/** A turn that failed on a provider error and waits to be continued (kept across reloads). */
export interface PendingRecovery {
  turnId: number;
  user: UserMessage;
  /** The answer text streamed so far. */
  assistant: string;
  steps: ToolStep[];
  /** e.g. `network_interrupted`, `rate_limited`. */
  cause: string;
  /** e.g. `retrying_request`, `paused`. */
  action: string;
}

/** A plain view of a session, as {@link readSession} returns it. */
export interface SessionView {
  /** Session id, `<ms>-<ns>-<16 hex>`. */
  id: string;
  /** The workspace the session belongs to now. */
  workspaceRoot: string;
  /** The workspace the session was started in. */
  originWorkspaceRoot: string;
  createdAtMs: number;
  updatedAtMs: number;
  /** Display title (from the first user message; `Untitled session` when there is none). */
  title: string;
  /** Display preview, or null. */
  preview: string | null;
  /** e.g. `und`, `und-Latn`, `ja`. */
  conversationLanguage: string;
  preferences: SessionPreferences;
  /** Cumulative input tokens over the session. */
  totalInputTokens: number;
  /** Cumulative output tokens over the session. */
  totalOutputTokens: number;
  /** Index of the first turn still sent to the model (earlier ones were compacted away). */
  contextHistoryStart: number;
  usage: SessionUsage;
  turns: SessionTurn[];
  /** A turn waiting to be continued, or null. */
  recovery: PendingRecovery | null;
}

/**
 * Loads session bytes (what a `sessionStore` holds: fx's `events.jsonl` event log) strictly and
 * returns a plain view of the session.
 *
 * @throws {TypeError} (rejects) when `bytes` is not a `Uint8Array`.
 * @throws {FxError} (rejects) with code `FX_SESSION_INVALID` when the bytes are not a valid
 *   session log; the message names the seq and the reason.
 */
export function readSession(bytes: Uint8Array): Promise<SessionView>;

/**
 * Builds session bytes from the files of a native fx session directory, keyed by path relative
 * to the directory (`events.jsonl`, `session.json`, `images/image-1-….bin`, ...).
 *
 * @throws {TypeError} (rejects) when `files` is not an object of `Uint8Array`s.
 * @throws {FxError} (rejects) with code `FX_SESSION_INVALID` when the directory does not hold a
 *   loadable session.
 */
export function importNativeSession(files: Record<string, Uint8Array>): Promise<Uint8Array>;

/**
 * Writes the native fx session directory for session bytes: the files the fx CLI needs to load
 * the session, keyed by relative path.
 *
 * @throws {TypeError} (rejects) when `bytes` is not a `Uint8Array`.
 * @throws {FxError} (rejects) with code `FX_SESSION_INVALID` when the bytes are not a valid
 *   session log.
 */
export function exportNativeSession(bytes: Uint8Array): Promise<Record<string, Uint8Array>>;

// ---- Storage adapters: the contracts and the ready-made stores ----------------------------

/** A value, or a Promise of it: adapter methods may be synchronous or asynchronous. */
export type MaybePromise<T> = T | Promise<T>;

/** A stored blob and its revision, as `load()` returns it. */
export interface StoredRecord {
  bytes: Uint8Array;
  /** Opaque; at most 1024 bytes of UTF-8. */
  revision: string;
}

/**
 * Where sessions live: opaque bytes (fx's `events.jsonl` log) under an id, with optimistic
 * revisions. A commit whose `expectedRevision` is not the stored one (`undefined` = "no record
 * yet") must throw an Error whose `code` is `FX_SESSION_REVISION_CONFLICT` and write nothing.
 */
export interface SessionStore {
  load(id: string): MaybePromise<StoredRecord | null>;
  commit(id: string, bytes: Uint8Array, expectedRevision: string | undefined): MaybePromise<{ revision: string }>;
  /** Newest first by `updatedAtMs` (an integer, milliseconds since the epoch). */
  list(): MaybePromise<Array<{ id: string; updatedAtMs: number }>>;
  remove(id: string): MaybePromise<void>;
}

/** Settings such as `model` and `mode`, as strings; `get` gives null when unset. */
export interface ConfigStore {
  get(configId: string): MaybePromise<string | null | undefined>;
  set(configId: string, value: string): MaybePromise<void>;
}

/**
 * Prompt recall per workspace. `load` gives the last `limit` entries, oldest first. `append`
 * returns `"duplicate"` when `value` equals the latest entry and `"record_too_large"` when it
 * declines to store it; anything else means appended.
 */
export interface PromptHistoryStore {
  load(workspaceRoot: string, limit: number): MaybePromise<string[]>;
  append(
    workspaceRoot: string,
    value: string,
    timestampMs: number,
  ): MaybePromise<void | 'duplicate' | 'record_too_large'>;
  clear(workspaceRoot: string): MaybePromise<void>;
}

/**
 * The one device-login record. Its bytes hold token material: store them as given, never parse
 * or log them. Stale revisions throw an Error with code `FX_OAUTH_SESSION_REVISION_CONFLICT`.
 */
export interface OAuthSessionStore {
  load(): MaybePromise<StoredRecord | null>;
  commit(bytes: Uint8Array, expectedRevision: string | undefined): MaybePromise<{ revision: string }>;
  /** `"missing"` (or `false`) when nothing was stored; `undefined` removes whatever is there. */
  remove(expectedRevision: string | undefined): MaybePromise<void | boolean | 'missing'>;
}

/**
 * An error a store throws. `FX_SESSION_REVISION_CONFLICT` / `FX_OAUTH_SESSION_REVISION_CONFLICT`:
 * a stale revision, nothing written. `FX_STORE_UNAVAILABLE`: the storage is missing or cannot be
 * opened. `FX_STORE_FAILED`: an IndexedDB transaction failed (quota, disk).
 */
export interface FxStoreError extends Error {
  name: 'FxStoreError';
  code:
    | 'FX_SESSION_REVISION_CONFLICT'
    | 'FX_OAUTH_SESSION_REVISION_CONFLICT'
    | 'FX_STORE_UNAVAILABLE'
    | 'FX_STORE_FAILED';
}

/** A store with an IndexedDB connection it can release (the next call re-opens it). */
export interface ClosableStore {
  close(): Promise<void>;
}

export interface IndexedDbStoreOptions {
  /** The IndexedDB database name; one database per name. */
  name?: string;
  /** The factory to use instead of `globalThis.indexedDB`. */
  indexedDB?: IDBFactory;
}

/**
 * Sessions in IndexedDB (database `name`, default `fx.sessions`). `commit` is one readwrite
 * transaction that compares and writes, so two tabs racing on a revision cannot both win.
 * Revisions are opaque and unique; `list()` reads an index, newest first.
 *
 * @throws {FxStoreError} `FX_STORE_UNAVAILABLE` when there is no IndexedDB.
 */
export function indexedDbSessionStore(options?: IndexedDbStoreOptions): SessionStore & ClosableStore;

/**
 * The device-login record in IndexedDB (database `name`, default `fx.oauth`), revisioned like
 * {@link indexedDbSessionStore}.
 *
 * @throws {FxStoreError} `FX_STORE_UNAVAILABLE` when there is no IndexedDB.
 */
export function indexedDbOAuthSessionStore(options?: IndexedDbStoreOptions): OAuthSessionStore & ClosableStore;

/** The part of the Web Storage API the localStorage stores use. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Config values in localStorage under `<prefix><configId>` (default prefix `fx.core.config.`).
 *
 * @throws {FxStoreError} `FX_STORE_UNAVAILABLE` when there is no storage.
 */
export function localStorageConfigStore(options?: { prefix?: string; storage?: StorageLike }): ConfigStore;

/**
 * Prompt history in localStorage: a JSON array of strings per workspace under
 * `<prefix><workspaceRoot>` (default prefix `fx.term.history.`), at most `maxEntries` (default
 * 100) kept, values over `maxRecordBytes` UTF-8 bytes (default 262144) refused. Corrupt stored
 * values read as empty.
 *
 * @throws {FxStoreError} `FX_STORE_UNAVAILABLE` when there is no storage.
 */
export function localStoragePromptHistoryStore(options?: {
  prefix?: string;
  maxEntries?: number;
  maxRecordBytes?: number;
  storage?: StorageLike;
}): PromptHistoryStore;

/** Sessions in a Map: revisions from a counter, newest first. The default of `createFxAgent`. */
export function memorySessionStore(): SessionStore;

/** Config values in a Map, optionally pre-filled. */
export function memoryConfigStore(initial?: Record<string, string>): ConfigStore;

/** Prompt history in a Map (default `maxEntries` 1000, `maxRecordBytes` 262144). */
export function memoryPromptHistoryStore(options?: { maxEntries?: number; maxRecordBytes?: number }): PromptHistoryStore;

/** The device-login record in memory. */
export function memoryOAuthSessionStore(): OAuthSessionStore;
