// Failures through createFxAgent: retries then success, retries running out, errors that are
// not retried, and garbage from the network (broken SSE, non-UTF-8, huge lines, non-byte chunks,
// bodies that are not bodies). Every case must end as a stop reason or a coded Error — never as
// a wasm trap (`RuntimeError: unreachable`) — and the agent must keep working afterwards.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memorySessionStore, readSession } from '../../pkg/index.js';
import { agentText, collect, env, fakeFetch, finish, isTrap, sse, textEvents, trapGuard } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const encoder = new TextEncoder();
const retryNow = { 'retry-after': '0' };

/** Runs one prompt against `script` and returns { updates, result | error, net, events, store }. */
async function run(script, { prompt = 'hi', agentOptions = {} } = {}) {
  const net = fakeFetch(script);
  const events = [];
  const sessionStore = memorySessionStore();
  const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, onEvent: (e) => events.push(e), ...agentOptions });
  const session = await agent.createSession();
  const turn = session.prompt(prompt);
  const updates = await collect(turn);
  const outcome = await turn.result.then(
    (result) => ({ result }),
    (error) => ({ error }),
  );
  if (outcome.error) guard.record(outcome.error);
  const turns = (await readSession((await sessionStore.load(session.id)).bytes)).turns;
  return { ...outcome, updates, net, events, turns, agent, session };
}

/** Asserts a clean failure: an Error with an FX_ code, not a trap. */
function assertCoded(error, code) {
  assert.ok(error instanceof Error, `an Error, got ${error}`);
  assert.ok(!isTrap(error), `not a wasm trap: ${error?.stack}`);
  if (code) assert.equal(error.code, code, error.message);
  else assert.match(String(error.code), /^FX_[A-Z_]+$/);
}

describe('retries', () => {
  test('503 with Retry-After, then success; the retry is an event', async () => {
    const { result, net, events, updates, agent } = await run([
      { status: 503, body: '{"error":{"message":"overloaded"}}', headers: retryNow },
      { events: textEvents('fine') },
    ]);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(agentText(updates), 'fine');
    assert.equal(net.chats().length, 2);
    const [retry] = events.filter((e) => e.type === 'request.retry');
    // `attempt` is the attempt about to be made (the first retry is attempt 2 of 5).
    assert.deepEqual([retry.attempt, retry.limit, retry.delayMs], [2, 5, 0]);
    assert.match(retry.reason, /503/);
    assert.deepEqual(net.chats()[0].body, net.chats()[1].body, 'the same request is sent again');
    await agent.close();
  });

  for (const status of [408, 409, 429, 500, 502, 504]) {
    test(`${status} is retried`, async () => {
      const { result, net, agent } = await run([{ status, body: '', headers: retryNow }, { events: textEvents('ok') }]);
      assert.equal(result.stopReason, 'end_turn');
      assert.equal(net.chats().length, 2);
      await agent.close();
    });
  }

  test('a dropped connection (fetch rejects) is retried', async () => {
    const { result, net, agent } = await run([{ error: 'socket hang up' }, { events: textEvents('back') }]);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(net.chats().length, 2);
    await agent.close();
  });

  test('a stream that ends before anything was shown is retried', async () => {
    const { result, net, updates, agent } = await run([
      { chunks: [sse([], { done: false })] },
      { events: textEvents('second try') },
    ]);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(agentText(updates), 'second try', 'no text is repeated');
    assert.equal(net.chats().length, 2);
    await agent.close();
  });

  test('retries run out after 5 attempts: a coded error, the turn kept as failed', async () => {
    const script = Array.from({ length: 5 }, () => ({ status: 429, body: '{"error":{"message":"slow down"}}', headers: retryNow }));
    const { error, net, events, turns, agent } = await run(script);
    assertCoded(error, 'FX_GATEWAY_HTTP_ERROR');
    assert.match(error.message, /slow down|429/);
    assert.equal(net.chats().length, 5);
    assert.equal(events.filter((e) => e.type === 'request.retry').length, 4);
    assert.equal(turns[0].kind, 'interrupted');
    assert.equal(turns[0].reason, 'failed');
    await agent.close();
  });
});

