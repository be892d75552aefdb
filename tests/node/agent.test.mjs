// createFxAgent in Node against a fake fetch: text and tool turns, permissions, cancellation,
// retries, errors, conflicts, config, and session management.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memoryConfigStore, memorySessionStore, readSession } from '../../pkg/index.js';
import { agentText, collect, env, fakeFetch, fakeWorkspace, sse, textEvents, toolEvents, trapGuard } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

describe('createFxAgent', () => {
  test('streams a text turn and stores it', async () => {
    const net = fakeFetch([{ events: textEvents('Hel', 'lo ', 'world') }]);
    const sessionStore = memorySessionStore();
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    assert.match(session.id, /^\d+-\d+-[0-9a-f]{16}$/);
    const turn = session.prompt('say hello');
    const updates = await collect(turn);
    assert.equal(await turn.stopReason, 'end_turn');
    assert.equal(agentText(updates), 'Hello world');
    const [chat] = net.chats();
    assert.equal(chat.url, 'https://ai-gateway.vercel.sh/v3/ai/language-model');
    assert.equal(chat.headers.authorization, 'Bearer test-key');
    assert.equal(chat.headers['x-session-id'], session.id);
    assert.equal(chat.headers['ai-language-model-id'], 'moonshotai/kimi-k3');
    assert.equal(chat.body.prompt.at(-1).content[0].text, 'say hello');
    const stored = await sessionStore.load(session.id);
    const view = await readSession(stored.bytes);
    assert.equal(view.turns[0].user.text, 'say hello');
    assert.equal(view.turns[0].assistant, 'Hello world');
    assert.ok(events.some((e) => e.type === 'runtime.ready'));
    assert.equal(await agent.close(), 0);
    assert.equal(await agent.exited, 0);
  });

  test('runs a tool through the workspace and sends the result back', async () => {
    const net = fakeFetch([{ events: toolEvents('Looking.', [['call_1', 'ls']]) }, { events: textEvents('Two files.') }]);
    const workspace = fakeWorkspace();
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, workspace, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const turn = session.prompt('what is here?');
    const updates = await collect(turn);
    // The gateway's usage: per step as events, summed in the result.
    assert.deepEqual((await turn.result).usage, { inputTokens: 30, outputTokens: 8 });
    assert.deepEqual(
      events.filter((e) => e.type === 'turn.usage').map(({ inputTokens, outputTokens }) => [inputTokens, outputTokens]),
      [[20, 5], [10, 3]],
    );
    assert.deepEqual(
      updates.map((u) => u.sessionUpdate),
      ['agent_message_chunk', 'tool_call', 'tool_call_update', 'tool_call_update', 'agent_message_chunk'],
    );
    assert.equal(workspace.calls.length, 1);
    assert.equal(workspace.calls[0].command, 'ls');
    assert.equal(workspace.calls[0].cwd, '/workspace');
    assert.equal(workspace.calls[0].timeoutMs, 30000);
    assert.equal(workspace.calls[0].outputLimitBytes, 65536);
    const second = net.chats()[1].body.prompt;
    const tool = second.find((m) => m.role === 'tool');
    assert.equal(tool.content[0].output.value, 'exit_code=0\n<stdout>\nran ls\n</stdout>\n');
    assert.equal(net.chats()[0].body.tools[0].name, 'terminal');
    await agent.close();
  });

  test('asks before each command with permission "prompt"', async () => {
    const net = fakeFetch([
      { events: toolEvents('', [['a', 'echo one']]) },
      { events: toolEvents('', [['b', 'echo one'], ['c', 'rm -rf x']]) },
      { events: textEvents('done') },
    ]);
    const asked = [];
    const answers = ['allow_always', 'reject_once'];
    const workspace = fakeWorkspace({ permission: 'prompt' });
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      workspace,
      onPermission: (request) => {
        asked.push(request);
        return answers.shift();
      },
    });
    const session = await agent.createSession();
    assert.equal(await session.prompt('go').stopReason, 'end_turn');
    assert.equal(asked.length, 2);
    assert.deepEqual(asked[0].options.map((o) => o.optionId), ['allow_once', 'allow_always', 'reject_once']);
    assert.equal(asked[0].toolCall.kind, 'execute');
    assert.deepEqual(workspace.calls.map((c) => c.command), ['echo one', 'echo one']);
    const denied = net.chats()[2].body.prompt.filter((m) => m.role === 'tool').at(-1);
    assert.match(denied.content[0].output.value, /tool_permission_denied/);
    await agent.close();
  });

  test('cancels during the stream and reaches the fetch signal', async () => {
    const net = fakeFetch([{ stall: true, chunks: [sse([{ type: 'text-delta', delta: 'partial' }], { done: false })] }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    const turn = session.prompt('write');
    const stalled = await net.untilStalled();
    turn.cancel();
    assert.equal(await turn.stopReason, 'cancelled');
    assert.ok(stalled.signal.aborted);
    await agent.close();
  });

  test('an AbortSignal cancels before the response arrives', async () => {
    const net = fakeFetch([{ hang: true }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    const controller = new AbortController();
    const turn = session.prompt('hi', { signal: controller.signal });
    await net.untilStalled();
    controller.abort();
    assert.equal(await turn.stopReason, 'cancelled');
    assert.ok(net.chats()[0].signal.aborted);
    await agent.close();
  });

  test('breaking out of the iterator cancels the turn', async () => {
    const net = fakeFetch([{ stall: true, chunks: [sse([{ type: 'text-delta', delta: 'x' }], { done: false })] }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    const turn = session.prompt('hi');
    for await (const update of turn) {
      assert.equal(update.sessionUpdate, 'agent_message_chunk');
      break;
    }
    assert.equal(await turn.stopReason, 'cancelled');
    await agent.close();
  });

  test('retries a 503, then succeeds', async () => {
    const net = fakeFetch([
      { status: 503, body: '{"error":{"message":"busy"}}', headers: { 'retry-after': '0' } },
      { events: textEvents('ok') },
    ]);
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    assert.equal(await session.prompt('hi').stopReason, 'end_turn');
    assert.equal(net.chats().length, 2);
    assert.ok(events.some((e) => e.type === 'request.retry'));
    await agent.close();
  });

  test('a 401 rejects the turn with a coded error', async () => {
    const net = fakeFetch([{ status: 401, body: '{"error":{"type":"authentication_error","message":"bad key"}}' }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    await assert.rejects(session.prompt('hi').result, (error) => {
      assert.equal(error.code, 'FX_GATEWAY_HTTP_ERROR');
      assert.match(error.message, /401/);
      return true;
    });
    assert.equal(net.chats().length, 1);
    await agent.close();
  });

  test('a second writer makes the next commit fork, losing nothing', async () => {
    const net = fakeFetch([{ events: textEvents('one') }, { events: textEvents('other') }, { events: textEvents('two') }]);
    const sessionStore = memorySessionStore();
    const events = [];
    const a = await createFxAgent({ fetch: net.fetch, env, sessionStore, onEvent: (e) => events.push(e) });
    const sa = await a.createSession();
    await sa.prompt('first').result;
    const b = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    const sb = await b.openSession(sa.id);
    await sb.prompt('other tab').result;
    const original = sa.id;
    await sa.prompt('second').result;
    assert.notEqual(sa.id, original);
    const forked = events.find((e) => e.type === 'session.forked');
    assert.equal(forked.from, original);
    assert.equal(forked.to, sa.id);
    const ours = await readSession((await sessionStore.load(sa.id)).bytes);
    assert.deepEqual(ours.turns.map((t) => t.user.text), ['first', 'second']);
    const theirs = await readSession((await sessionStore.load(original)).bytes);
    assert.deepEqual(theirs.turns.map((t) => t.user.text), ['first', 'other tab']);
    await a.close();
    await b.close();
  });

  test('restores config and persists accepted changes only', async () => {
    const net = fakeFetch([{ events: textEvents('ok') }]);
    const configStore = memoryConfigStore({ model: 'sdk/catalog-alpha', mode: 'code' });
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, configStore, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const model = (await session.loadConfigOptions()).find((o) => o.id === 'model');
    assert.equal(model.currentValue, 'sdk/catalog-alpha');
    assert.ok(model.options.some((o) => o.value === 'test/feature-model'));
    assert.equal(session.modes.currentModeId, 'code');
    assert.ok(events.some((e) => e.type === 'config.changed' && e.source === 'restore'));
    await session.setModel('test/feature-model');
    assert.equal(configStore.get('model'), 'test/feature-model');
    await assert.rejects(session.setModel('bad\nmodel'));
    assert.equal(configStore.get('model'), 'test/feature-model');
    await session.setMode('ask');
    assert.equal(configStore.get('mode'), 'ask');
    assert.equal(session.modes.currentModeId, 'ask');
    await session.prompt('hi').result;
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'test/feature-model');
    await agent.close();
  });

  test('lists, opens and removes sessions', async () => {
    const net = fakeFetch([{ events: textEvents('stored reply') }]);
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    const session = await agent.createSession();
    await session.prompt('remember this').result;
    const listed = await agent.listSessions();
    assert.ok(listed.some((s) => s.sessionId === session.id && typeof s.updatedAt === 'string'));
    const reopened = await agent.openSession(session.id);
    assert.equal(reopened.history[0].sessionUpdate, 'user_message_chunk');
    assert.equal(reopened.history[0].content.text, 'remember this');
    assert.ok(reopened.history.some((u) => u.content?.text === 'stored reply'));
    assert.throws(() => session.prompt('x'), /closed|no longer active/);
    await reopened.remove();
    assert.equal((await agent.listSessions()).length, 0);
    await agent.close();
  });

  test('rejects bad options with TypeErrors', async () => {
    await assert.rejects(createFxAgent({ env: { FX_GATEWAY_CHAT_URL: 'https://evil.example/v3' } }), TypeError);
    await assert.rejects(createFxAgent({ env: { FX_GATEWAY_CHAT_URL: 'http://localhost/no-port' } }), TypeError);
    await assert.rejects(
      createFxAgent({ workspace: { ...fakeWorkspace(), info: { ...fakeWorkspace().info, cwd: '/elsewhere' } } }),
      TypeError,
    );
    const net = fakeFetch([]);
    const agent = await createFxAgent({ fetch: net.fetch, env: { AI_GATEWAY_API_KEY: undefined } });
    const session = await agent.createSession();
    await assert.rejects(session.prompt('hi').result, (e) => e.code === 'FX_AUTH_REQUIRED');
    assert.throws(() => session.prompt({}), TypeError);
    assert.throws(() => session.prompt([{ type: 'image' }]), TypeError);
    agent.abort();
    assert.equal(await agent.exited, 130);
  });
});
