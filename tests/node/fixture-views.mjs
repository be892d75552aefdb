// What readSession() must show for each fixture under tests/fixtures/fx-sessions/ (the data:
// tests/fixtures/fx-session-views.json, written out from the recorded events.jsonl files: texts,
// tool calls, results, statuses, exit codes, interrupted reasons, images), and the assertion that
// compares a view with it. Shared by the Node and the browser tests.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The expected view of each fixture scenario, by name. */
export const EXPECTED = JSON.parse(readFileSync(new URL('../fixtures/fx-session-views.json', import.meta.url), 'utf8'));

/**
 * Asserts that `view` (what readSession returned) shows `expected` (an entry of EXPECTED, or one
 * built the same way). `label` names the fixture in failure messages.
 */
export function assertView(view, expected, label) {
  const at = (where) => `${label}: ${where}`;
  assert.equal(view.id, expected.id, at('id'));
  assert.equal(view.workspaceRoot, expected.workspaceRoot, at('workspaceRoot'));
  assert.equal(view.createdAtMs, expected.createdAtMs, at('createdAtMs'));
  assert.equal(view.updatedAtMs, expected.updatedAtMs, at('updatedAtMs'));
  assert.equal(view.title, expected.title, at('title'));
  for (const [key, value] of Object.entries(expected.preferences)) {
    assert.equal(view.preferences?.[key], value, at(`preferences.${key}`));
  }
  for (const [key, value] of Object.entries(expected.totals)) {
    assert.equal(view[key], value, at(key));
  }
  assert.ok(Array.isArray(view.turns), at('turns is an array'));
  assert.deepEqual(
    view.turns.map((t) => `${t.kind}: ${t.user?.text}`),
    expected.turns.map((t) => `${t.kind}: ${t.user}`),
    at('turn kinds and user texts'),
  );
  expected.turns.forEach((want, i) => {
    const turn = view.turns[i];
    const where = (what) => at(`turns[${i}].${what}`);
    assert.equal(turn.assistant, want.assistant, where('assistant'));
    assert.equal(turn.user.images.length, want.images.length, where('user.images.length'));
    want.images.forEach((image, k) => {
      for (const [key, value] of Object.entries(image)) {
        assert.equal(turn.user.images[k][key], value, where(`user.images[${k}].${key}`));
      }
    });
    if (want.kind === 'interrupted') {
      assert.equal(turn.reason, want.reason, where('reason'));
      assert.deepEqual(turn.completedToolNames, want.completedToolNames, where('completedToolNames'));
      if (want.toolCall === null) assert.equal(turn.toolCall, null, where('toolCall'));
      else assertCall(turn.toolCall, want.toolCall, where('toolCall'));
    }
    assert.equal(turn.steps?.length, want.steps.length, where('steps.length'));
    want.steps.forEach((step, s) => {
      const got = turn.steps[s];
      const stepAt = (what) => where(`steps[${s}].${what}`);
      assert.equal(got.assistant, step.assistant, stepAt('assistant'));
      assert.equal(got.toolCalls.length, step.toolCalls.length, stepAt('toolCalls.length'));
      step.toolCalls.forEach((call, c) => assertCall(got.toolCalls[c], call, stepAt(`toolCalls[${c}]`)));
      assert.equal(got.toolResults.length, step.toolResults.length, stepAt('toolResults.length'));
      step.toolResults.forEach((result, r) => {
        const res = got.toolResults[r];
        const resAt = (what) => stepAt(`toolResults[${r}].${what}`);
        assert.equal(res.toolCallId, result.toolCallId, resAt('toolCallId'));
        assert.equal(res.toolName, result.toolName, resAt('toolName'));
        assert.equal(res.status, result.status, resAt('status'));
        assert.equal(typeof res.output, 'string', resAt('output is text'));
        assert.ok(res.output.startsWith(result.outputStart), resAt(`output starts ${JSON.stringify(result.outputStart)}`));
        assert.equal(res.truncated, result.truncated, resAt('truncated'));
        assert.equal(res.outputBytes, result.outputBytes, resAt('outputBytes'));
        assert.equal(res.exitCode, result.exitCode, resAt('exitCode'));
      });
    });
  });
}

