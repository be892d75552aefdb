// Reasoning the gateway streams (`reasoning-delta`) reaches an ACP client as
// `agent_thought_chunk` updates, before the answer; the terminal keeps it folded away.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createFxAgent } from '../../pkg/index.js';
import { collect, env, fakeFetch, finish } from './agent-support.mjs';
import { contains, screen, startTerminal } from './terminal-support.mjs';

const thinking = [
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'The user wants ' },
  { type: 'reasoning-delta', id: 'r1', delta: 'a greeting.' },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Hello there.' },
  { type: 'text-end', id: 't1' },
  finish(),
];

test('reasoning deltas become agent_thought_chunk updates, ahead of the answer', async () => {
  const agent = await createFxAgent({ fetch: fakeFetch([{ events: thinking }]).fetch, env });
  const session = await agent.createSession();
  const updates = await collect(session.prompt('hi'));
  const kinds = updates.map((u) => u.sessionUpdate);
  const thoughts = updates.filter((u) => u.sessionUpdate === 'agent_thought_chunk');
  assert.equal(thoughts.map((u) => u.content.text).join(''), 'The user wants a greeting.');
  assert.ok(thoughts.every((u) => u.content.type === 'text'));
  assert.ok(kinds.indexOf('agent_thought_chunk') < kinds.indexOf('agent_message_chunk'), kinds.join());
  // The thought is not part of the answer, nor of the stored history.
  const answer = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text).join('');
  assert.equal(answer, 'Hello there.');
  const reopened = await agent.openSession(session.id);
  assert.ok(!reopened.history.some((u) => u.sessionUpdate === 'agent_thought_chunk'));
  await agent.close();
});

test('the terminal shows the answer, not the reasoning', async () => {
  const { term, runtime } = await startTerminal({ fetch: fakeFetch([{ events: thinking }]).fetch, env });
  runtime.write('hi\r');
  await contains(term, 'Hello there.');
  assert.doesNotMatch(screen(term), /a greeting/);
  runtime.abort();
});
