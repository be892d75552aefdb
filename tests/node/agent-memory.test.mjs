// Memory that must not grow with the number of turns, counted without timing or GC: every
// callback the wasm core hands to JS (a wasm-bindgen closure) is registered with a
// FinalizationRegistry and unregistered when the core frees it, so registrations minus
// unregistrations is the number of live callbacks. It must not grow turn after turn. (The soak
// test, tests/soak/agent-soak.mjs, watches the heap itself over 10,000 turns.)

import assert from 'node:assert/strict';
import { test } from 'node:test';

// Counted before the glue is loaded, so its registries are counted too.
const live = new Set();
const Native = globalThis.FinalizationRegistry;
globalThis.FinalizationRegistry = class extends Native {
  register(target, held, token) {
    if (token !== undefined) live.add(token);
    return super.register(target, held, token);
  }
  unregister(token) {
    live.delete(token);
    return super.unregister(token);
  }
};

const { createFxAgent, memorySessionStore } = await import('../../pkg/index.js');
const { env, fakeFetch, textEvents, toolEvents, fakeWorkspace } = await import('./agent-support.mjs');

test('the callbacks the core gives JS are freed: their number does not grow with the turns', async () => {
  const turns = 120;
  const script = [];
  for (let i = 0; i < turns; i += 1) {
    // Plain turns and tool turns: each runs a model request under the idle deadline, and the
    // tool turns a command under the workspace's.
    if (i % 3 === 0) script.push({ events: toolEvents('', [[`c${i}`, 'echo hi']]) });
    script.push({ events: textEvents(`reply ${i}`) });
  }
  const net = fakeFetch(script);
  const sessionStore = memorySessionStore();
  const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, workspace: fakeWorkspace() });
  let session = await agent.createSession();
  const counts = [];
  for (let i = 0; i < turns; i += 1) {
    if (i > 0 && i % 40 === 0) {
      await session.close();
      session = await agent.createSession();
    }
    await session.prompt(`turn ${i}`).result;
    if (i === 19 || i === turns - 1) counts.push(live.size);
  }
  await agent.close();
  const [early, late] = counts;
  assert.ok(
    late - early <= 4,
    `live callbacks after turn 20: ${early}, after turn ${turns}: ${late} (${((late - early) / (turns - 20)).toFixed(2)} more a turn)`,
  );
});
