// Cancelling a createFxAgent turn at every point: before the request, while waiting for the
// response, during the stream, after it, during a command and during a permission wait. Each
// cancel must reach the host's AbortSignal, resolve `stopReason` "cancelled", and leave an
// interrupted turn in the store that keeps what completed.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memorySessionStore, readSession } from '../../pkg/index.js';
import {
  agentText,
  collect,
  controllableStore,
  env,
  fakeFetch,
  fakeWorkspace,
  sse,
  textEvents,
  toolEvents,
  trapGuard,
} from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

async function storedTurns(store, id) {
  return (await readSession((await store.load(id)).bytes)).turns;
}

describe('cancellation', () => {
  test('before the request: cancel() right after prompt() sends nothing', async () => {
    const net = fakeFetch([{ events: textEvents('never') }]);
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    const session = await agent.createSession();
    const turn = session.prompt('stop at once');
    turn.cancel();
    assert.deepEqual(await collect(turn), []);
    assert.equal(await turn.stopReason, 'cancelled');
    assert.equal(net.chats().length, 0, 'no chat request was sent');
    const [stored] = await storedTurns(sessionStore, session.id);
    assert.equal(stored.kind, 'interrupted');
    assert.equal(stored.reason, 'cancelled');
    assert.equal(stored.user.text, 'stop at once');
    // The session stays usable.
    assert.equal(await session.prompt('now answer').stopReason, 'end_turn');
    await agent.close();
  });

  test('before the request: an already aborted signal', async () => {
    const net = fakeFetch([{ events: textEvents('never') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    const turn = session.prompt('hi', { signal: AbortSignal.abort() });
    assert.equal(await turn.stopReason, 'cancelled');
    assert.equal(net.chats().length, 0, 'nothing was sent');
    await agent.close();
  });

  test('while waiting for the response: the fetch signal is aborted', async () => {
    const net = fakeFetch([{ hang: true }]);
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    const session = await agent.createSession();
    const turn = session.prompt('hi');
    const pending = await net.untilStalled();
    turn.cancel();
    assert.equal(await turn.stopReason, 'cancelled');
    assert.ok(pending.signal.aborted);
    assert.equal((await storedTurns(sessionStore, session.id))[0].reason, 'cancelled');
    await agent.close();
  });

  test('during the stream: partial text is kept in an interrupted turn', async () => {
    const net = fakeFetch([
      { stall: true, chunks: [sse([{ type: 'text-delta', delta: 'half an ' }, { type: 'text-delta', delta: 'answer' }], { done: false })] },
    ]);
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    const session = await agent.createSession();
    const turn = session.prompt('write a lot');
    const seen = [];
    for await (const update of turn) {
      seen.push(update);
      if (agentText(seen) === 'half an answer') turn.cancel();
    }
    assert.equal(await turn.stopReason, 'cancelled');
    assert.ok(net.chats()[0].signal.aborted, 'the stream was aborted');
    const [stored] = await storedTurns(sessionStore, session.id);
    assert.equal(stored.kind, 'interrupted');
    assert.equal(stored.reason, 'cancelled');
    assert.equal(stored.assistant, 'half an answer');
    await agent.close();
  });

  test('after the stream, while the turn is being saved: too late, stopReason stays end_turn', async () => {
    const net = fakeFetch([{ events: textEvents('complete') }]);
    const control = controllableStore(memorySessionStore());
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.store });
    const session = await agent.createSession();
    let release;
    control.hold.commit = new Promise((resolve) => {
      release = resolve;
    });
    const turn = session.prompt('hi');
    const updates = [];
    for await (const update of turn) {
      updates.push(update);
      // The whole answer has arrived; the commit is held, so the turn has not settled yet.
      turn.cancel();
      release();
    }
    assert.equal(agentText(updates), 'complete');
    assert.equal(await turn.stopReason, 'end_turn');
    const [stored] = await storedTurns(control.store, session.id);
    assert.equal(stored.kind, 'assistant');
    assert.equal(stored.assistant, 'complete');
    await agent.close();
  });

  test('after the turn settled: cancel() is a no-op', async () => {
    const net = fakeFetch([{ events: textEvents('done') }, { events: textEvents('next') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    const turn = session.prompt('hi');
    assert.deepEqual(await turn.result, { stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 3 } });
    turn.cancel();
    turn.cancel();
    assert.equal(await turn.stopReason, 'end_turn');
    // A later turn is not affected by the stale cancel.
    assert.equal(await session.prompt('again').stopReason, 'end_turn');
    await agent.close();
  });

  test('during a command: the exec signal is aborted and completed steps are kept', async () => {
    const net = fakeFetch([
      { events: toolEvents('First this.', [['c1', 'echo ok']]) },
      { events: toolEvents('', [['c2', 'sleep 100']]) },
    ]);
    const signals = [];
    let started;
    const running = new Promise((resolve) => {
      started = resolve;
    });
    const workspace = fakeWorkspace({
      run: ({ command, signal }) => {
        signals.push(signal);
        if (command === 'echo ok') return { stdout: 'ok\n', stderr: '', exitCode: 0 };
        started();
        return new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason));
        });
      },
    });
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, workspace, sessionStore });
    const session = await agent.createSession();
    const turn = session.prompt('run things');
    const updates = collect(turn);
    await running;
    turn.cancel();
    assert.equal(await turn.stopReason, 'cancelled');
    assert.equal(signals.length, 2);
    assert.equal(signals[0].aborted, false, 'the finished command was not aborted');
    assert.equal(signals[1].aborted, true, 'the running command was aborted');
    assert.equal(signals[1].reason.name, 'AbortError');
    const kinds = (await updates).map((u) => u.sessionUpdate);
    assert.equal(kinds.filter((k) => k === 'tool_call').length, 2);
    const [stored] = await storedTurns(sessionStore, session.id);
    assert.equal(stored.kind, 'interrupted');
    assert.equal(stored.reason, 'cancelled');
    assert.equal(stored.steps.length, 1, 'the completed step is kept');
    assert.equal(stored.steps[0].toolResults[0].output, 'exit_code=0\n<stdout>\nok\n</stdout>\n');
    assert.equal(stored.toolCall?.id, 'c2', 'the command in flight is recorded');
    await agent.close();
  });

  test('during a permission wait: the question is withdrawn and nothing runs', async () => {
    const net = fakeFetch([{ events: toolEvents('', [['p1', 'rm -rf /tmp/x']]) }]);
    let asked;
    const question = new Promise((resolve) => {
      asked = resolve;
    });
    const workspace = fakeWorkspace({ permission: 'prompt' });
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      workspace,
      onPermission: (request) => {
        asked(request);
        return new Promise(() => {}); // never answers
      },
    });
    const session = await agent.createSession();
    const turn = session.prompt('clean up');
    await question;
    turn.cancel();
    assert.equal(await turn.stopReason, 'cancelled');
    assert.equal(workspace.calls.length, 0);
    await agent.close();
  });

  test('breaking out of for-await cancels, and so does agent.abort()', async () => {
    const net = fakeFetch([
      { stall: true, chunks: [sse([{ type: 'text-delta', delta: 'x' }], { done: false })] },
      { stall: true, chunks: [sse([{ type: 'text-delta', delta: 'y' }], { done: false })] },
    ]);
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const first = session.prompt('one');
    for await (const update of first) {
      assert.equal(update.content.text, 'x');
      break;
    }
    assert.equal(await first.stopReason, 'cancelled');
    assert.ok(net.chats()[0].signal.aborted);

    const second = session.prompt('two');
    for await (const update of second) {
      assert.equal(update.content.text, 'y');
      agent.abort();
    }
    assert.ok(net.chats()[1].signal.aborted);
    assert.equal(await agent.exited, 130);
    assert.ok(events.some((e) => e.type === 'runtime.exit' && e.code === 130));
    await second.result.catch(() => {});
  });
});
