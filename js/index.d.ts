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

/** Where each artifact comes from, for {@link setWasm}: `core` is `fx-core.wasm`, `term` `fx-term.wasm`. */
export interface WasmSources {
  core?: WasmSource;
  term?: WasmSource;
}

/**
 * Sets where the artifacts are loaded from: a source alone is `fx-core.wasm`'s (the agent and the
 * session functions); `{ core, term }` sets either or both (`term` is `fx-term.wasm`, the
 * terminal's). By default each is the file next to the module that loads it
 * (`new URL('./fx-core.wasm', import.meta.url)`: fetched in browsers, read from disk in Node,
 * emitted by bundlers that see that form). A factory's `wasm` option wins over this. Call before
 * the first load; once loaded, an artifact stays.
 *
 * A source that cannot be fetched or read, or that is not WebAssembly, rejects the first call
 * that needs it with an {@link FxError} of code `FX_WASM_LOAD_FAILED`.
 *
 * @throws {TypeError} when `source` is not one of the {@link WasmSource} forms (or an object
 *   with keys other than `core` and `term`).
 */
export function setWasm(source: WasmSource | WasmSources): void;

/** An error raised by fx. `code` is stable and meant for branching; `message` is for people. */
export interface FxError extends Error {
  name: 'FxError';
  /**
   * E.g. `FX_SESSION_INVALID` when session bytes or a session directory cannot be loaded,
   * `FX_WASM_LOAD_FAILED` when a wasm artifact cannot be fetched or is not WebAssembly.
   */
  code: FxErrorCode;
}

/**
 * Every code an fx error (or event) can carry, each stable once shipped. Errors are
 * {@link FxError}s unless a line says `TypeError` or {@link FxStoreError}; a failed turn's
 * message in the terminal ends with its code in parentheses. A few codes name a finer cause
 * that fx reports under a broader code (said on their line).
 */