describe('errors that are not retried', () => {
  for (const [status, body, pattern] of [
    [400, '{"error":{"type":"invalid_request_error","message":"prompt is too long"}}', /prompt is too long/],
    [401, '{"error":{"type":"authentication_error","message":"bad key"}}', /bad key|401/],
    [403, 'forbidden, plainly', /403/],
    [404, '', /404/],
    [422, '<html>nope</html>', /422/],
  ]) {
    test(`HTTP ${status}: one request, a clear message`, async () => {
      const { error, net, turns, agent, session } = await run([{ status, body }, { events: textEvents('after') }]);
      assertCoded(error, 'FX_GATEWAY_HTTP_ERROR');
      assert.match(error.message, pattern);
      assert.equal(net.chats().length, 1);
      assert.equal(turns[0].reason, 'failed');
      // The session is still usable.
      assert.equal(await session.prompt('again').stopReason, 'end_turn');
      await agent.close();
    });
  }

  test('a stream that breaks after text was shown is not retried; the text is kept', async () => {
    const { error, updates, net, turns, agent } = await run([
      {
        stream(controller) {
          controller.enqueue(encoder.encode(sse([{ type: 'text-delta', delta: 'partial' }], { done: false })));
          // Later, so the chunk is read first (error() drops queued chunks).
          setTimeout(() => controller.error(new TypeError('connection reset')), 20);
        },
      },
    ]);
    assertCoded(error);
    assert.equal(agentText(updates), 'partial');
    assert.equal(net.chats().length, 1);
    assert.equal(turns[0].assistant, 'partial');
    assert.equal(turns[0].reason, 'failed');
    await agent.close();
  });

  test('a provider error event before any output is retried; after output it fails the turn', async () => {
    const failure = { type: 'error', error: { message: 'upstream exploded', type: 'server_error' } };
    const retried = await run([{ events: [failure] }, { events: textEvents('second') }]);
    assert.equal(retried.result.stopReason, 'end_turn');
    assert.equal(retried.net.chats().length, 2);
    await retried.agent.close();
    const failed = await run([{ events: [{ type: 'text-delta', delta: 'so far' }, failure] }]);
    assertCoded(failed.error, 'FX_GATEWAY_RESPONSE_ERROR');
    assert.match(failed.error.message, /upstream exploded/);
    assert.equal(failed.turns[0].assistant, 'so far');
    await failed.agent.close();
  });

  // ACP's stop reasons (fx names them max_output_tokens and refused).
  test('finish reasons: length → max_tokens, content-filter → refusal', async () => {
    const length = await run([{ events: [{ type: 'text-delta', delta: 'cut' }, finish('length')] }]);
    assert.equal(length.result.stopReason, 'max_tokens');
    await length.agent.close();
    const refused = await run([{ events: [{ type: 'text-delta', delta: 'no' }, finish('content-filter')] }]);
    assert.equal(refused.result.stopReason, 'refusal');
    await refused.agent.close();
  });
});

/** A deterministic byte generator (xorshift32). */
function noise(length, seed) {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const bytes = (...parts) => {
  const arrays = parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : p));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
};

/** Splits `data` into chunks of `size` bytes. */
const split = (data, size) => {
  const out = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
};

