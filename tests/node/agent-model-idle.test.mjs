// The model idle deadline (`modelIdleTimeoutMs`, issue 25 item 6) through the JS API: a fetch that
// never answers is cut after the deadline and retried on the usual schedule, then the turn fails
// with FX_GATEWAY_TIMEOUT; a body that stalls after text reached the user fails at once, without a
// retry; one that stalls before any text is retried; the bots get the same deadline.

import assert from 'node:assert/strict';
import { after, describe, mock, test } from 'node:test';

import { createFxAgent, memorySessionStore, readSession } from '../../pkg/index.js';
import { createFxbot, memoryFxbotStore } from '../../pkg/fxbot/node.js';
import { agentText, collect, env, fakeFetch, sse, textEvents, trapGuard, within } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const IDLE_MS = 50;
const halfAnEvent = 'data: {"type":"text-delta","id":"t","del';
const textThenNothing = (text) => sse([{ type: 'text-delta', id: 't', delta: text }], { done: false });

async function start(script) {
  const net = fakeFetch(script);
  const events = [];
  const sessionStore = memorySessionStore();
  const agent = await createFxAgent({
    fetch: net.fetch,
    env,
    sessionStore,
    modelIdleTimeoutMs: IDLE_MS,
    onEvent: (event) => events.push(event),
  });
  const session = await agent.createSession();
  const stored = async () => (await readSession((await sessionStore.load(session.id)).bytes)).turns;
  return { net, events, agent, session, stored };
}

/** Runs a prompt: its updates and its outcome, or `settled: false` after `ms`. */
async function prompt(session, text, ms = 5000) {
  const turn = session.prompt(text);
  const collecting = collect(turn);
  const outcome = await within(turn.result, ms);
  const updates = await collecting;
  if (outcome.error) guard.record(outcome.error);
  return { ...outcome, updates };
}

const retries = (events) => events.filter((e) => e.type === 'request.retry');

/**
 * Settles `promise` on Node's mock timers: the core's timers (the idle deadline, the retry
 * backoff) fire as the mock clock moves `stepMs` per macrotask, so the 7 s of backoff between
 * five attempts take no real time. Returns the outcome and the mock time it took.
 */
async function onMockTimers(run, stepMs = 50, limitMs = 60_000) {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let outcome;
    const settled = Promise.resolve(run()).then(
      (value) => (outcome = { value }),
      (error) => (outcome = { error }),
    );
    let elapsed = 0;
    while (!outcome && elapsed < limitMs) {
      await new Promise((resolve) => setImmediate(resolve));
      if (outcome) break;
      mock.timers.tick(stepMs);
      elapsed += stepMs;
    }
    if (!outcome) throw new Error(`not settled after ${limitMs} ms of mock time`);
    await settled;
    return { ...outcome, elapsed };
  } finally {
    mock.timers.reset();
  }
}