export type FxErrorCode =
  // The agent and the terminal.
  /** A call on a session id that is not open. */
  | 'FX_SESSION_NOT_OPEN'
  /** `prompt()` while a turn runs in the session. */
  | 'FX_PROMPT_IN_PROGRESS'
  /**
   * A malformed model id (empty, over 1024 bytes, spaces at either end, control characters).
   * A well-formed id the catalog does not list is taken, with a `config.model_unlisted` event.
   */
  | 'FX_INVALID_MODEL'
  /** A permission mode other than `ask` and `code`, or one the workspace does not offer. */
  | 'FX_INVALID_MODE'
  /** `setConfigOption` with an id other than `model` and `mode`. */
  | 'FX_INVALID_CONFIG_OPTION'
  /** A reasoning effort the session format cannot hold. */
  | 'FX_INVALID_EFFORT'
  /** A prompt with no text. */
  | 'FX_EMPTY_PROMPT'
  /** A turn with no AI Gateway credential (no `AI_GATEWAY_API_KEY`, no login). */
  | 'FX_AUTH_REQUIRED'
  /** A call after `close()` or `abort()`, or an adapter call the stop abandoned. */
  | 'FX_AGENT_CLOSED'
  // Sessions and the stores.
  /** Session bytes or a session directory that the strict loader refuses. */
  | 'FX_SESSION_INVALID'
  /** `openSession(id)` for an id the session store does not hold. */
  | 'FX_SESSION_NOT_FOUND'
  /** A session store's compare-and-set on a stale revision; nothing was written. */
  | 'FX_SESSION_REVISION_CONFLICT'
  /** The session store threw, or answered with the wrong shape. */
  | 'FX_SESSION_STORE_FAILED'
  /** The config store threw, or answered with the wrong shape; the preference is not saved. */
  | 'FX_CONFIG_STORE_FAILED'
  /** An adapter call that did not answer within `adapterTimeoutMs`; its late answer is ignored. */
  | 'FX_ADAPTER_TIMEOUT'
  /** (`TypeError`) An adapter's result has the wrong shape; fx reports it as that adapter's failure. */
  | 'FX_ADAPTER_INVALID'
  /** ({@link FxStoreError}) An IndexedDB or localStorage store finds no storage to open. */
  | 'FX_STORE_UNAVAILABLE'
  /** ({@link FxStoreError}) An IndexedDB transaction failed, or a stored record is damaged. */
  | 'FX_STORE_FAILED'
  /** A wasm artifact could not be fetched or read, or is not WebAssembly. */
  | 'FX_WASM_LOAD_FAILED'
  // A failed turn: the model request.
  /** A model step that was cancelled (a cancelled turn ends with stop reason `cancelled`). */
  | 'FX_CANCELLED'
  /** The AI Gateway answered with a status other than 200 (retries, where allowed, failed too). */
  | 'FX_GATEWAY_HTTP_ERROR'
  /** The AI Gateway could not be reached, or the connection broke (after retries). */
  | 'FX_GATEWAY_NETWORK_ERROR'
  /**
   * The model response sent nothing (no headers, or no next chunk of its body) within
   * `modelIdleTimeoutMs`; it was retried like a cut stream (never once text reached the user)
   * and the retries did not help.
   */
  | 'FX_GATEWAY_TIMEOUT'
  /** The response stopped short or reported a provider failure. */
  | 'FX_GATEWAY_RESPONSE_ERROR'
  /** The response is not an event stream, or an event of it breaks the protocol. */
  | 'FX_GATEWAY_PROTOCOL_ERROR'
  /** The history breaks the tool-call/tool-result pairing, so no request can be built. */
  | 'FX_GATEWAY_INVALID_HISTORY'
  /** A request header value (a model id, a token) holds a control character. */
  | 'FX_GATEWAY_INVALID_HEADER'
  /** The request body could not be encoded. */
  | 'FX_GATEWAY_ENCODE'
  /** A non-200 body over 1 MiB (reported as `FX_GATEWAY_HTTP_ERROR`). */
  | 'FX_GATEWAY_ERROR_BODY_TOO_LARGE'
  /** A connection that failed before a complete response (reported as `FX_GATEWAY_NETWORK_ERROR`). */
  | 'FX_GATEWAY_CONNECTION'
  /** An event line over 32 MiB (reported as `FX_GATEWAY_PROTOCOL_ERROR`). */
  | 'FX_GATEWAY_SSE_EVENT_TOO_LARGE'
  /** A `finish` with a reason outside the protocol (reported as `FX_GATEWAY_PROTOCOL_ERROR`). */
  | 'FX_GATEWAY_INVALID_FINISH_REASON'
  // The factories' options (`TypeError`s).
  /** (`TypeError`) The chat URL is not a string (the factories' env check, uncoded, comes first). */
  | 'FX_GATEWAY_CHAT_URL_NOT_STRING'
  /** (`TypeError`) `env.FX_GATEWAY_CHAT_URL` does not parse as a URL. */
  | 'FX_GATEWAY_CHAT_URL_INVALID'
  /** (`TypeError`) `env.FX_GATEWAY_CHAT_URL` carries `user@` credentials or a `#fragment`. */
  | 'FX_GATEWAY_CHAT_URL_CREDENTIALS'
  /** (`TypeError`) `env.FX_GATEWAY_CHAT_URL` is neither the canonical URL nor loopback `http://`. */
  | 'FX_GATEWAY_CHAT_URL_NOT_ALLOWED'
  /** (`TypeError`) `workspace.info` or `workspace.permission` breaks the version-1 contract. */
  | 'FX_WORKSPACE_INVALID'
  // The model catalog (a failed load is a `catalog.error` event, which carries its message).
  /** The catalog refused the credentials (HTTP 401/403). */
  | 'FX_CATALOG_AUTHENTICATION'
  /** The catalog is rate limited (HTTP 429). */
  | 'FX_CATALOG_RATE_LIMITED'
  /** The catalog is unavailable (HTTP 500/502/503/504). */
  | 'FX_CATALOG_UNAVAILABLE'
  /** The catalog answered another status than 200. */
  | 'FX_CATALOG_HTTP_STATUS'
  /** The catalog could not be reached. */
  | 'FX_CATALOG_TRANSPORT'
  /** The catalog's body is not a catalog. */
  | 'FX_CATALOG_MALFORMED'
  /** Loading the catalog was cancelled. */
  | 'FX_CATALOG_CANCELLED'
  // Device login (the terminal's `/login`; `auth.refresh_error` events carry these codes).
  /** `FX_E2E_OAUTH_ISSUER_URL` is not a loopback `http://` origin with a port. */
  | 'FX_OAUTH_ISSUER_OVERRIDE_REJECTED'
  /** An OAuth request got no response. */
  | 'FX_OAUTH_TRANSPORT'
  /** An OAuth response is larger than 64 KiB. */
  | 'FX_OAUTH_RESPONSE_TOO_LARGE'
  /** An OAuth request was refused (a status other than 200). */
  | 'FX_OAUTH_REJECTED'
  /** A 200 OAuth response lacks what the exchange needs. */
  | 'FX_OAUTH_MALFORMED_RESPONSE'
  /** The discovery document names another issuer than the one it came from. */
  | 'FX_OAUTH_ISSUER_MISMATCH'
  /** A discovered endpoint is not on an allowed host. */
  | 'FX_OAUTH_ENDPOINT_NOT_ALLOWED'
  /** Signing out needs a `revocation_endpoint` and discovery named none. */
  | 'FX_OAUTH_NO_REVOCATION_ENDPOINT'
  /** A login's token response has no refresh token. */
  | 'FX_OAUTH_NO_REFRESH_TOKEN'
  /** The `oauthSessionStore` failed. */
  | 'FX_OAUTH_STORE_FAILED'
  /** ({@link FxStoreError} from a store) The stored login changed under a compare-and-set. */
  | 'FX_OAUTH_SESSION_REVISION_CONFLICT'
  /** No login is stored. */
  | 'FX_OAUTH_NO_SESSION'
  /** The stored login cannot be used. */
  | 'FX_OAUTH_SESSION_INVALID'
  /** A login record would be larger than 64 KiB. */
  | 'FX_OAUTH_RECORD_TOO_LARGE'
  // The terminal's editor.
  /** An edit would make the draft larger than its limit; the edit is not applied. */
  | 'FX_TERM_DRAFT_TOO_LARGE';