function assertCall(got, want, where) {
  assert.equal(got?.id, want.id, `${where}.id`);
  assert.equal(got.name, want.name, `${where}.name`);
  assert.equal(got.argumentsJson, want.argumentsJson, `${where}.argumentsJson`);
}

const IMAGE_SHA256 = '3fd6e6be528c182d768563a63b65ac5a70d022149a01eeeaaa30396d75f426e0';

/**
 * The `image` scenario's image turn was never committed (the recording ends it with a recovery
 * checkpoint that a later turn cleared), so readSession cannot show its image. This builds the
 * log a committed image turn gives: the scenario's first six frames (through the checkpoint that
 * holds the image), then a `history_turn_committed` of that turn. Returns the bytes and the
 * expected view.
 */
export function imageTurnLog(imageEvents) {
  const lines = new TextDecoder().decode(imageEvents).split('\n').slice(0, 6);
  const last = JSON.parse(lines[5]);
  const { checkpoint } = last.payload;
  const commit = {
    schema_version: 1,
    log_generation: last.log_generation,
    seq: 7,
    event_id: '0123456789abcdef0123456789abcdef',
    timestamp_ms: last.timestamp_ms + 1,
    kind: 'history_turn_committed',
    payload: {
      conversation_language: 'und-Latn',
      total_input_tokens: 21,
      total_output_tokens: 4,
      turn: {
        kind: 'assistant',
        user: checkpoint.user,
        assistant: checkpoint.assistant_source,
        execution: checkpoint.execution,
      },
    },
  };
  const bytes = new TextEncoder().encode(`${[...lines, JSON.stringify(commit)].join('\n')}\n`);
  const expected = {
    ...EXPECTED.image,
    updatedAtMs: commit.timestamp_ms,
    title: 'describe this image',
    totals: { totalInputTokens: 21, totalOutputTokens: 4 },
    turns: [
      {
        kind: 'assistant',
        user: 'describe this image',
        images: [
          {
            id: 1,
            path: '/home/user/project/red.png',
            mediaType: 'image/png',
            snapshotPath: `images/image-1-${IMAGE_SHA256.slice(0, 16)}.bin`,
            snapshotSha256: IMAGE_SHA256,
          },
        ],
        assistant: 'Hello world.',
        steps: [],
      },
    ],
  };
  return { bytes, expected };
}

/**
 * Malformed variants of a valid log, each with the seq its error must name (null when the
 * error need not name one). Deterministic.
 */
export function malformedLogs(valid) {
  const text = new TextDecoder().decode(valid);
  const lines = text.split('\n').filter(Boolean);
  const withLine = (i, line) => {
    const copy = [...lines];
    copy[i] = line;
    return new TextEncoder().encode(`${copy.join('\n')}\n`);
  };
  const enc = (s) => new TextEncoder().encode(s);
  // A linear congruential generator: the same "random" bytes on every run.
  let state = 0x2545f491;
  const random = new Uint8Array(4096).map(() => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 24;
  });
  const nonUtf8 = enc(text);
  const at = text.indexOf('say hello');
  nonUtf8[at] = 0xff;
  return [
    { name: 'empty', bytes: new Uint8Array(0), seq: null },
    { name: 'random bytes', bytes: random, seq: 1 },
    { name: 'not JSON', bytes: enc('hello\n'), seq: 1 },
    { name: 'non-UTF-8 in a string', bytes: nonUtf8, seq: 2 },
    { name: 'truncated mid-frame', bytes: valid.subarray(0, valid.length - 40), seq: lines.length },
    { name: 'unknown kind', bytes: withLine(2, lines[2].replace('"kind":"usage_checkpointed"', '"kind":"usage_guessed"')), seq: 3 },
    { name: 'unknown key', bytes: withLine(2, lines[2].replace('"payload":{', '"payload":{"extra":1,')), seq: 3 },
    { name: 'seq gap', bytes: withLine(2, lines[2].replace('"seq":3,', '"seq":4,')), seq: 3 },
    { name: 'changed generation', bytes: withLine(2, lines[2].replace(/"log_generation":"[0-9a-f]{32}"/, `"log_generation":"${'0'.repeat(32)}"`)), seq: 3 },
    { name: 'null committed assistant', bytes: withLine(6, lines[6].replace('"assistant":"Hello world."', '"assistant":null')), seq: 7 },
  ];
}