describe('garbage from the network never traps the core', () => {
  const good = { events: textEvents('recovered') };
  const cases = [
    ['random bytes', { chunks: split(noise(64 * 1024, 7), 1000) }],
    ['random bytes with newlines and data: prefixes', { chunks: [bytes('data: ', noise(5000, 9), '\n\ndata: {"type":', noise(300, 11), '\n\n')] }],
    ['invalid JSON in data lines', { chunks: ['data: {"type":"text-delta","delta":\n\ndata: nope\n\ndata: [1,2\n\n'] }],
    ['non-UTF-8 inside a text delta', { chunks: [bytes('data: {"type":"text-delta","delta":"ab', new Uint8Array([0xff, 0xfe, 0xc3]), '"}\n\n'), sse([finish()])] }],
    ['a lone surrogate escape', { chunks: [sse([]).replace('data: [DONE]', 'data: {"type":"text-delta","delta":"\\ud800x"}\n\ndata: [DONE]')] }],
    ['unknown event types and odd fields', { chunks: [sse([{ type: 'mystery', x: 1 }, { type: 'text-delta' }, { type: 'text-delta', delta: 42 }, { delta: 'no type' }, finish()])] }],
    ['odd usage numbers', { events: [{ type: 'text-delta', delta: 'x' }, { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens: { total: -5 }, outputTokens: { total: 1e300 } } }] }],
    ['a tool call without a workspace, with broken input', { events: [{ type: 'tool-call', toolCallId: 'z', toolName: 'terminal', input: '{not json' }, finish('tool-calls')] }],
    ['a non-byte chunk (a string)', { raw: ['data: {"type":"text-delta","delta":"x"}\n\n'] }],
    ['a non-byte chunk (an object)', { raw: [{ length: 3 }] }],
    ['a non-byte chunk (null)', { raw: [null] }],
    ['fetch resolves to null', { resolve: null }],
    ['fetch resolves to a plain object', { resolve: { status: 200 } }],
    ['a 200 without a body', { noBody: true }],
    ['a huge error body', { status: 400, body: 'x'.repeat(5 * 1024 * 1024) }],
    ['a 500 error body of random bytes', { status: 500, body: noise(10_000, 3), headers: retryNow }],
    ['an unreadable Retry-After', { status: 503, body: '', headers: { 'retry-after': 'soon, maybe \u00ff' } }],
    ['a line longer than the 32 MiB limit', { chunks: ['data: {"type":"text-delta","delta":"', ...Array.from({ length: 33 }, () => 'y'.repeat(1024 * 1024))] }],
  ];
  for (const [label, reply] of cases) {
    test(label, async () => {
      // A retried failure gets one good answer next (so backoff stays at its first 250 ms).
      const { result, error, agent, session } = await run([reply, good]);
      if (error) assertCoded(error);
      else assert.match(result.stopReason, /^(end_turn|max_tokens|refusal|max_turn_requests)$/);
      // The wasm instance is not poisoned: a new agent on it runs a normal turn.
      const net2 = fakeFetch([{ events: textEvents('still fine') }]);
      const agent2 = await createFxAgent({ fetch: net2.fetch, env });
      const s2 = await agent2.createSession();
      assert.equal(agentText(await collect(s2.prompt('ok?'))), 'still fine');
      await agent2.close();
      await session.close();
      await agent.close();
    });
  }

  test('a stream cut at every byte, with CRLF, comments and a split emoji, decodes exactly', async () => {
    const text = 'héllo wörld 🌍 ✓';
    const body =
      ': comment\r\n' +
      [...text].map((ch) => `data: ${JSON.stringify({ type: 'text-delta', id: 't', delta: ch })}\r\n\r\n`).join('') +
      `data: ${JSON.stringify(finish())}\r\n\r\ndata: [DONE]\r\n\r\n`;
    const { result, updates, turns, agent } = await run([{ chunks: split(encoder.encode(body), 1) }]);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(agentText(updates), text);
    assert.equal(turns[0].assistant, text);
    await agent.close();
  });

  test('a 1 MiB text delta in one event', async () => {
    const big = 'ab'.repeat(512 * 1024);
    const { result, updates, agent } = await run([{ events: textEvents(big) }]);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(agentText(updates).length, big.length);
    await agent.close();
  });

  test('bad adapters: a throwing store, a store returning junk, a workspace returning junk', async () => {
    const junkStore = { load: () => ({ bytes: 'nope' }), commit: () => ({}), list: () => 'x', remove: () => {} };
    const agent = await createFxAgent({ fetch: fakeFetch([{ events: textEvents('answered') }]).fetch, env, sessionStore: junkStore });
    // A new session is first committed when its turn ends.
    const unstored = await agent.createSession();
    await assert.rejects(unstored.prompt('hi').result, (e) => (assertCoded(e), true));
    await assert.rejects(agent.openSession('1-1-0000000000000000'), (e) => (assertCoded(e), true));
    await assert.rejects(agent.listSessions(), (e) => (assertCoded(e), true));
    await agent.close();

    const net = fakeFetch([
      { events: [{ type: 'tool-call', toolCallId: 'w', toolName: 'terminal', input: '{"action":"exec","command":"ls"}' }, finish('tool-calls')] },
      { events: textEvents('ok') },
    ]);
    const workspace = {
      info: { version: 1, root: '/w', cwd: '/w', home: '/h', gitAvailable: false, ephemeral: true },
      permission: 'allow-sandboxed',
      exec: () => ({ stdout: 5, stderr: null, exitCode: 'zero' }),
    };
    const agent2 = await createFxAgent({ fetch: net.fetch, env, workspace });
    const session = await agent2.createSession();
    assert.equal(await session.prompt('run').stopReason, 'end_turn');
    const result = net.chats()[1].body.prompt.find((m) => m.role === 'tool').content[0].output.value;
    assert.match(result, /workspace\.exec\(\) must return/);
    await agent2.close();
  });
});