/** The model preferences a session carries. */
export interface SessionPreferences {
  /** Model id, e.g. `anthropic/claude-sonnet-4.5`. */
  model: string;
  /** Reasoning effort: `auto`, or a level name such as `low`, `medium`, `high`. */
  effort: string;
  fastMode: boolean;
  provider: 'gateway' | 'codex' | 'grok';
}

/**
 * The session's usage snapshot (billing view; may lag the token totals while billing is
 * pending). `incomplete` also for a session whose snapshot never recorded a generation while it
 * has turns (fx-wasm records the turns' token totals, not their cost): then the token counts are
 * the turns' totals and `totalCost` is 0, unknown rather than free.
 */
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
  /** Opaque, non-empty; at most 1024 bytes of UTF-8. */
  revision: string;
}

/**
 * Where sessions live: opaque bytes (fx's `events.jsonl` log) under an id, with optimistic
 * revisions. A commit whose `expectedRevision` is not the stored one (`undefined` = "no record
 * yet") must throw an Error whose `code` is `FX_SESSION_REVISION_CONFLICT` and write nothing.
 *
 * Every result is checked: a record without a string `revision`, a list entry that is not
 * `{ id, updatedAtMs }`, a commit without `{ revision }` make the call fail with
 * `FX_SESSION_STORE_FAILED`, naming the method and what was wrong, before the result is used.
 * Every call has a deadline (`adapterTimeoutMs`): one that does not settle in time fails with
 * `FX_ADAPTER_TIMEOUT`, and its late answer is ignored.
 */
