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
  /** `gateway`, `codex` or `grok`. */
  provider: string;
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

/** How a command's process ended. */
export type ProcessPresentation =
  | { kind: 'exit_code'; value: number }
  | { kind: 'signal'; value: number };

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
  createdAtMs: number;
  /** Exit code or signal of a command, when the tool ran one. */
  commandProcessPresentation: ProcessPresentation | null;
}

/** One model step that issued tool calls, with their results. */
export interface ToolStep {
  /** Text the model wrote before the calls, if any. */
  assistant: string | null;
  toolCalls: ToolCall[];
  toolResults: ToolResult[];
}

/** A completed turn: the user's message, the tool steps, and the final answer. */
export interface AssistantTurn {
  kind: 'assistant';
  user: UserMessage;
  steps: ToolStep[];
  /** The final answer (may be empty). */
  assistant: string;
}

/** A turn that stopped before its answer (cancelled by the user, or failed). */
export interface InterruptedTurn {
  kind: 'interrupted';
  user: UserMessage;
  steps: ToolStep[];
  /** Partial answer text, if any was streamed. */
  assistant: string | null;
  /** The tool call in flight when the turn stopped, if any. */
  toolCall: ToolCall | null;
  completedToolNames: string[];
  /** Why the turn stopped. */
  terminalReason: 'cancelled' | 'failed';
}

/** A turn that started a background command (fx CLI). */
export interface BackgroundCommandTurn {
  kind: 'background_command';
  user: UserMessage;
  steps: ToolStep[];
  assistant: string | null;
}

/** Older turns folded into a summary. */
export interface CompactedSummaryTurn {
  kind: 'compacted_summary';
  summary: string;
  removedTurnCount: number;
}

export type SessionTurn = AssistantTurn | InterruptedTurn | BackgroundCommandTurn | CompactedSummaryTurn;

/** Token totals of a session. */
export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A plain view of a session, as {@link readSession} returns it. */
export interface SessionView {
  /** Session id, `<ms>-<ns>-<16 hex>`. */
  id: string;
  /** The workspace the session belongs to now. */
  workspaceRoot: string;
  createdAtMs: number;
  updatedAtMs: number;
  /** Display title (from the first user message). */
  title: string;
  preferences: SessionPreferences;
  turns: SessionTurn[];
  usage: SessionUsage;
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
}

export interface PromptHistoryStore {
  load(workspaceRoot: string, limit: number): string[] | Promise<string[]>;
  append(workspaceRoot: string, value: string, timestampMs: number): unknown;
  clear?(workspaceRoot: string): unknown;
}

export interface FxTerminalOptions {
  terminal: TerminalAdapter;
  wasm?: WasmSource;
  /** `["--resume", "last"]` or `["--resume", "<session id>"]`. */
  args?: string[];
  env?: Record<string, string | number | boolean | undefined | null>;
  fetch?: typeof fetch;
  configStore?: { get(id: string): unknown; set(id: string, value: string): unknown };
  sessionStore?: unknown;
  promptHistoryStore?: PromptHistoryStore;
  oauthSessionStore?: unknown;
  openUrl?: (url: string) => unknown;
  workspace?: unknown;
  /** Aborts the running turn's host effects when input contains it (default Ctrl+C). */
  interruptKey?: string | false | null;
  /** Receives `/export`'s native fx files (path → bytes). */
  download?: (files: Record<string, Uint8Array>) => unknown;
  onEvent?: (event: { type: string; timestamp: number; [key: string]: unknown }) => void;
}

export interface FxTerminal {
  readonly interactive: Promise<void>;
  /** 0 after /exit, 130 after abort(), 1 when the terminal could not start. */
  readonly exited: Promise<number>;
  write(data: string | Uint8Array): void;
  resize(): void;
  abort(): void;
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
