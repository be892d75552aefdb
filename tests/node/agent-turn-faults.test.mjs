// Faults inside a turn through createFxAgent: a preference change the store refuses is not
// applied anywhere; a prompt during a model change waits for it; a turn cancelled during a command ends every tool call and keeps the call;
// a 200 that is not an event stream, `Response.error()`, and an SSE `error` event after text;
// session logs with CRLF line ends, as the fx CLI takes them.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, describe, test } from 'node:test';

import { createFxAgent, exportNativeSession, importNativeSession, memorySessionStore, readSession } from '../../pkg/index.js';
import {
  agentText,
  collect,
  commitOnly,
  controllableStore,
  conversation,
  env,
  fakeFetch,
  fakeWorkspace,
  finish,
  textEvents,
  stallable,
  toolEvents,
  trapGuard,
  within,
} from './agent-support.mjs';
import { nativeHome } from './native-home.mjs';
import { loadFixture } from './fixtures.mjs';

const guard = trapGuard();
after(() => guard.check());

const modelOf = (session) => session.configOptions.find((o) => o.id === 'model').currentValue;

describe('a refused preference change is not applied', () => {
  test('setModel with a failing commit: rejected, and the next turn still uses the old model', async () => {
    const net = fakeFetch([{ events: textEvents('old model here') }]);
    const inner = memorySessionStore();
    const control = controllableStore(inner);
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.store });
    const session = await agent.createSession();
    const before = modelOf(session);
    control.fail.commit = new Error('store down');
    await assert.rejects(session.setModel('test/feature-model'), (e) => e.code === 'FX_SESSION_STORE_FAILED');
    control.fail.commit = null;
    assert.equal(modelOf(session), before);
    await session.prompt('which model?').result;
    assert.equal(net.chats()[0].headers['ai-language-model-id'], before, 'the request uses the model that was kept');
    const stored = await readSession((await inner.load(session.id)).bytes);
    assert.equal(stored.preferences.model, before, 'the stored log holds no model change');
    // Reopened, the session still has the old model.
    const reopened = await agent.openSession(session.id);
    assert.equal(modelOf(reopened), before);
    await agent.close();
  });
});

describe('a prompt during a model change', () => {
  test('waits for the change to be stored, then runs with the new model', async () => {
    const net = fakeFetch([{ events: textEvents('new model here') }]);
    const control = stallable(commitOnly(memorySessionStore()));
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.adapter, adapterTimeoutMs: 5000 });
    const session = await agent.createSession();
    control.stall('commit');
    const changing = session.setModel('sdk/catalog-alpha');
    await control.called('commit');
    const turn = session.prompt('which model?');
    const early = await within(turn.result, 100);
    assert.equal(early.settled, false, `the prompt waits (not ${early.error?.code})`);
    assert.equal(net.chats().length, 0, 'nothing is sent before the change is stored');
    control.unstall('commit');
    await control.release();
    await changing;
    assert.equal((await turn.result).stopReason, 'end_turn');
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'sdk/catalog-alpha');
    await agent.close();
  });

  test('a change whose store never answers holds the prompt until the adapter deadline, then the turn runs on the old model', async () => {
    const net = fakeFetch([{ events: textEvents('old model here') }]);
    const control = stallable(commitOnly(memorySessionStore()));
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.adapter, adapterTimeoutMs: 300 });
    const session = await agent.createSession();
    control.stall('commit');
    const changing = session.setModel('sdk/catalog-alpha');
    await control.called('commit');
    control.unstall('commit');
    const started = Date.now();
    const turn = session.prompt('which model?');
    await assert.rejects(changing, { code: 'FX_ADAPTER_TIMEOUT' });
    assert.equal((await turn.result).stopReason, 'end_turn');
    assert.ok(Date.now() - started < 2000);
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'moonshotai/kimi-k3');
    agent.abort();
  });
});