export interface SessionStore {
  load(id: string): MaybePromise<StoredRecord | null>;
  commit(id: string, bytes: Uint8Array, expectedRevision: string | undefined): MaybePromise<{ revision: string }>;
  /**
   * Optional, and our extension of the contract (fx's stores have only `commit`): adds `bytes`
   * at the end of the record stored at `expectedRevision` (always a revision, never
   * `undefined`) and returns the new revision; a stale revision throws
   * `FX_SESSION_REVISION_CONFLICT` and writes nothing, as `commit` does. When a store has it,
   * the agent hands it only the bytes a commit adds (whole frames, so a lost append shows as a
   * log that fails to load, never as a shorter one), and uses `commit` for the rest (the first
   * write, a rename, a compaction). `load` must then return everything written, in order. A
   * store without `append` gets every commit whole.
   */
  append?(id: string, bytes: Uint8Array, expectedRevision: string): MaybePromise<{ revision: string }>;
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
 * opened. `FX_STORE_FAILED`: an IndexedDB transaction failed (quota, disk), or a stored record
 * is damaged (a session with a missing or malformed chunk: nothing is loaded).
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
 * Sessions in IndexedDB (database `name`, default `fx.sessions`). `commit` and `append` are
 * each one readwrite transaction that compares and writes, so two tabs racing on a revision
 * cannot both win. A session is stored in chunks (the last commit, then one per append, every
 * 32 small ones merged into one): a commit costs what it adds. `load` checks the chunks against
 * the session's head record and throws `FX_STORE_FAILED` when one is missing or damaged.
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

/**
 * Sessions in a Map: revisions from a counter, newest first, with `append` (each append kept
 * as a chunk, joined on load). The default of `createFxAgent`.
 */
export function memorySessionStore(): SessionStore & Required<Pick<SessionStore, 'append'>>;

/** Config values in a Map, optionally pre-filled. */
export function memoryConfigStore(initial?: Record<string, string>): ConfigStore;

/** Prompt history in a Map (default `maxEntries` 1000, `maxRecordBytes` 262144). */
export function memoryPromptHistoryStore(options?: { maxEntries?: number; maxRecordBytes?: number }): PromptHistoryStore;

/** The device-login record in memory. */
export function memoryOAuthSessionStore(): OAuthSessionStore;

// ---------------------------------------------------------------------------------------------
// createFxAgent: the headless agent
// ---------------------------------------------------------------------------------------------

/**
 * The environment the agent reads. An `undefined` or `null` value means the key is absent (never
 * the text "undefined"); numbers and booleans are stringified.
 */
export interface FxAgentEnv {
  /** Bearer credential for the AI Gateway. Required for the canonical endpoint. */
  AI_GATEWAY_API_KEY?: string | null;
  /**
   * The language-model endpoint: exactly `https://ai-gateway.vercel.sh/v3/ai/language-model`, or
   * an `http://` URL on 127.0.0.1, localhost or [::1] with an explicit port. Anything else makes
   * `createFxAgent` reject with a `TypeError`.
   */
  FX_GATEWAY_CHAT_URL?: string | null;
  /** The model of new sessions (default `moonshotai/kimi-k3`). */
  FX_MODEL?: string | null;
  [key: string]: string | number | boolean | bigint | null | undefined;
}

/** What the agent passes to `fetch`. Streaming chat requests carry a `signal`. */
export interface FxFetchInit {
  method: 'GET' | 'POST';
  headers: Headers;
  body?: Uint8Array;
  signal: AbortSignal;
}

/** A fetch function; `globalThis.fetch` fits. */
export type FxFetch = (url: string, init: FxFetchInit) => Promise<Response>;

/** The browser workspace description (version 1); validated once, at `createFxAgent`. */
export interface WorkspaceInfo {
  version: 1;
  /** Absolute, normalized POSIX path. */
  root: string;
  /** Must equal `root`. */
  cwd: string;
  home: string;
  gitAvailable: false;
  ephemeral: true;
}

/** One command for the workspace to run. */
export interface WorkspaceExecInput {
  command: string;
  cwd: string;
  /** Aborted when the turn is cancelled (`AbortError`) or the 30 s deadline passes (`TimeoutError`). */
  signal: AbortSignal;
  timeoutMs: number;
  outputLimitBytes: number;
}

export interface WorkspaceExecResult {
  stdout: string;
  stderr: string;
  /** An integer in the i32 range. */
  exitCode: number;
}

/**
 * A sandbox that runs shell commands. With one, the model gets the `terminal` tool.
 * `permission: "prompt"` asks `onPermission` before each command in mode `ask`.
 */
export interface Workspace {
  info: WorkspaceInfo;
  permission: 'allow-sandboxed' | 'prompt';
  exec(input: WorkspaceExecInput): MaybePromise<WorkspaceExecResult>;
}

/** ACP text content. */
export interface TextContent {
  type: 'text';
  text: string;
}

export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other';
export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** Streamed answer text (one chunk per network read), or replayed assistant text. */
export interface AgentMessageChunk {
  sessionUpdate: 'agent_message_chunk';
  content: TextContent;
}

/** The model's reasoning as the gateway streams it; not stored, so never in `session.history`. */
export interface AgentThoughtChunk {
  sessionUpdate: 'agent_thought_chunk';
  content: TextContent;
}

/** A user message; only in `session.history`. */
export interface UserMessageChunk {
  sessionUpdate: 'user_message_chunk';
  content: TextContent;
}

/** The model asked for a tool call. */
export interface ToolCallStart {
  sessionUpdate: 'tool_call';
  toolCallId: string;
  /** The tool the model called (`terminal`). */
  name: string;
  /** The command, for the terminal tool. */
  title: string;
  kind: ToolKind;
  status: 'pending';
  /** The arguments as the model wrote them (`{ action: "exec", command }`), or null. */
  rawInput: unknown;
}

/** Progress or the end of a tool call. */
export interface ToolCallProgress {
  sessionUpdate: 'tool_call_update';
  toolCallId: string;
  status: ToolCallStatus;
  /** The start of the result the model sees (at most 4 KiB). */
  content?: Array<{ type: 'content'; content: TextContent }>;
  rawOutput?: { exitCode: number | null; cancelled: boolean };
}

/** An ACP `session/update` as a turn yields it. */
export type SessionUpdate = AgentMessageChunk | AgentThoughtChunk | UserMessageChunk | ToolCallStart | ToolCallProgress;

/**
 * Why a turn ended: ACP's `StopReason` (the same at the bots' `fx-wasm/fxbot`). `max_tokens`: the
 * reply reached the model's output limit; `max_turn_requests`: the turn reached its step limit;
 * `refusal`: the model refused (a content filter).
 */
export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';

export type PermissionOptionId = 'allow_once' | 'allow_always' | 'reject_once';

export interface PermissionOption {
  optionId: PermissionOptionId;
  name: string;
  kind: PermissionOptionId;
}

/** What `onPermission` receives before a command runs. */
export interface PermissionRequest {
  sessionId: string;
  toolCall: Omit<ToolCallStart, 'sessionUpdate'>;
  options: PermissionOption[];
}

/**
 * Answers a permission request with an option id. `null`, `undefined`, `""`, an unknown id, a
 * throw or a rejection count as cancelled: the command is denied.
 */
export type PermissionHandler = (request: PermissionRequest) => MaybePromise<string | null | undefined>;

export interface ConfigOptionValue {
  value: string;
  name: string;
  description?: string;
  /** For modes: `auto` (code) or `ask`. */
  permissionMode?: 'auto' | 'ask';
}

/** One select of `session.configOptions` (`model`, then `mode`). */
export interface ConfigOption {
  id: 'model' | 'mode';
  name: string;
  description?: string;
  category: 'model' | 'mode';
  type: 'select';
  currentValue: string;
  options: ConfigOptionValue[];
}

export type ModeId = 'code' | 'ask';

export interface SessionModes {
  currentModeId: ModeId;
  availableModes: Array<{ id: ModeId; name: string; description: string }>;
}

interface FxEventBase<T extends string> {
  type: T;
  /** `performance.now()` when emitted. */
  timestamp: number;
}

/** Everything `onEvent` may receive. */
export type FxAgentEvent =
  | FxEventBase<'runtime.start'>
  | FxEventBase<'runtime.ready'>
  | (FxEventBase<'runtime.exit'> & { code: number })
  | (FxEventBase<'permission.request'> & { request: PermissionRequest })
  | (FxEventBase<'permission.resolve'> & { optionId: string | null })
  | (FxEventBase<'config.changed'> & {
      configId: string;
      previousValue: string | null;
      value: string;
      source: 'sdk' | 'restore';
    })
  | (FxEventBase<'config.restore_error'> & { configId: string; error: string })
  | (FxEventBase<'config.persist_error'> & { configId: string; error: string })
  /**
   * A well-formed model the loaded catalog does not list was taken (set or restored): the
   * gateway serves more models than the catalog lists. `nearest` are the catalog ids closest
   * to it, best first (at most 3, maybe none).
   */
  | (FxEventBase<'config.model_unlisted'> & { model: string; nearest: string[]; source: 'sdk' | 'restore' | 'terminal' })
  /** Another writer moved the stored session on; ours continues as a new session `to`. */
  | (FxEventBase<'session.forked'> & { from: string; to: string; reason: string })
  /** `attempt` is the attempt about to be made (2 for the first retry). */
  | (FxEventBase<'request.retry'> & { attempt: number; limit: number; delayMs: number; reason: string })
  | (FxEventBase<'catalog.error'> & { error: string })
  /** A model step finished and the gateway reported its token usage. */
  | (FxEventBase<'turn.usage'> & TokenUsage)
  | (FxEventBase<'session.unsaved'> & SessionUnsaved);

/**
 * Part of a session the store has not confirmed storing, and the agent will not retry: it was
 * aborted with unsaved turns or with a commit outstanding (code `FX_AGENT_CLOSED`; reported
 * only once that commit failed or missed its `adapterTimeoutMs` deadline: a slow store that
 * stores it in time is not reported), or closing the session
 * retried a commit that failed again (the store's code, e.g. `FX_SESSION_STORE_FAILED` or
 * `FX_ADAPTER_TIMEOUT`). `bytes` is the whole session log as the agent held it (what
 * `sessionStore.commit` would have received), so the host can still keep it:
 * `readSession(bytes)` reads it. After `abort()` this may arrive up to `adapterTimeoutMs` after
 * `runtime.exit`.
 */
export interface SessionUnsaved {
  sessionId: string;
  /** How many of the session's turns the store does not hold. */
  turns: number;
  code: string;
  error: string;
  bytes: Uint8Array;
}

/** Token counts as the gateway reported them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface FxAgentOptions {
  /** Default: `globalThis.fetch` (also when `fetch: undefined` is passed). */
  fetch?: FxFetch | null;
  env?: FxAgentEnv;
  /**
   * The deadline, in milliseconds, of each `sessionStore` and `configStore` call (default
   * 10 000; a whole number from 1 to 2147483647, else `createFxAgent` rejects with a
   * `TypeError`). A call that does not settle in time fails with `FX_ADAPTER_TIMEOUT` (the
   * message names the adapter and method) and its late answer is ignored; a config call that
   * times out is a `config.restore_error` / `config.persist_error` event. Model requests and
   * commands have their own limits (cancellation; the workspace's 30 s; `modelIdleTimeoutMs`).
   */
  adapterTimeoutMs?: number;
  /**
   * How long a model response may send nothing, in milliseconds (default 300 000; a whole
   * number from 1 to 2147483647, else `createFxAgent` rejects with a `TypeError`). The wait for
   * the response headers and each wait for the next chunk of its body count alone. A response
   * that stays silent that long is cut like a dropped connection and retried on the usual
   * schedule (a `request.retry` event each; never once text reached the user); when the retries
   * do not help, the turn fails with `FX_GATEWAY_TIMEOUT`.
   */
  modelIdleTimeoutMs?: number;
  /** Default: a fresh in-memory store per agent. */
  sessionStore?: SessionStore;
  configStore?: ConfigStore;
  /** Without one, the model gets no tools. */
  workspace?: Workspace;
  onPermission?: PermissionHandler;
  /** Diagnostics; a throwing listener is ignored. */
  onEvent?: (event: FxAgentEvent) => void;
  /**
   * Where `fx-core.wasm` comes from (default: what {@link setWasm} set, else the file next to
   * the package's modules). The first load wins.
   */
  wasm?: WasmSource;
}

