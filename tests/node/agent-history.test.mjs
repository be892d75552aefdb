// session.history for turns that ended early (createFxAgent, fake fetch): a cancelled command
// shows its call and a notice chunk of its own; a failed turn's notice says why, as the turn's
// error did. Before, the notice was glued to the reply ("as asked.[cancelled]"), the call was
// missing and a failure read "[failed]".

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createFxAgent, memorySessionStore } from '../../pkg/index.js';
import { env, fakeFetch, fakeWorkspace, toolEvents } from './agent-support.mjs';

test('a cancelled command and a failed turn replay with their call and their reason', async () => {
  const sessionStore = memorySessionStore();
  const net = fakeFetch([
    { events: toolEvents('Running sleep 20 as asked.', [['c1', 'sleep 20']]) },
    ...Array.from({ length: 5 }, () => ({ status: 500, body: 'the provider fell over', headers: { 'retry-after': '0' } })),
  ]);
  let release;
  const workspace = fakeWorkspace({
    run: ({ signal }) =>
      new Promise((_, reject) => {
        release = () => reject(new DOMException('cancelled', 'AbortError'));
        signal?.addEventListener('abort', release);
      }),
  });
  const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, workspace });
  const session = await agent.createSession();
  const turn = session.prompt('run sleep 20');
  const seen = [];
  for await (const update of turn) {
    seen.push(update);
    if (update.sessionUpdate === 'tool_call_update' && update.status === 'in_progress') turn.cancel();
  }
  assert.equal(await turn.stopReason, 'cancelled');
  const failed = session.prompt('again');
  const error = await failed.result.catch((e) => e);
  assert.equal(error.code, 'FX_GATEWAY_HTTP_ERROR');

  const reopened = await agent.openSession(session.id);
  const texts = reopened.history.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text);
  assert.deepEqual(texts, ['Running sleep 20 as asked.', '\n\n[cancelled]', `\n\n[failed: ${error.message} (FX_GATEWAY_HTTP_ERROR)]`]);
  const calls = reopened.history.filter((u) => u.sessionUpdate.startsWith('tool_call'));
  assert.deepEqual(
    calls.map((u) => [u.sessionUpdate, u.toolCallId, u.status]),
    [
      ['tool_call', 'c1', 'pending'],
      ['tool_call_update', 'c1', 'failed'],
    ],
  );
  await agent.close();
});

test('readSession().usage of a session with turns is not "complete" with 0 tokens', async () => {
  const { readSession } = await import('../../pkg/index.js');
  const { textEvents } = await import('./agent-support.mjs');
  const sessionStore = memorySessionStore();
  const agent = await createFxAgent({ fetch: fakeFetch([{ events: textEvents('hi') }, { events: textEvents('again') }]).fetch, env, sessionStore });
  const session = await agent.createSession();
  assert.equal(await sessionStore.load(session.id), null, 'nothing happened yet: nothing stored');
  const first = await session.prompt('one').result;
  const second = await session.prompt('two').result;
  const { usage } = await readSession((await sessionStore.load(session.id)).bytes);
  assert.equal(usage.billing, 'incomplete', 'the cost is not known');
  assert.equal(usage.inputTokens, first.usage.inputTokens + second.usage.inputTokens);
  assert.equal(usage.outputTokens, first.usage.outputTokens + second.usage.outputTokens);
  assert.ok(usage.inputTokens > 0);
  await agent.close();
});