describe('createFxAgent: modelIdleTimeoutMs', () => {
  test('a bad value is a TypeError naming the option', async () => {
    for (const value of [0, -1, 1.5, '50', 2 ** 31]) {
      await assert.rejects(createFxAgent({ fetch: fakeFetch([]).fetch, env, modelIdleTimeoutMs: value }), (error) => {
        assert.equal(error.name, 'TypeError');
        assert.match(error.message, /modelIdleTimeoutMs must be a whole number of milliseconds/);
        return true;
      });
    }
  });

  test('a fetch that never answers: cut at the deadline, retried 4 times, then FX_GATEWAY_TIMEOUT', async () => {
    const { net, events, agent, session, stored } = await start(Array.from({ length: 5 }, () => ({ hang: true })));
    const { error, elapsed } = await onMockTimers(() => session.prompt('hi').result);
    assert.ok(error, 'the turn failed');
    assert.equal(error.code, 'FX_GATEWAY_TIMEOUT', error.message);
    assert.match(error.message, /sent nothing for 50 ms \(modelIdleTimeoutMs\)/);
    console.log(`never answers: ${error.message} (${error.code}) after ${elapsed} ms of mock time`);
    assert.equal(net.chats().length, 5);
    assert.equal(net.aborted.length, 5, 'every cut request was aborted through its signal');
    const retried = retries(events);
    assert.deepEqual(retried.map((e) => [e.attempt, e.delayMs]), [[2, 250], [3, 1000], [4, 2000], [5, 4000]]);
    assert.ok(retried.every((e) => /sent nothing for 50 ms/.test(e.reason)));
    // 5 idle periods and the backoff between them: bounded, and nowhere near the 5 min default.
    assert.ok(elapsed >= 5 * IDLE_MS + 7250 && elapsed <= 5 * IDLE_MS + 7250 + 1000, `${elapsed} ms`);
    const [turn] = await stored();
    assert.equal(turn.kind, 'interrupted');
    assert.equal(turn.reason, 'failed');
    await agent.close();
  });

  test('a fetch that answers on the retry completes the turn', async () => {
    const { net, events, agent, session } = await start([{ hang: true }, { events: textEvents('second ', 'try') }]);
    const outcome = await prompt(session, 'hi');
    const { updates } = outcome;
    assert.ok(outcome.settled, 'the turn ended');
    assert.equal(outcome.value?.stopReason, 'end_turn', outcome.error?.message);
    assert.equal(agentText(updates), 'second try');
    assert.equal(net.chats().length, 2);
    assert.equal(retries(events).length, 1);
    await agent.close();
  });

  test('a body that stalls after a first chunk of text: FX_GATEWAY_TIMEOUT at once, no retry, the text kept', async () => {
    const { net, events, agent, session, stored } = await start([{ chunks: [textThenNothing('Half an ans')], stall: true }]);
    const started = Date.now();
    const outcome = await prompt(session, 'hi');
    const { updates } = outcome;
    assert.ok(outcome.settled, 'the turn ended');
    assert.equal(outcome.error?.code, 'FX_GATEWAY_TIMEOUT', outcome.error?.message);
    console.log(`stalls after text: ${outcome.error.message} after ${Date.now() - started} ms`);
    assert.equal(agentText(updates), 'Half an ans');
    assert.equal(net.chats().length, 1, 'text on screen is never repeated');
    assert.equal(net.aborted.length, 1);
    assert.equal(retries(events).length, 0);
    const [kept] = await stored();
    assert.equal(kept.kind, 'interrupted');
    assert.equal(kept.reason, 'failed');
    assert.equal(kept.assistant, 'Half an ans');
    await agent.close();
  });

  test('a body that stalls after a first chunk with no text yet is a cut stream: retried', async () => {
    const { net, events, agent, session } = await start([
      { chunks: [halfAnEvent], stall: true },
      { events: textEvents('whole') },
    ]);
    const outcome = await prompt(session, 'hi');
    const { updates } = outcome;
    assert.equal(outcome.value?.stopReason, 'end_turn', outcome.error?.message);
    assert.equal(agentText(updates), 'whole');
    assert.equal(net.chats().length, 2);
    assert.equal(retries(events).length, 1);
    await agent.close();
  });

  test('a stream slower than the deadline overall but never silent that long is not cut', async () => {
    const encoder = new TextEncoder();
    const pieces = sse(textEvents('one ', 'two ', 'three')).match(/[\s\S]{1,12}/g);
    const { net, agent, session } = await start([
      {
        // A piece every 30 ms of mock time: each gap inside the 50 ms deadline, the whole
        // reply many times longer.
        stream(controller) {
          let i = 0;
          const next = () => {
            if (i === pieces.length) return controller.close();
            controller.enqueue(encoder.encode(pieces[i]));
            i += 1;
            setTimeout(next, 30);
          };
          next();
        },
      },
    ]);
    const { value: updates, error, elapsed } = await onMockTimers(() => collect(session.prompt('slowly')), 10);
    assert.equal(error, undefined, error?.message);
    console.log(`${pieces.length} pieces 30 ms apart: the reply took ${elapsed} ms of mock time, not cut`);
    assert.ok(elapsed > 10 * IDLE_MS, `${elapsed} ms`);
    assert.equal(agentText(updates), 'one two three');
    assert.equal(net.chats().length, 1);
    await agent.close();
  });
});

describe('createFxbot: modelIdleTimeoutMs', () => {
  test('a model request that stalls after text ends the bot turn at the deadline; the next send works', async () => {
    const net = fakeFetch([{ chunks: [textThenNothing('Half')], stall: true }, { events: textEvents('fine') }]);
    const fxbot = await createFxbot({ store: memoryFxbotStore(), fetch: net.fetch, modelIdleTimeoutMs: IDLE_MS });
    const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'test-key', model: 'test/model' });
    await fxbot.settings.update({ defaultProvider: provider.id });
    const bot = await fxbot.bots.create({ name: 'Ada' });
    await fxbot.chat.send(bot.id, { text: 'hello', messageId: 'm1' });
    const lines = [];
    for await (const line of fxbot.chat.stream(bot.id, 0)) {
      lines.push(line);
      if (line.type === 'turn_end') break;
    }
    const end = lines.at(-1);
    assert.equal(end.stopReason, 'error');
    assert.match(end.error.message, /sent nothing for 50 ms \(modelIdleTimeoutMs\)/);
    console.log(`bot turn_end.error: ${end.error.code} ${end.error.message}`);
    assert.equal(net.chats().length, 1);
    const second = await fxbot.chat.send(bot.id, { text: 'again', messageId: 'm2' });
    assert.equal(second.turn, 2);
    await fxbot.close?.();
  });

  test('a bad value is a TypeError', async () => {
    await assert.rejects(createFxbot({ store: memoryFxbotStore(), fetch: fakeFetch([]).fetch, modelIdleTimeoutMs: 0 }), TypeError);
  });
});