/** An error raised by the agent; branch on `code` (see {@link FxErrorCode}). */
export interface FxAgentError extends Error {
  code: FxErrorCode;
}

/** A prompt content block. */
export type PromptBlock =
  | { type: 'text'; text: string }
  | { type: 'resource'; resource: { uri: string; text?: string } }
  | { type: 'resource'; uri: string; text?: string };

/**
 * One turn: iterate it for updates; leaving a `for await` early cancels the turn. Every tool
 * call that started (`tool_call`) ends with a `completed` or `failed` `tool_call_update`, also
 * when the turn is cancelled (`rawOutput.cancelled` is then true).
 */
export interface Turn extends AsyncIterable<SessionUpdate> {
  /**
   * Rejects with an {@link FxAgentError} when the turn failed (it is still recorded) or could
   * not be stored: `FX_SESSION_STORE_FAILED` / `FX_ADAPTER_TIMEOUT` (the session keeps it and
   * the next commit, or `close()`, retries), `FX_AGENT_CLOSED` when `abort()` abandoned its
   * commit (reported by `session.unsaved`).
   */
  readonly result: Promise<{ stopReason: StopReason; usage: TokenUsage }>;
  /** `result`'s stop reason; an unobserved failure is not an unhandled rejection. */
  readonly stopReason: Promise<StopReason>;
  /** Stops the turn (the request or command is aborted). No-op once it ended. */
  cancel(): void;
}

