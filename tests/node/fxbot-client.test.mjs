// The fxbot client reducer (js/fxbot/client.js): turns from stream lines, the turn_start reset
// rule, and every reconnect cursor of a recorded live turn rebuilding the same turns, whether the
// stream continued from the live journal or restarted from the log's replay. The recordings are
// written by the Rust side (tests/bot_stream.rs): tests/fixtures/fxbot/reconnect.json (a turn
// of a real fx CLI log, streamed in chunks) and reconnect-agent.json (the real agent loop's ACP
// updates through the live journal).

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { reduceLines, turnsFromLines } from '../../js/fxbot/client.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = async (name) => JSON.parse(await readFile(join(root, 'tests/fixtures/fxbot', name), 'utf8'));
const recorded = await load('reconnect.json');
const recordings = { 'reconnect.json': recorded, 'reconnect-agent.json': await load('reconnect-agent.json') };

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function feed(turns, lines) {
  let out = turns;
  for (const line of lines) out = reduceLines(out, line);
  return out;
}

test('the recorded chat reduces to its two turns', () => {
  const turns = turnsFromLines(recorded.live);
  assert.equal(turns.length, 2);
  const [first, second] = turns;
  assert.deepEqual(first.parts, [{ type: 'text', text: 'Hello world.' }]);
  assert.equal(first.status, 'done');
  assert.equal(second.input, 'RUNCMD please');
  assert.equal(second.status, 'done');
  assert.deepEqual(second.parts, [
    { type: 'text', text: 'Let me run it.' },
    {
      type: 'tool',
      toolCallId: 'call_1',
      name: 'terminal',
      title: 'echo hello-from-tool',
      arguments: { command: 'echo hello-from-tool', action: 'exec' },
      status: 'completed',
      output: 'exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n',
    },
    { type: 'text', text: 'The command finished. Done.' },
  ]);
  assert.ok(second.usage.inputTokens > 0);
  assert.equal(second.error, null);
});

for (const [name, recording] of Object.entries(recordings)) {
  test(`${name}: every reconnect cursor of the live turn rebuilds the same turns`, () => {
    const expected = turnsFromLines(recording.live);
    assert.ok(expected.length >= 2);
    assert.ok(expected.every((t) => t.status === 'done'));
    // Live (text in chunks, the call's status changes) and committed (one line per step) agree.
    assert.ok(recording.live.length > recording.committed.length);
    assert.deepEqual(turnsFromLines(recording.committed), expected);
    assert.equal(recording.reconnects.length, recording.live.length + 1, 'cursor 0 and every line');
    for (const { cursor, journal, replay } of recording.reconnects) {
      // What the client had when it lost the stream: every line up to and including `cursor`.
      const seen = recording.live.filter((line) => line.cursor <= cursor);
      const before = deepFreeze(turnsFromLines(seen));
      const withJournal = feed(before, recording.live.slice(journal));
      assert.deepEqual(withJournal, expected, `cursor ${cursor}, continued from the journal`);
      const fromLog = feed(before, recording.committed.slice(replay));
      assert.deepEqual(fromLog, expected, `cursor ${cursor}, restarted from the log`);
    }
  });

  test(`${name}: a client that reconnects after every line still ends with the same turns`, () => {
    let turns = [];
    let cursor = 0;
    for (const { cursor: at, replay } of recording.reconnects) {
      // Each time: the live lines up to the next cursor, then the log's restart from there.
      turns = feed(
        turns,
        recording.live.filter((line) => line.cursor > cursor && line.cursor <= at),
      );
      turns = feed(turns, recording.committed.slice(replay));
      cursor = Math.max(cursor, ...recording.committed.slice(replay).map((l) => l.cursor), at);
    }
    assert.deepEqual(turns, turnsFromLines(recording.committed));
  });
}

const start = (turn, extra = {}) => ({
  type: 'turn_start',
  cursor: turn * 2 ** 21 + 1,
  sessionId: 's1',
  turn,
  messageId: `m${turn}`,
  at: '2026-12-01T00:00:00.000Z',
  prompt: `prompt ${turn}`,
  ...extra,
});
const END = 2 ** 21 - 1;

test('turn_start resets its turn', () => {
  const partial = turnsFromLines([
    start(1),
    { type: 'text', cursor: 2 ** 21 + 2, turn: 1, text: 'Hel' },
    { type: 'tool_call', cursor: 2 ** 21 + 3, turn: 1, toolCallId: 'c', name: 't', title: 't', arguments: {}, status: 'pending' },
  ]);
  assert.equal(partial[0].parts.length, 2);
  const reset = reduceLines(partial, start(1));
  assert.deepEqual(reset[0].parts, []);
  assert.equal(reset[0].status, 'running');
  assert.equal(reset.length, 1);
});

test('reduceLines never changes its input', () => {
  const turns = deepFreeze(turnsFromLines([start(1), { type: 'text', cursor: 2 ** 21 + 2, turn: 1, text: 'a' }]));
  const next = reduceLines(turns, { type: 'text', cursor: 2 ** 21 + 3, turn: 1, text: 'b' });
  assert.equal(turns[0].parts[0].text, 'a');
  assert.equal(next[0].parts[0].text, 'ab');
  assert.notEqual(next, turns);
  assert.notEqual(reduceLines(turns, { type: 'chat_end', cursor: 2 * 2 ** 21, reason: 'handoff', nextSessionId: 's2' }), turns);
});

