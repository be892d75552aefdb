// fx-wasm/fxbot/client: the pure reducer from a chat's stream lines to its turns (fxbot DESIGN
// §4.6, §8.2). No wasm, no I/O: a page can build its transcript from `chat.stream()` lines, or
// from lines it kept, with the same code `chat.turns()` uses.
//
// The rule that makes reconnecting exact: a `turn_start` for turn t resets turn t. A stream that
// resumes inside a committed turn restarts that turn from its `turn_start`, so whatever the
// client had of it is replaced, never doubled.

const DONE_REASONS = new Set(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal']);

function statusOf(stopReason) {
  if (DONE_REASONS.has(stopReason)) return 'done';
  if (stopReason === 'cancelled') return 'cancelled';
  return 'failed';
}

/** A turn_end's error as the turn keeps it (`cause` only when there is one). */
function turnError({ status, code, cause, message }) {
  return cause === undefined ? { status, code, message } : { status, code, cause, message };
}

/** A turn for a line whose turn_start this client never saw (kept rather than dropped). */
function unknownTurn(turn) {
  return {
    turn,
    sessionId: '',
    messageId: '',
    at: '',
    input: '',
    files: [],
    skills: [],
    parts: [],
    status: 'running',
    usage: null,
    error: null,
  };
}

function startedTurn(line) {
  return {
    turn: line.turn,
    sessionId: line.sessionId ?? '',
    messageId: line.messageId ?? '',
    at: line.at ?? '',
    input: typeof line.input === 'string' ? line.input : (line.prompt ?? ''),
    files: Array.isArray(line.files) ? line.files.map((f) => ({ name: f.name, type: f.type, url: f.url })) : [],
    skills: Array.isArray(line.skills) ? [...line.skills] : [],
    parts: [],
    status: 'running',
    usage: null,
    error: null,
  };
}

/** The index where turn `turn` is or would go (turns stay sorted by number). */
function slot(turns, turn) {
  let lo = 0;
  let hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (turns[mid].turn < turn) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function withText(parts, type, text) {
  const last = parts[parts.length - 1];
  if (last && last.type === type) {
    return [...parts.slice(0, -1), { type, text: last.text + text }];
  }
  return [...parts, { type, text }];
}

/** `parts` with the tool part of `toolCallId` replaced by `change(part)`, or `fresh` appended. */
function withTool(parts, toolCallId, change, fresh) {
  const i = parts.findIndex((p) => p.type === 'tool' && p.toolCallId === toolCallId);
  if (i < 0) return [...parts, { type: 'tool', toolCallId, name: '', title: '', arguments: null, ...fresh }];
  return [...parts.slice(0, i), change(parts[i]), ...parts.slice(i + 1)];
}

function withCall(parts, line) {
  return withTool(
    parts,
    line.toolCallId,
    (part) => ({
      ...part,
      // A repeated tool_call (a status change) may know less than the first one.
      name: line.name || part.name,
      title: line.title || part.title,
      arguments: line.arguments ?? part.arguments,
      status: part.status === 'completed' || part.status === 'failed' ? part.status : line.status,
    }),
    { name: line.name ?? '', title: line.title ?? '', arguments: line.arguments ?? null, status: line.status },
  );
}

function withResult(parts, line) {
  const finished = { status: line.status, output: line.output ?? '' };
  return withTool(parts, line.toolCallId, (part) => ({ ...part, ...finished }), finished);
}

/** A tool still pending or in progress when its turn ended did not finish. */
function settled(parts) {
  return parts.map((p) =>
    p.type === 'tool' && (p.status === 'pending' || p.status === 'in_progress') ? { ...p, status: 'failed' } : p,
  );
}

/**
 * The turns after one more line: a new array (the input is not changed), sorted by turn.
 * `turn_start` resets its turn; a line of another kind updates its turn (created empty when this
 * client never saw its `turn_start`); `chat_end` and unknown line types change nothing.
 *
 * @param {readonly Turn[]} turns
 * @param {StreamLine} line
 * @returns {Turn[]}
 */
export function reduceLines(turns, line) {
  if (!Array.isArray(turns)) throw new TypeError('reduceLines(turns, line): turns must be an array');
  if (line === null || typeof line !== 'object' || typeof line.type !== 'string') {
    throw new TypeError('reduceLines(turns, line): line must be a stream line object with a string type');
  }
  if (line.type === 'chat_end') return turns.slice();
  if (!Number.isInteger(line.turn)) return turns.slice();
  const next = turns.slice();
  const i = slot(next, line.turn);
  const existing = next[i]?.turn === line.turn ? next[i] : null;
  const put = (turn) => {
    if (existing) next[i] = turn;
    else next.splice(i, 0, turn);
  };
  if (line.type === 'turn_start') {
    put(startedTurn(line));
    return next;
  }
  const turn = existing ?? unknownTurn(line.turn);
  switch (line.type) {
    case 'text':
    case 'reasoning':
      put({ ...turn, parts: withText(turn.parts, line.type, String(line.text ?? '')) });
      break;
    case 'tool_call':
      put({ ...turn, parts: withCall(turn.parts, line) });
      break;
    case 'tool_result':
      put({ ...turn, parts: withResult(turn.parts, line) });
      break;
    case 'turn_end':
      put({
        ...turn,
        parts: settled(turn.parts),
        status: statusOf(line.stopReason),
        usage: line.usage
          ? { inputTokens: line.usage.inputTokens ?? 0, outputTokens: line.usage.outputTokens ?? 0 }
          : null,
        error: line.error ? turnError(line.error) : null,
      });
      break;
    default:
      // A line type this version does not know: nothing to show.
      return turns.slice();
  }
  return next;
}

/**
 * The turns of a sequence of lines (e.g. everything `chat.stream(botId, 0)` yielded).
 *
 * @param {Iterable<StreamLine>} lines
 * @returns {Turn[]}
 */
export function turnsFromLines(lines) {
  let turns = [];
  for (const line of lines) turns = reduceLines(turns, line);
  return turns;
}