/** A session; only the agent's most recent session is active. */
export interface Session {
  /** `<ms>-<ns>-<16 hex>`; changes when the session forks after a revision conflict. */
  id: string;
  modes: SessionModes;
  /**
   * The stored turns replayed as updates (empty for a new session). A turn that ended early
   * ends with a notice chunk of its own: `[cancelled]`, or `[failed: <message> (<code>)]` when
   * the failure was noted; the call it stopped in ends `failed`.
   */
  history: SessionUpdate[];
  /**
   * The `model` and `mode` selects. The model select lists the catalog's ids once the catalog
   * was fetched (see {@link Session.loadConfigOptions}); before, the current model alone.
   */
  readonly configOptions: ConfigOption[];
  /**
   * Resolves with `configOptions` whose model select lists the model catalog (the current
   * model after its ids when it lacks it), fetching the catalog first if no call needed it
   * yet: the agent fetches it only when something needs it (this, `setModel`, a turn with a
   * named effort), so a plain turn costs one request. Waits for it at most 2 s; a failed
   * catalog is a `catalog.error` event and the select lists the current model. Never rejects
   * but for a closed session.
   */
  loadConfigOptions(): Promise<ConfigOption[]>;
  /**
   * Starts a turn; returns at once. During a model change (`setModel` storing it) the turn
   * waits for the change, at most the adapter deadline, and runs with the model it left.
   * @throws {TypeError} for invalid input or a `signal` that is not an AbortSignal.
   * @throws {Error} when the session is closed or a turn is already running.
   */
  prompt(input: string | PromptBlock[], options?: { signal?: AbortSignal }): Turn;
  /**
   * Sets `model` or `mode`, then writes it to `configStore` (a failed or late write is a
   * `config.persist_error` event; prompts are not held up by it), and resolves with the options
   * after. A refused value changes, stores and emits nothing; a model change the session store
   * refuses rejects and is applied nowhere: not in `configOptions`, not in later turns.
   * @throws {FxAgentError} (rejects) `FX_INVALID_CONFIG_OPTION` for an id other than `model` and
   *   `mode`; see {@link Session.setModel} and {@link Session.setMode} for their values.
   */
  setConfigOption(configId: 'model' | 'mode' | (string & {}), value: string): Promise<ConfigOption[]>;
  /**
   * Any well-formed model id is taken; one the model catalog does not list is reported by a
   * `config.model_unlisted` event naming the nearest ids it does (the select then lists it
   * after the catalog's ids). The catalog is fetched first if it was not (waiting at most 2 s;
   * without it, no warning).
   * @throws {FxAgentError} (rejects) `FX_INVALID_MODEL` for a malformed id;
   *   `FX_SESSION_STORE_FAILED` when the change cannot be saved.
   */
  setModel(model: string): Promise<ConfigOption[]>;
  /** @throws {FxAgentError} (rejects) `FX_INVALID_MODE` for anything but `ask` and `code`. */
  setMode(mode: ModeId | (string & {})): Promise<ConfigOption[]>;
  /** Applies each entry in order; the first failure rejects and stops. */
  setConfig(values: Record<string, string>): Promise<ConfigOption[]>;
  /**
   * Cancels a running turn, stores what the store does not hold yet (a commit that failed
   * earlier is retried; `session.unsaved` reports one that still fails) and closes the
   * session. Idempotent.
   */
  close(): Promise<void>;
  /** Deletes the stored session. Rejects while a turn runs. */
  remove(): Promise<void>;
}

