// What readSession() must show for each fixture under tests/fixtures/fx-sessions/, written out
// from the recorded events.jsonl files (texts, tool calls, results, statuses, exit codes,
// interrupted reasons, images), and the assertion that compares a view with it. Shared by the
// Node and the browser tests.

import assert from 'node:assert/strict';

export const EXPECTED = {
  bigout: {
    dir: "1796004788774-1796004788774482304-b37b713b9cae9ed7",
    id: "1796004788774-1796004788774482304-b37b713b9cae9ed7",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004788774,
    updatedAtMs: 1796004789006,
    title: "BIGOUT please",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 40, totalOutputTokens: 3 },
    turns: [
      {
        kind: "assistant",
        user: "BIGOUT please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_b1", name: "terminal", argumentsJson: "{\"action\":\"exec\",\"command\":\"seq 1 40000\"}" },
            ],
            toolResults: [
              { toolCallId: "call_b1", toolName: "terminal", status: "success", outputStart: "<tool_result_preview handle=\"result-terminal-eeb30d7dfe22070", truncated: true, outputBytes: 33364, exitCode: null },
            ],
          },
        ],
      },
    ],
  },
  failing: {
    dir: "1796004788483-1796004788483624710-8ba339575b740baf",
    id: "1796004788483-1796004788483624710-8ba339575b740baf",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004788483,
    updatedAtMs: 1796004788728,
    title: "FAILCMD now",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "FAILCMD now",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_f1", name: "terminal", argumentsJson: "{\"action\":\"exec\",\"command\":\"ls /nonexistent-dir\"}" },
            ],
            toolResults: [
              { toolCallId: "call_f1", toolName: "terminal", status: "failure", outputStart: "{\"error\":{\"type\":\"tool_execution_failed\",\"tool_name\":\"termin", truncated: false, outputBytes: 404, exitCode: 2 },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "thanks",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  files: {
    dir: "1796004789232-1796004789232543517-fb0aef26fbee6521",
    id: "1796004789232-1796004789232543517-fb0aef26fbee6521",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004789232,
    updatedAtMs: 1796004789452,
    title: "WRITEFILE please",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 40, totalOutputTokens: 3 },
    turns: [
      {
        kind: "assistant",
        user: "WRITEFILE please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_w", name: "write_file", argumentsJson: "{\"path\":\"notes.md\",\"content\":\"# Notes\\nline \\\"quoted\\\" \\\\ back\\n\"}" },
            ],
            toolResults: [
              { toolCallId: "call_w", toolName: "write_file", status: "success", outputStart: "wrote notes.md (29 bytes)", truncated: false, outputBytes: 25, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "EDITFILE please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_e", name: "edit_file", argumentsJson: "{\"path\":\"notes.md\",\"old_string\":\"line\",\"new_string\":\"LINE\"}" },
            ],
            toolResults: [
              { toolCallId: "call_e", toolName: "edit_file", status: "success", outputStart: "edited notes.md (29 bytes)", truncated: false, outputBytes: 26, exitCode: null },
            ],
          },
        ],
      },
    ],
  },
  image: {
    dir: "1796004795067-1796004795067418187-167d319b75c1a36b",
    id: "1796004795067-1796004795067418187-167d319b75c1a36b",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004795067,
    updatedAtMs: 1796004795257,
    title: "RUNCMD please",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 40, totalOutputTokens: 3 },
    turns: [
      {
        kind: "assistant",
        user: "RUNCMD please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Let me run it.",
            toolCalls: [
              { id: "call_1", name: "terminal", argumentsJson: "{\"command\":\"echo hello-from-tool\",\"action\":\"exec\"}" },
            ],
            toolResults: [
              { toolCallId: "call_1", toolName: "terminal", status: "success", outputStart: "exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n", truncated: false, outputBytes: 47, exitCode: null },
            ],
          },
        ],
      },
    ],
  },
  interactive: {
    dir: "1796006417746-1796006417746841731-df3b8c0c971b060a",
    id: "1796006417746-1796006417746841731-df3b8c0c971b060a",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796006417746,
    updatedAtMs: 1796006445102,
    title: "say hello",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: false, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "say hello",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
      {
        kind: "assistant",
        user: "RUNCMD please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Let me run it.",
            toolCalls: [
              { id: "call_1", name: "terminal", argumentsJson: "{\"command\":\"echo hello-from-tool\",\"action\":\"exec\"}" },
            ],
            toolResults: [
              { toolCallId: "call_1", toolName: "terminal", status: "failure", outputStart: "{\"error\":{\"type\":\"tool_permission_denied\",\"tool_name\":\"termi", truncated: false, outputBytes: 472, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "READFILE now",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_r1", name: "read_file", argumentsJson: "{\"path\":\"hello.txt\"}" },
            ],
            toolResults: [
              { toolCallId: "call_r1", toolName: "read_file", status: "success", outputStart: "<path>hello.txt</path>\n<content>\n1\thi there\n</content>", truncated: false, outputBytes: 54, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "after compact",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  interrupted: {
    dir: "1796004789658-1796004789658704306-425ab6cd6eac3e55",
    id: "1796004789658-1796004789658704306-425ab6cd6eac3e55",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004789658,
    updatedAtMs: 1796004794861,
    title: "say hello",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "say hello",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
      {
        kind: "interrupted",
        user: "STALL forever",
        images: [],
        assistant: "partial ",
        reason: "cancelled",
        toolCall: null,
        completedToolNames: [],
        steps: [],
      },
      {
        kind: "assistant",
        user: "after interrupt",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  long: {
    dir: "1796004795296-1796004795296803875-70e73aa81a41662c",
    id: "1796004795296-1796004795296803875-70e73aa81a41662c",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004795296,
    updatedAtMs: 1796004796636,
    title: "say hello",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "say hello",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
      {
        kind: "assistant",
        user: "RUNCMD please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Let me run it.",
            toolCalls: [
              { id: "call_1", name: "terminal", argumentsJson: "{\"command\":\"echo hello-from-tool\",\"action\":\"exec\"}" },
            ],
            toolResults: [
              { toolCallId: "call_1", toolName: "terminal", status: "success", outputStart: "exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n", truncated: false, outputBytes: 47, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "READFILE now",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_r1", name: "read_file", argumentsJson: "{\"path\":\"hello.txt\"}" },
            ],
            toolResults: [
              { toolCallId: "call_r1", toolName: "read_file", status: "success", outputStart: "<path>hello.txt</path>\n<content>\n1\thi there\n</content>", truncated: false, outputBytes: 54, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "FAILCMD now",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_f1", name: "terminal", argumentsJson: "{\"action\":\"exec\",\"command\":\"ls /nonexistent-dir\"}" },
            ],
            toolResults: [
              { toolCallId: "call_f1", toolName: "terminal", status: "failure", outputStart: "{\"error\":{\"type\":\"tool_execution_failed\",\"tool_name\":\"termin", truncated: false, outputBytes: 404, exitCode: 2 },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "TWOTOOLS go",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Two at once.",
            toolCalls: [
              { id: "call_a", name: "read_file", argumentsJson: "{\"path\":\"hello.txt\"}" },
              { id: "call_b", name: "terminal", argumentsJson: "{\"action\":\"exec\",\"command\":\"printf \\\"unié☃\\\"\"}" },
            ],
            toolResults: [
              { toolCallId: "call_a", toolName: "read_file", status: "success", outputStart: "<path>hello.txt</path>\n<content>\n1\thi there\n</content>", truncated: false, outputBytes: 54, exitCode: null },
              { toolCallId: "call_b", toolName: "terminal", status: "success", outputStart: "exit_code=0\n<stdout>\nunié☃\n</stdout>\n", truncated: false, outputBytes: 40, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "MARKDOWN please",
        images: [],
        assistant: "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconsole.log(\"x\")\n```\néè emoji 🚀 tab\tend",
        steps: [],
      },
      {
        kind: "assistant",
        user: "WRITEFILE please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_w", name: "write_file", argumentsJson: "{\"path\":\"notes.md\",\"content\":\"# Notes\\nline \\\"quoted\\\" \\\\ back\\n\"}" },
            ],
            toolResults: [
              { toolCallId: "call_w", toolName: "write_file", status: "success", outputStart: "wrote notes.md (29 bytes)", truncated: false, outputBytes: 25, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "EDITFILE please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_e", name: "edit_file", argumentsJson: "{\"path\":\"notes.md\",\"old_string\":\"line\",\"new_string\":\"LINE\"}" },
            ],
            toolResults: [
              { toolCallId: "call_e", toolName: "edit_file", status: "success", outputStart: "edited notes.md (29 bytes)", truncated: false, outputBytes: 26, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "say hello again",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
      {
        kind: "assistant",
        user: "RUNCMD again",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Let me run it.",
            toolCalls: [
              { id: "call_1", name: "terminal", argumentsJson: "{\"command\":\"echo hello-from-tool\",\"action\":\"exec\"}" },
            ],
            toolResults: [
              { toolCallId: "call_1", toolName: "terminal", status: "success", outputStart: "exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n", truncated: false, outputBytes: 47, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "ok",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
      {
        kind: "assistant",
        user: "done",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  markdown: {
    dir: "1796004789492-1796004789492595098-456c64321869166f",
    id: "1796004789492-1796004789492595098-456c64321869166f",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004789492,
    updatedAtMs: 1796004789620,
    title: "MARKDOWN please",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "MARKDOWN please",
        images: [],
        assistant: "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconsole.log(\"x\")\n```\néè emoji 🚀 tab\tend",
        steps: [],
      },
      {
        kind: "assistant",
        user: "unicode é ☃ 🚀 \"quotes\" \\ backslash\nnewline\ttab",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  multiturn: {
    dir: "1796004788015-1796004788015086217-47695d97efb20b2d",
    id: "1796004788015-1796004788015086217-47695d97efb20b2d",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004788015,
    updatedAtMs: 1796004788437,
    title: "say hello",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "say hello",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
      {
        kind: "assistant",
        user: "RUNCMD please",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Let me run it.",
            toolCalls: [
              { id: "call_1", name: "terminal", argumentsJson: "{\"command\":\"echo hello-from-tool\",\"action\":\"exec\"}" },
            ],
            toolResults: [
              { toolCallId: "call_1", toolName: "terminal", status: "success", outputStart: "exit_code=0\n<stdout>\nhello-from-tool\n</stdout>\n", truncated: false, outputBytes: 47, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "READFILE now",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: null,
            toolCalls: [
              { id: "call_r1", name: "read_file", argumentsJson: "{\"path\":\"hello.txt\"}" },
            ],
            toolResults: [
              { toolCallId: "call_r1", toolName: "read_file", status: "success", outputStart: "<path>hello.txt</path>\n<content>\n1\thi there\n</content>", truncated: false, outputBytes: 54, exitCode: null },
            ],
          },
        ],
      },
      {
        kind: "assistant",
        user: "and once more",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  simple: {
    dir: "1796004787807-1796004787807100283-5a7c3606642b8401",
    id: "1796004787807-1796004787807100283-5a7c3606642b8401",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004787806,
    updatedAtMs: 1796004787971,
    title: "say hello",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 12, totalOutputTokens: 2 },
    turns: [
      {
        kind: "assistant",
        user: "say hello",
        images: [],
        assistant: "Hello world.",
        steps: [],
      },
    ],
  },
  twotools: {
    dir: "1796004789050-1796004789050541705-7ef27f56ee823788",
    id: "1796004789050-1796004789050541705-7ef27f56ee823788",
    workspaceRoot: "/home/user/project",
    createdAtMs: 1796004789050,
    updatedAtMs: 1796004789183,
    title: "TWOTOOLS go",
    preferences: { model: "moonshotai/kimi-k3", effort: "auto", fastMode: true, provider: "gateway" },
    totals: { totalInputTokens: 40, totalOutputTokens: 3 },
    turns: [
      {
        kind: "assistant",
        user: "TWOTOOLS go",
        images: [],
        assistant: "The command finished. Done.",
        steps: [
          {
            assistant: "Two at once.",
            toolCalls: [
              { id: "call_a", name: "read_file", argumentsJson: "{\"path\":\"hello.txt\"}" },
              { id: "call_b", name: "terminal", argumentsJson: "{\"action\":\"exec\",\"command\":\"printf \\\"unié☃\\\"\"}" },
            ],
            toolResults: [
              { toolCallId: "call_a", toolName: "read_file", status: "success", outputStart: "<path>hello.txt</path>\n<content>\n1\thi there\n</content>", truncated: false, outputBytes: 54, exitCode: null },
              { toolCallId: "call_b", toolName: "terminal", status: "success", outputStart: "exit_code=0\n<stdout>\nunié☃\n</stdout>\n", truncated: false, outputBytes: 40, exitCode: null },
            ],
          },
        ],
      },
    ],
  },
};

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