describe('a turn cancelled during a command', () => {
  async function cancelledDuringCommand({ permission = 'allow-sandboxed', onPermission } = {}) {
    const net = fakeFetch([
      { events: toolEvents('Looking.', [['c1', 'echo ok']]) },
      { events: toolEvents('', [['c2', 'sleep 100']]) },
      { events: textEvents('next turn') },
    ]);
    let started;
    const running = new Promise((resolve) => {
      started = resolve;
    });
    const workspace = fakeWorkspace({
      permission,
      run: ({ command, signal }) => {
        if (command === 'echo ok') return { stdout: 'ok\n', stderr: '', exitCode: 0 };
        started();
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      workspace,
      sessionStore,
      onPermission: onPermission ? (request) => onPermission(request, started) : undefined,
    });
    const session = await agent.createSession();
    const turn = session.prompt('run things');
    const updates = collect(turn);
    await running;
    turn.cancel();
    assert.equal(await turn.stopReason, 'cancelled');
    return { net, agent, session, sessionStore, updates: await updates };
  }

  /** The last status each tool call reached in `updates`. */
  const finalStatus = (updates) => {
    const status = new Map();
    for (const u of updates) {
      if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') status.set(u.toolCallId, u.status);
    }
    return Object.fromEntries(status);
  };

  test('every tool call ends in a final state; the stored turn keeps the call; history replays it', async () => {
    const { net, agent, session, sessionStore, updates } = await cancelledDuringCommand();
    assert.deepEqual(finalStatus(updates), { c1: 'completed', c2: 'failed' });
    const last = updates.filter((u) => u.toolCallId === 'c2').at(-1);
    assert.equal(last.rawOutput?.cancelled, true);
    assert.match(last.content[0].content.text, /cancel/i);

    const [stored] = (await readSession((await sessionStore.load(session.id)).bytes)).turns;
    assert.equal(stored.kind, 'interrupted');
    assert.equal(stored.reason, 'cancelled');
    assert.equal(stored.toolCall?.id, 'c2');
    assert.equal(JSON.parse(stored.toolCall.argumentsJson).command, 'sleep 100');
    assert.deepEqual(stored.completedToolNames, ['terminal']);

    // Reopened: the history shows the cancelled call and its final state, not only the prompt.
    const reopened = await agent.openSession(session.id);
    assert.deepEqual(finalStatus(reopened.history), { c1: 'completed', c2: 'failed' });
    assert.ok(reopened.history.some((u) => u.sessionUpdate === 'tool_call' && u.title === 'sleep 100'));

    // The next request tells the model the call was aborted, as fx does.
    await reopened.prompt('what happened?').result;
    const messages = conversation(net.chats().at(-1));
    const toolMessages = messages.filter((m) => m.role === 'tool');
    const aborted = toolMessages.at(-1).content[0];
    assert.equal(aborted.toolCallId, 'c2');
    assert.match(JSON.stringify(aborted.output), /aborted by user/);
    await agent.close();
  });

  test('cancelled while asking permission: the pending call ends as failed too', async () => {
    const { updates, agent } = await cancelledDuringCommand({
      permission: 'prompt',
      onPermission: (request, started) => {
        if (request.toolCall.title === 'echo ok') return 'allow_once';
        started();
        return new Promise(() => {});
      },
    });
    assert.deepEqual(finalStatus(updates), { c1: 'completed', c2: 'failed' });
    await agent.close();
  });
});

describe('gateway answers that are not what they claim', () => {
  async function run(script) {
    const net = fakeFetch(script);
    const events = [];
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const turn = session.prompt('hi');
    const updates = await collect(turn);
    const outcome = await turn.result.then(
      (result) => ({ result }),
      (error) => ({ error }),
    );
    const turns = (await readSession((await sessionStore.load(session.id)).bytes)).turns;
    return { ...outcome, net, events, updates, turns, agent };
  }

  test('a 200 with an HTML body is not an event stream: said so from its content type, not retried', async () => {
    const html = () => new Response('<!doctype html><title>Sign in</title>', { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
    const { error, net, events, turns, agent } = await run([{ resolve: html() }, { resolve: html() }, { events: textEvents('never') }]);
    assert.equal(error?.code, 'FX_GATEWAY_PROTOCOL_ERROR', String(error));
    assert.match(error.message, /text\/html/);
    assert.match(error.message, /event stream/);
    assert.equal(net.chats().length, 1, 'not retried');
    assert.equal(events.filter((e) => e.type === 'request.retry').length, 0);
    assert.equal(turns[0].reason, 'failed');
    await agent.close();
  });

  test('an event stream content type with parameters, or none at all, is read as SSE', async () => {
    const body = () => `data: ${JSON.stringify({ type: 'text-delta', delta: 'fine' })}\n\ndata: ${JSON.stringify(finish())}\n\n`;
    const { result, agent } = await run([{ resolve: new Response(body(), { status: 200, headers: { 'content-type': 'Text/Event-Stream; charset=utf-8' } }) }]);
    assert.equal(result.stopReason, 'end_turn');
    await agent.close();
    const bare = await run([{ resolve: new Response(new TextEncoder().encode(body()), { status: 200, headers: {} }) }]);
    assert.equal(bare.result?.stopReason, 'end_turn', String(bare.error));
    await bare.agent.close();
  });

  test('Response.error() (status 0) is a network failure, retried as one', async () => {
    const { result, net, events, updates, agent } = await run([{ resolve: Response.error() }, { events: textEvents('back') }]);
    assert.equal(result?.stopReason, 'end_turn');
    assert.equal(agentText(updates), 'back');
    assert.equal(net.chats().length, 2);
    const [retry] = events.filter((e) => e.type === 'request.retry');
    assert.doesNotMatch(retry.reason, /HTTP 0/);
    assert.match(retry.reason, /network/i);
    await agent.close();
  });

  test('Response.error() every time: FX_GATEWAY_NETWORK_ERROR after the retries, never "HTTP 0"', async () => {
    const { error, net, agent } = await run(Array.from({ length: 5 }, () => ({ resolve: Response.error() })));
    assert.equal(error?.code, 'FX_GATEWAY_NETWORK_ERROR', String(error));
    assert.doesNotMatch(error.message, /HTTP 0/);
    assert.equal(net.chats().length, 5);
    await agent.close();
  });

  test('an SSE error event after some text, then finish: the error surfaces, the text is kept', async () => {
    const { error, updates, turns, agent } = await run([
      {
        events: [
          { type: 'text-delta', id: 't', delta: 'Half an ans' },
          { type: 'error', error: { type: 'overloaded_error', message: 'upstream overloaded' } },
          finish('stop'),
        ],
      },
    ]);
    assert.equal(error?.code, 'FX_GATEWAY_RESPONSE_ERROR', `not end_turn: ${error}`);
    assert.match(error.message, /upstream overloaded/);
    assert.equal(agentText(updates), 'Half an ans');
    assert.equal(turns[0].kind, 'interrupted');
    assert.equal(turns[0].reason, 'failed');
    assert.equal(turns[0].assistant, 'Half an ans');
    await agent.close();
  });
});

describe('session logs with CRLF line ends (as the fx CLI reads them)', () => {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const variant = (bytes, from, to) => encoder.encode(decoder.decode(bytes).replace(from, to));

  test('CR before a line end is whitespace in a frame: read, continued and exported; blank lines are refused', async () => {
    const { events } = await loadFixture('multiturn');
    const lf = await readSession(events);
    const crlf = variant(events, /\n/g, '\r\n');
    assert.deepEqual(await readSession(crlf), lf, 'the same session');

    // fx refuses these too (checked with the fx CLI 0.0.5: InvalidSessionFormat).
    for (const [what, bytes] of [
      ['a blank line', variant(events, '\n', '\n\n')],
      ['a CRLF blank line', variant(events, '\n', '\n\r\n')],
      ['frames separated by a bare CR', variant(events, '\n', '\r')],
    ]) {
      await assert.rejects(readSession(bytes), (e) => e.code === 'FX_SESSION_INVALID', what);
    }

    // A CRLF session continues in the agent; its frames keep their bytes, new ones end in LF.
    const store = memorySessionStore();
    const id = lf.id;
    await store.commit(id, crlf, undefined);
    const agent = await createFxAgent({ fetch: fakeFetch([{ events: textEvents('continued') }]).fetch, env, sessionStore: store });
    const session = await agent.openSession(id);
    await session.prompt('one more').result;
    await agent.close();
    const after = (await store.load(id)).bytes;
    assert.deepEqual(after.subarray(0, crlf.length), crlf, 'the stored CRLF frames are untouched');
    const continued = await readSession(after);
    assert.deepEqual(continued.turns.map((t) => t.user.text), [...lf.turns.map((t) => t.user.text), 'one more']);

    // Exported and imported back, byte for byte; and fx loads the export when FX_NATIVE is set.
    const files = await exportNativeSession(after);
    assert.deepEqual(await importNativeSession(files), after);
    if (process.env.FX_NATIVE) {
      const home = nativeHome(id, files, 'fx-crlf-');
      try {
        const out = JSON.parse(execFileSync(process.env.FX_NATIVE, ['session', '--id', id, '--json'], { env: { ...process.env, HOME: home }, encoding: 'utf8' }));
        assert.equal(out.kind, 'session_detail', JSON.stringify(out));
        assert.equal(out.history_len, continued.turns.length);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  });
});