/** A stored session, as `listSessions` lists it (newest first). */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  /** ISO 8601 UTC, second precision. */
  updatedAt: string;
  updatedAtMs: number;
}

export interface Agent {
  /** Settles once: 0 after `close()`, 130 after `abort()`. Never rejects. */
  readonly exited: Promise<number>;
  /**
   * Closes the active session (cancelling its turn) and starts a new one. Fetches no model
   * catalog: `session.loadConfigOptions()` does, for a model menu. The new session is stored
   * once it has something to keep (its first turn, a `setModel`): until then `listSessions`
   * does not list it and closing it stores nothing.
   */
  createSession(): Promise<Session>;
  /** Closes the active session and opens a stored one (`FX_SESSION_NOT_FOUND` when missing). */
  openSession(id: string): Promise<Session>;
  listSessions(): Promise<SessionInfo[]>;
  /**
   * Closes the active session as `Session.close()` does, then the agent; resolves with the exit
   * code: 0, or 130 when `abort()` came first (it then settles at once).
   */
  close(): Promise<number>;
  /**
   * Stops everything now: running turns are cancelled, every pending turn, `openSession`,
   * `listSessions` and `close()` settles at once (adapter calls still pending are abandoned:
   * `FX_AGENT_CLOSED`, their late answers ignored), and `exited` settles with 130. A turn whose
   * commit was abandoned rejects; what the store does not hold is a `session.unsaved` event.
   */
  abort(): void;
}

/**
 * Creates a headless fx agent: the AI Gateway protocol, the agent loop and session persistence
 * in WebAssembly, driven through `fetch` and the given adapters. Resolves once the core runs,
 * without a request: the model catalog is fetched when first needed.
 *
 * @throws {TypeError} (rejects) for an `FX_GATEWAY_CHAT_URL` outside the policy, an invalid
 *   workspace, a non-function `fetch`, or an `env` value that is not a primitive.
 */
export function createFxAgent(options?: FxAgentOptions): Promise<Agent>;

// ---- The interactive terminal (createFxTerminal, xterm.js glue) ----

/** What `createFxTerminal` draws into and reads from (see `xtermAdapter`). */
export interface TerminalAdapter {
  write(bytes: Uint8Array): void;
  onData(callback: (data: string) => void): () => void;
  onResize(callback: (size: { cols: number; rows: number }) => void): () => void;
  onKeyData?(callback: (data: string) => void): () => void;
  drain?(): Promise<void>;
  readonly cols: number;
  readonly rows: number;
  /**
   * True when Esc then Tab (or Shift+Tab) moves the focus out of the terminal, as
   * {@link xtermAdapter} does for a browser xterm.js (@xterm/headless has no focus): fx's
   * `/help` then lists those keys.
   */
  readonly escThenTabLeaves?: boolean;
}

