// Types of fx-wasm/fxbot/client: the lines of `chat.stream()` and the turns the reducer builds
// from them (fxbot DESIGN §8.2). The StreamLine field set is reconstructed (the seed names the
// types but its tables were lost); `max_tokens` and `Turn.error.code` are our additions.

/** A file as fxbot saved it (`data` is only on the way in, to `chat.send`). */
export interface Upload {
  name: string;
  type: string;
  url?: string;
  data?: string;
}

/** Tokens a turn used. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The stable codes of the bots layer, each with its HTTP-like `status` (the `code` of an
 * `FxbotError`): the `FXBOT_*` rows of fx-wasm's one code table. A turn's `error.code` stays a
 * `string` (a newer version may add codes); its `cause` is one of the agent's `FX_*` codes
 * (`FxErrorCode` of `fx-wasm`).
 */
export type FxbotErrorCode =
  /** 400: an argument breaks a rule. */
  | 'FXBOT_BAD_REQUEST'
  /** 404: an unknown bot, provider, memory, library item or chat. */
  | 'FXBOT_NOT_FOUND'
  /** 409: a turn of another message is running for this bot. */
  | 'FXBOT_BUSY'
  /** 409: the store kept changing under a read-modify-write (retries ran out). */
  | 'FXBOT_CONFLICT'
  /** 409: the fxbot was closed. */
  | 'FXBOT_CLOSED'
  /** 409: what a store throws for a stale `expectedRevision`; fxbot retries and never passes it on. */
  | 'FXBOT_STORE_REVISION_CONFLICT'
  /** 500: a store failed, or a stored document is damaged. */
  | 'FXBOT_STORE_FAILED'
  /** 500: a fault of fxbot itself. */
  | 'FXBOT_INTERNAL'
  /** 502: a provider (or a server behind one) failed. */
  | 'FXBOT_PROVIDER_FAILED';

/** Why a turn ended: ACP's stop reasons (as the agent's), or `error` for a turn that failed. */
export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | 'error';

/**
 * Why a turn failed: its `FXBOT_*` code and status, and (`cause`) the agent's `FX_*` code of the
 * failure underneath when the turn failed in the agent (`FX_SESSION_STORE_FAILED` under a 500
 * `FXBOT_STORE_FAILED`, `FX_GATEWAY_HTTP_ERROR` under a 502 `FXBOT_PROVIDER_FAILED`, ...).
 */
export interface TurnError {
  status: number;
  code: string;
  cause?: string;
  message: string;
}

/**
 * One line of a chat's stream. `cursor` is where to start again to get the lines after it:
 * `turn * 2^21 + k`, with the `turn_end` always at k = 2^21 - 1.
 */
export type StreamLine =
  | {
      type: 'turn_start';
      cursor: number;
      sessionId: string;
      turn: number;
      /** `""` for a turn no `send` claimed (a session written elsewhere). */
      messageId: string;
      /** RFC 3339 UTC with milliseconds. */
      at: string;
      /** What the model saw as the user's text (text files and skills inlined). */
      prompt: string;
      /** fxbot's saved input, files and skills: only for a message with files or skills. */
      input?: string;
      files?: Upload[];
      skills?: string[];
    }
  | { type: 'text'; cursor: number; turn: number; text: string }
  | { type: 'reasoning'; cursor: number; turn: number; text: string }
  | {
      type: 'tool_call';
      cursor: number;
      turn: number;
      toolCallId: string;
      name: string;
      title: string;
      arguments: unknown;
      status: 'pending' | 'in_progress';
    }
  | {
      type: 'tool_result';
      cursor: number;
      turn: number;
      toolCallId: string;
      status: 'completed' | 'failed';
      output: string;
      truncated: boolean;
    }
  | {
      type: 'turn_end';
      cursor: number;
      turn: number;
      stopReason: StopReason;
      usage: Usage;
      error?: TurnError;
    }
  | { type: 'chat_end'; cursor: number; reason: 'handoff'; nextSessionId: string };

/** One part of a turn's reply, in order. */
export type Part =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'tool';
      toolCallId: string;
      name: string;
      title: string;
      arguments: unknown;
      status: 'pending' | 'in_progress' | 'completed' | 'failed';
      output?: string;
    };

/** One turn of a chat: the message and the reply as far as the lines went. */
export interface Turn {
  turn: number;
  sessionId: string;
  messageId: string;
  at: string;
  /** The saved input, else what the model saw. */
  input: string;
  files: Upload[];
  skills: string[];
  parts: Part[];
  status: 'running' | 'done' | 'cancelled' | 'failed';
  usage: Usage | null;
  error: TurnError | null;
}

/**
 * The turns after one more line: a new array, sorted by turn; `turns` is not changed. A
 * `turn_start` resets its turn, which is what makes a resumed stream exact.
 */
export function reduceLines(turns: readonly Turn[], line: StreamLine): Turn[];

/** The turns of a sequence of lines. */
export function turnsFromLines(lines: Iterable<StreamLine>): Turn[];

/**
 * The codes of the HTTP layer itself, beside the bots layer's `FXBOT_*` codes that a server
 * passes on unchanged: `HTTP_UNAUTHORIZED` (401: `authorize` refused), `HTTP_PAYLOAD_TOO_LARGE`
 * (413), `HTTP_NOT_FOUND` (404: no such route), `HTTP_METHOD_NOT_ALLOWED` (405),
 * `HTTP_BAD_REQUEST` (400: a request Node could not read), `HTTP_INTERNAL` (500: an unexpected
 * failure, its detail kept on the server), and on the client `HTTP_UNREACHABLE` (502: no answer,
 * or a stream that kept dropping) and `HTTP_ERROR` (an answer without the server's error body).
 */
export type FxbotHttpErrorCode =
  | 'HTTP_UNAUTHORIZED'
  | 'HTTP_PAYLOAD_TOO_LARGE'
  | 'HTTP_NOT_FOUND'
  | 'HTTP_METHOD_NOT_ALLOWED'
  | 'HTTP_BAD_REQUEST'
  | 'HTTP_INTERNAL'
  | 'HTTP_UNREACHABLE'
  | 'HTTP_ERROR';

export interface ConnectFxbotOptions {
  /** The fxbot server's origin (or the base the `/api/` routes hang from). */
  url: string | URL;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Sent with every request (an `authorization`, say); a function is called per request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** The pause before a dropped stream reconnects (ms, default 250). */
  reconnectDelayMs?: number;
  /** Reconnects in a row without a line before the stream fails (default 20). */
  maxReconnects?: number;
}

/**
 * The `Fxbot` interface of `createFxbot`, served by `fx-wasm/fxbot/server` at `url`.
 * `chat.stream` follows the server's event stream and reconnects with `Last-Event-ID` when the
 * connection drops; `close()` ends this client's streams (the server's bots keep running).
 */
export function connectFxbot(options: ConnectFxbotOptions): Promise<import('./index.js').Fxbot>;