test('the saved input, files and skills of a turn_start', () => {
  const [turn] = turnsFromLines([
    start(1, {
      prompt: 'look <file name="a.txt" type="text/plain">x</file>',
      input: 'look',
      files: [{ name: 'a.txt', type: 'text/plain', url: '/api/library/0123456789ab/file' }],
      skills: ['review'],
    }),
  ]);
  assert.deepEqual(
    { input: turn.input, files: turn.files, skills: turn.skills, messageId: turn.messageId, sessionId: turn.sessionId },
    {
      input: 'look',
      files: [{ name: 'a.txt', type: 'text/plain', url: '/api/library/0123456789ab/file' }],
      skills: ['review'],
      messageId: 'm1',
      sessionId: 's1',
    },
  );
  assert.equal(turnsFromLines([start(2)])[0].input, 'prompt 2', 'without a saved input: the prompt');
});

test('turn_end: status, usage, error, and tools that never finished', () => {
  const ended = (stopReason, extra = {}) =>
    turnsFromLines([
      start(1),
      { type: 'tool_call', cursor: 2 ** 21 + 2, turn: 1, toolCallId: 'c', name: 'terminal', title: 'ls', arguments: null, status: 'in_progress' },
      { type: 'turn_end', cursor: 2 ** 21 + END, turn: 1, stopReason, usage: { inputTokens: 5, outputTokens: 1 }, ...extra },
    ])[0];
  for (const [reason, status] of [
    ['end_turn', 'done'],
    ['max_tokens', 'done'],
    ['max_turn_requests', 'done'],
    ['refusal', 'done'],
    ['cancelled', 'cancelled'],
    ['error', 'failed'],
  ]) {
    assert.equal(ended(reason).status, status, reason);
  }
  const failed = ended('error', { error: { status: 502, code: 'FXBOT_PROVIDER_FAILED', message: 'no' } });
  assert.deepEqual(failed.error, { status: 502, code: 'FXBOT_PROVIDER_FAILED', message: 'no' });
  assert.deepEqual(failed.usage, { inputTokens: 5, outputTokens: 1 });
  assert.equal(failed.parts[0].status, 'failed', 'an unfinished call did not finish');
  assert.equal(ended('end_turn').error, null);
});

test('tool calls: repeated status lines, results without a call, no downgrade', () => {
  const [turn] = turnsFromLines([
    start(1),
    { type: 'tool_call', cursor: 2 ** 21 + 2, turn: 1, toolCallId: 'c1', name: 'terminal', title: 'ls', arguments: { command: 'ls' }, status: 'pending' },
    { type: 'tool_call', cursor: 2 ** 21 + 3, turn: 1, toolCallId: 'c1', name: '', title: '', arguments: null, status: 'in_progress' },
    { type: 'tool_result', cursor: 2 ** 21 + 4, turn: 1, toolCallId: 'c1', status: 'completed', output: 'a', truncated: false },
    { type: 'tool_call', cursor: 2 ** 21 + 5, turn: 1, toolCallId: 'c1', name: 'terminal', title: 'ls', arguments: { command: 'ls' }, status: 'pending' },
    { type: 'tool_result', cursor: 2 ** 21 + 6, turn: 1, toolCallId: 'c2', status: 'failed', output: 'x', truncated: false },
  ]);
  assert.deepEqual(turn.parts, [
    { type: 'tool', toolCallId: 'c1', name: 'terminal', title: 'ls', arguments: { command: 'ls' }, status: 'completed', output: 'a' },
    { type: 'tool', toolCallId: 'c2', name: '', title: '', arguments: null, status: 'failed', output: 'x' },
  ]);
});

test('text and reasoning parts, turn order, lines of an unseen turn, unknown types', () => {
  const turns = turnsFromLines([
    start(3),
    { type: 'reasoning', cursor: 3 * 2 ** 21 + 2, turn: 3, text: 'hm' },
    { type: 'reasoning', cursor: 3 * 2 ** 21 + 3, turn: 3, text: 'm' },
    { type: 'text', cursor: 3 * 2 ** 21 + 4, turn: 3, text: 'a' },
    { type: 'text', cursor: 3 * 2 ** 21 + 5, turn: 3, text: 'b' },
    start(1),
    { type: 'text', cursor: 2 * 2 ** 21 + 2, turn: 2, text: 'orphan' },
    { type: 'sparkles', cursor: 9, turn: 3 },
    { type: 'text', cursor: 9, text: 'no turn number' },
  ]);
  assert.deepEqual(
    turns.map((t) => t.turn),
    [1, 2, 3],
  );
  assert.deepEqual(turns[2].parts, [
    { type: 'reasoning', text: 'hmm' },
    { type: 'text', text: 'ab' },
  ]);
  assert.equal(turns[1].messageId, '', 'a turn whose turn_start was never seen');
  assert.deepEqual(turns[1].parts, [{ type: 'text', text: 'orphan' }]);
});

test('bad arguments are TypeErrors', () => {
  assert.throws(() => reduceLines(null, start(1)), TypeError);
  assert.throws(() => reduceLines([], null), TypeError);
  assert.throws(() => reduceLines([], { cursor: 1 }), TypeError);
  assert.throws(() => turnsFromLines([1]), TypeError);
});
