// createFxAgent speaks ACP (issue 18): every update a turn yields, every update of a reopened
// session's `history`, and every `turn.result.stopReason` parse with the Agent Client Protocol
// SDK's own schema (@agentclientprotocol/sdk, its zod schema of protocol v1) to exactly what was
// sent: the SDK's schemas drop or default what they do not accept, so a parse that changes
// nothing means every field is ACP's. The stop reasons are ACP's names.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createFxAgent, memorySessionStore } from '../../pkg/index.js';
import { collect, env, fakeFetch, finish, textEvents, toolEvents } from './agent-support.mjs';

// The SDK's generated zod schemas (the package's exports map names only its entry points; this
// file is the schema those entry points validate messages with).
const acp = await import(new URL('../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js', import.meta.url));

/** Parses `value` with `schema` and asserts that the parse kept it whole. */
function exactly(schema, value, what) {
  const parsed = schema.safeParse(value);
  assert.ok(parsed.success, `${what} is not ACP: ${parsed.error?.message}\n${JSON.stringify(value)}`);
  assert.deepEqual(JSON.parse(JSON.stringify(parsed.data)), JSON.parse(JSON.stringify(value)), `${what} changed in the ACP parse`);
}

function workspace() {
  return {
    info: { version: 1, root: '/workspace', cwd: '/workspace', home: '/home/visitor', gitAvailable: false, ephemeral: true },
    permission: 'allow-sandboxed',
    async exec({ command }) {
      if (command === 'false') return { stdout: '', stderr: 'nope\n', exitCode: 1 };
      return { stdout: `ran ${command}\n`, stderr: '', exitCode: 0 };
    },
  };
}

const reasoning = [
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'Thinking it over.' },
  { type: 'reasoning-end', id: 'r1' },
];

describe('createFxAgent against the ACP SDK schema', () => {
  test('updates, history and stop reasons parse as ACP, exactly', async () => {
    const net = fakeFetch([
      { events: [...reasoning, ...toolEvents('Looking.', [['c1', 'ls'], ['c2', 'false']])] },
      { events: textEvents('Two files; ', 'one command failed.') },
      { events: [{ type: 'text-delta', id: 't', delta: 'cut' }, finish('length')] },
      { events: [{ type: 'text-delta', id: 't', delta: 'no' }, finish('content-filter')] },
      { hang: true },
    ]);
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, workspace: workspace() });
    const session = await agent.createSession();
    const seen = [];
    const run = async (text) => {
      const turn = session.prompt(text);
      const updates = await collect(turn);
      seen.push(...updates);
      const result = await turn.result;
      exactly(acp.zStopReason, result.stopReason, `the stop reason ${result.stopReason}`);
      exactly(acp.zPromptResponse, { stopReason: result.stopReason }, 'the prompt response');
      return result.stopReason;
    };
    assert.equal(await run('list the files'), 'end_turn');
    assert.equal(await run('write a lot'), 'max_tokens');
    assert.equal(await run('something forbidden'), 'refusal');
    const cancelled = session.prompt('wait');
    await net.untilStalled();
    cancelled.cancel();
    seen.push(...(await collect(cancelled)));
    const stop = (await cancelled.result).stopReason;
    exactly(acp.zStopReason, stop, 'the stop reason of a cancelled turn');
    assert.equal(stop, 'cancelled');

    const kinds = new Set(seen.map((u) => u.sessionUpdate));
    for (const kind of ['agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call_update']) {
      assert.ok(kinds.has(kind), `a ${kind} update was yielded (${[...kinds]})`);
    }
    for (const update of seen) {
      exactly(acp.zSessionUpdate, update, `the ${update.sessionUpdate} update`);
      exactly(acp.zSessionNotification, { sessionId: session.id, update }, 'the session/update notification');
    }
    // The tool call names its tool (ACP's `name`).
    const call = seen.find((u) => u.sessionUpdate === 'tool_call');
    assert.deepEqual([call.name, call.kind, call.title], ['terminal', 'execute', 'ls']);

    // A reopened session replays its turns as ACP updates too.
    await agent.close();
    const again = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore, workspace: workspace() });
    const reopened = await again.openSession(session.id);
    assert.ok(reopened.history.length > 4);
    for (const update of reopened.history) {
      exactly(acp.zSessionUpdate, update, `the replayed ${update.sessionUpdate} update`);
    }
    await again.close();
  });

  test('the step limit ends a turn with max_turn_requests', async () => {
    // A model that asks for a command at every step, past the agent's 64 steps.
    const steps = Array.from({ length: 64 }, (_, i) => ({ events: toolEvents('', [[`c${i}`, 'ls']]) }));
    const agent = await createFxAgent({ fetch: fakeFetch(steps).fetch, env, workspace: workspace() });
    const session = await agent.createSession();
    const turn = session.prompt('loop');
    await collect(turn);
    const { stopReason } = await turn.result;
    assert.equal(stopReason, 'max_turn_requests');
    exactly(acp.zStopReason, stopReason, 'the step limit stop reason');
    await agent.close();
  });
});
