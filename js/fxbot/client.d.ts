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

/** Why a turn ended. */
export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | 'error';

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
      error?: { status: number; code: string; message: string };
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
  error: { status: number; code: string; message: string } | null;
}

/**
 * The turns after one more line: a new array, sorted by turn; `turns` is not changed. A
 * `turn_start` resets its turn, which is what makes a resumed stream exact.
 */
export function reduceLines(turns: readonly Turn[], line: StreamLine): Turn[];

/** The turns of a sequence of lines. */
export function turnsFromLines(lines: Iterable<StreamLine>): Turn[];
