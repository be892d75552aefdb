// Tool turns through a fake workspace and the permission flow: allow once, allow always, reject,
// no handler, a throwing handler, `null`, and answers that are not options.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memorySessionStore, readSession } from '../../pkg/index.js';
import { collect, env, fakeFetch, fakeWorkspace, textEvents, toolEvents, trapGuard } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

/** The tool-result messages of the request after the tool step. */
const toolResults = (net, n = 1) => net.chats()[n].body.prompt.filter((m) => m.role === 'tool');

/** Runs one prompt whose model asks for `command`, with `onPermission` as given. */
async function askOnce(onPermission, { withHandler = true } = {}) {
  const net = fakeFetch([{ events: toolEvents('', [['k1', 'touch file']]) }, { events: textEvents('ok') }]);
  const workspace = fakeWorkspace({ permission: 'prompt' });
  const events = [];
  const agent = await createFxAgent({
    fetch: net.fetch,
    env,
    workspace,
    onEvent: (e) => events.push(e),
    ...(withHandler ? { onPermission } : {}),
  });
  const session = await agent.createSession();
  const updates = await collect(session.prompt('make a file'));
  await agent.close();
  const [result] = toolResults(net);
  return { net, workspace, events, updates, output: result.content[0].output.value };
}

describe('tools', () => {
  test('a tool turn: updates, the exec call, the result the model sees, the stored steps', async () => {
    const net = fakeFetch([
      { events: toolEvents('Checking.', [['t1', 'ls'], ['t2', 'false']]) },
      { events: textEvents('One file; false failed.') },
    ]);
    const workspace = fakeWorkspace({
      run: ({ command }) =>
        command === 'ls' ? { stdout: 'a.txt\n', stderr: '', exitCode: 0 } : { stdout: '', stderr: 'nope\n', exitCode: 1 },
    });
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, workspace, sessionStore });
    const session = await agent.createSession();
    const turn = session.prompt('look around');
    const updates = await collect(turn);
    assert.equal(await turn.stopReason, 'end_turn');

    const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
    assert.deepEqual(
      calls.map((c) => [c.toolCallId, c.title, c.kind, c.status]),
      [
        ['t1', 'ls', 'execute', 'pending'],
        ['t2', 'false', 'execute', 'pending'],
      ],
    );
    assert.deepEqual(calls[0].rawInput, { action: 'exec', command: 'ls' });
    const finals = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress');
    assert.deepEqual(finals.map((u) => [u.toolCallId, u.status]), [
      ['t1', 'completed'],
      ['t2', 'failed'],
    ]);
    assert.equal(finals[0].content[0].type, 'content');
    assert.match(finals[0].content[0].content.text, /a\.txt/);
    assert.deepEqual(finals[1].rawOutput, { exitCode: 1, cancelled: false });

    const request = net.chats()[0].body;
    assert.equal(request.tools.length, 1);
    assert.equal(request.tools[0].name, 'terminal');
    assert.deepEqual(request.tools[0].inputSchema.required, ['action', 'command']);
    const second = net.chats()[1].body.prompt;
    const assistant = second.filter((m) => m.role === 'assistant').at(-1);
    assert.deepEqual(
      assistant.content.map((p) => p.type),
      ['text', 'tool-call', 'tool-call'],
    );
    const results = toolResults(net);
    assert.deepEqual(results.map((m) => m.content[0].toolCallId), ['t1', 't2']);
    const failed = JSON.parse(results[1].content[0].output.value);
    assert.equal(failed.error.type, 'tool_execution_failed');
    assert.equal(failed.error.details.exit_code, 1);
    assert.equal(failed.error.details.stderr, 'nope');

    const [stored] = (await readSession((await sessionStore.load(session.id)).bytes)).turns;
    assert.equal(stored.kind, 'assistant');
    assert.equal(stored.steps.length, 1);
    assert.equal(stored.steps[0].assistant, 'Checking.');
    assert.deepEqual(stored.steps[0].toolResults.map((r) => r.status), ['success', 'failure']);
    assert.equal(stored.assistant, 'One file; false failed.');
    await agent.close();
  });

  test('without a workspace no tools are offered', async () => {
    const net = fakeFetch([{ events: textEvents('plain') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    await session.prompt('hi').result;
    assert.equal((net.chats()[0].body.tools ?? []).length, 0);
    await agent.close();
  });

  test('an invalid tool call is answered with a validation error, not run', async () => {
    const net = fakeFetch([
      {
        events: [
          { type: 'tool-call', toolCallId: 'bad', toolName: 'terminal', input: JSON.stringify({ action: 'spawn', command: 'ls' }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: {} },
        ],
      },
      { events: textEvents('sorry') },
    ]);
    const workspace = fakeWorkspace();
    const agent = await createFxAgent({ fetch: net.fetch, env, workspace });
    const session = await agent.createSession();
    assert.equal(await session.prompt('go').stopReason, 'end_turn');
    assert.equal(workspace.calls.length, 0);
    assert.match(toolResults(net)[0].content[0].output.value, /exec/);
    await agent.close();
  });
});

describe('permissions (workspace permission "prompt", mode "ask")', () => {
  test('allow_once runs the command; the request is ACP-shaped and reported as events', async () => {
    const asked = [];
    const { workspace, events, output } = await askOnce((request) => {
      asked.push(request);
      return 'allow_once';
    });
    assert.equal(workspace.calls.length, 1);
    assert.equal(output, 'exit_code=0\n<stdout>\nran touch file\n</stdout>\n');
    const [request] = asked;
    assert.match(request.sessionId, /^\d+-\d+-[0-9a-f]{16}$/);
    assert.deepEqual(request.toolCall, {
      toolCallId: 'k1',
      title: 'touch file',
      kind: 'execute',
      status: 'pending',
      rawInput: { action: 'exec', command: 'touch file' },
    });
    assert.deepEqual(request.options, [
      { optionId: 'allow_once', name: request.options[0].name, kind: 'allow_once' },
      { optionId: 'allow_always', name: request.options[1].name, kind: 'allow_always' },
      { optionId: 'reject_once', name: request.options[2].name, kind: 'reject_once' },
    ]);
    assert.ok(events.some((e) => e.type === 'permission.request' && e.request.toolCall.toolCallId === 'k1'));
    assert.ok(events.some((e) => e.type === 'permission.resolve' && e.optionId === 'allow_once'));
  });

  test('an async handler is awaited', async () => {
    const { workspace } = await askOnce(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'allow_once';
    });
    assert.equal(workspace.calls.length, 1);
  });

  test('reject_once denies: the model is told, nothing runs', async () => {
    const { workspace, output, updates } = await askOnce(() => 'reject_once');
    assert.equal(workspace.calls.length, 0);
    assert.match(output, /tool_permission_denied/);
    assert.ok(updates.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed'));
  });

  for (const [label, handler, options] of [
    ['no handler', undefined, { withHandler: false }],
    ['a handler that throws', () => {
      throw new Error('ui went away');
    }],
    ['a handler that rejects', () => Promise.reject(new Error('no'))],
    ['null', () => null],
    ['undefined', () => undefined],
    ['an empty string', () => ''],
    ['an unknown option id', () => 'allow_forever'],
  ]) {
    test(`${label} counts as cancelled: denied, nothing runs`, async () => {
      const { workspace, output, events } = await askOnce(handler, options);
      assert.equal(workspace.calls.length, 0);
      assert.match(output, /tool_permission_denied/);
      assert.ok(events.some((e) => e.type === 'permission.resolve'));
    });
  }

  test('allow_always holds for the same command in this session', async () => {
    const net = fakeFetch([
      { events: toolEvents('', [['a', 'make test']]) },
      { events: toolEvents('', [['b', 'make test'], ['c', 'make clean']]) },
      { events: textEvents('done') },
    ]);
    const asked = [];
    const workspace = fakeWorkspace({ permission: 'prompt' });
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      workspace,
      onPermission: (request) => {
        asked.push(request.toolCall.rawInput.command);
        return request.toolCall.rawInput.command === 'make test' ? 'allow_always' : 'allow_once';
      },
    });
    const session = await agent.createSession();
    assert.equal(await session.prompt('build').stopReason, 'end_turn');
    assert.deepEqual(asked, ['make test', 'make clean']);
    assert.deepEqual(workspace.calls.map((c) => c.command), ['make test', 'make test', 'make clean']);
    await agent.close();
  });

  test('mode "code" and permission "allow-sandboxed" never ask', async () => {
    for (const [permission, mode] of [
      ['prompt', 'code'],
      ['allow-sandboxed', 'ask'],
    ]) {
      const net = fakeFetch([{ events: toolEvents('', [['x', 'pwd']]) }, { events: textEvents('ok') }]);
      const workspace = fakeWorkspace({ permission });
      let asked = 0;
      const agent = await createFxAgent({ fetch: net.fetch, env, workspace, onPermission: () => asked++ });
      const session = await agent.createSession();
      await session.setMode(mode);
      await session.prompt('where?').result;
      assert.equal(asked, 0, `${permission}/${mode}`);
      assert.equal(workspace.calls.length, 1);
      await agent.close();
    }
  });
});