export interface FxTerminalOptions {
  terminal: TerminalAdapter;
  /**
   * Where `fx-term.wasm` comes from (default: what {@link setWasm} set as `term`, else the file
   * next to the package's modules). The first load wins.
   */
  wasm?: WasmSource;
  /**
   * `["--resume", "last"]` or `["--resume", "<session id>"]`. A session is stored once it has a
   * turn or a preference change (`/model`), never at start-up, `/new` or `/clear`, so `last` is
   * the last conversation.
   */
  args?: string[];
  env?: Record<string, string | number | boolean | undefined | null>;
  fetch?: FxFetch;
  /**
   * The deadline, in milliseconds, of each `sessionStore`, `configStore`,
   * `promptHistoryStore` and `oauthSessionStore` call and of `openUrl` (default 10 000; a whole
   * number from 1 to 2147483647). A call that does not settle in time fails with
   * `FX_ADAPTER_TIMEOUT` naming the adapter and method, shown in the terminal; its late answer
   * is ignored. `download` may wait for the user and has no deadline.
   */
  adapterTimeoutMs?: number;
  /**
   * How long a model response may send nothing, in milliseconds (default 300 000; a whole
   * number from 1 to 2147483647). As {@link FxAgentOptions.modelIdleTimeoutMs}: a silent
   * response is retried like a cut stream, then the turn fails with `FX_GATEWAY_TIMEOUT`, shown
   * in the terminal.
   */
  modelIdleTimeoutMs?: number;
  configStore?: ConfigStore;
  sessionStore?: SessionStore;
  promptHistoryStore?: PromptHistoryStore;
  /**
   * Enables `/login` and `/logout` (with `openUrl`): the Vercel device login is stored here and
   * restored on the next start. A stored login is used only when `env.AI_GATEWAY_API_KEY` is
   * absent; a `/login` made in this runtime is used even when it is present.
   */
  oauthSessionStore?: OAuthSessionStore;
  /**
   * Opens the sign-in page during `/login`. "Opened" unless it returns `false` or throws; the
   * link and the code are shown in the terminal either way.
   */
  openUrl?: (url: string) => unknown;
  workspace?: Workspace;
  /** Aborts the running turn's host effects when input contains it (default Ctrl+C). */
  interruptKey?: string | false | null;
  /** Receives `/export`'s native fx files (path → bytes). */
  download?: (files: Record<string, Uint8Array>) => unknown;
  /**
   * Diagnostics (a throwing listener is ignored). Besides the runtime, terminal, config and
   * history events: `auth.changed` `{ source: 'none' | 'AI_GATEWAY_API_KEY' | 'fx login', team }`,
   * `auth.refresh` `{ outcome: 'refreshed' | 'adopted' }`, `auth.refresh_error`
   * `{ code, error, signedOut }`. No event ever carries a token. `config.changed` follows only
   * a value the `configStore` kept; a failed `set` is `config.persist_error` alone.
   */
  onEvent?: (event: FxTerminalEvent) => void;
}

/** What a terminal's `onEvent` receives. */
export type FxTerminalEvent =
  | (FxEventBase<'auth.changed'> & { source: 'none' | 'AI_GATEWAY_API_KEY' | 'fx login'; team: string | null })
  | (FxEventBase<'auth.refresh'> & { outcome: 'refreshed' | 'adopted' })
  | (FxEventBase<'auth.refresh_error'> & { code: string; error: string; signedOut: boolean })
  /** Another tab or window moved the session on; this conversation continues as session `to`. */
  | (FxEventBase<'session.forked'> & { from: string; to: string; reason: string })
  /** `/model` (or a restored value) took a model the catalog does not list; the screen says so too. */
  | (FxEventBase<'config.model_unlisted'> & { model: string; nearest: string[]; source: 'terminal' | 'restore' })
  /** A model step of terminal turn `turn` finished with this gateway-reported usage. */
  | (FxEventBase<'turn.usage'> & TokenUsage & { turn: number })
  /** Part of a session will not reach the store (after `abort()`, or `/exit` retried and failed). */
  | (FxEventBase<'session.unsaved'> & SessionUnsaved)
  | (FxEventBase<'terminal.size' | 'terminal.resize'> & { cols: number; rows: number })
  | { type: string; timestamp: number; [key: string]: unknown };

export interface FxTerminal {
  readonly interactive: Promise<void>;
  /**
   * 0 after /exit (which first stores what an earlier commit failed to store), 130 after
   * abort(), 1 when the terminal could not start.
   */
  readonly exited: Promise<number>;
  /** The id of the session on screen (follows /new, /resume and forks); null before one opens. */
  readonly sessionId: string | null;
  write(data: string | Uint8Array): void;
  resize(): void;
  /**
   * Stops the terminal now (`exited` settles with 130); adapter calls still pending are
   * abandoned and what the store does not hold is a `session.unsaved` event.
   */
  abort(): void;
  /**
   * Switches the permission mode, as `/permissions` and Shift+Tab do: `ask` (fx asks before
   * each command) or `code` (shown as `auto`: commands run without asking). Resolves once the
   * terminal took it: applied at once when idle, else when the running turn ends; then the
   * `configStore` saves it and `config.changed` (`source: 'sdk'`) follows (a failed save is
   * `config.persist_error` instead; a store without `set` emits neither).
   * @throws {FxAgentError} (rejects) `FX_INVALID_MODE` for another value, or for `ask` when the
   *   workspace's permission is `allow-sandboxed` (such a host runs every command).
   */
  setMode(mode: ModeId | (string & {})): Promise<void>;
}

export function createFxTerminal(options: FxTerminalOptions): Promise<FxTerminal>;
export function xtermAdapter(term: unknown): TerminalAdapter;
export function encodeXtermKeyEvent(event: {
  type: string;
  key: string;
  shiftKey?: boolean;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
}): string | null;
