// createFxTerminal with a model that stops answering (`modelIdleTimeoutMs`, issue 25 item 6),
// through @xterm/headless: a request that never answers is cut at the deadline and the retry shows
// in the status; a reply that stalls after its first words ends with FX_GATEWAY_TIMEOUT on screen
// and the next prompt runs; a request that never answers at all ends the same way after the
// retries.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { env, fakeFetch, sse, textEvents, trapGuard } from './agent-support.mjs';
import { allText, contains, startTerminal, until } from './terminal-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const wide = { cols: 160, rows: 30 };
const IDLE_MS = 50;
const textThenNothing = (text) => sse([{ type: 'text-delta', id: 't', delta: text }], { done: false });

describe('createFxTerminal: modelIdleTimeoutMs', () => {
  test('a request that never answers is cut and retried; the retry shows, then the reply', async () => {
    const net = fakeFetch([{ hang: true }, { events: textEvents('answered on the retry') }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, modelIdleTimeoutMs: IDLE_MS }, wide);
    runtime.write('hello\r');
    await until(term, (_, all) => /sent nothing for 50 ms \(modelIdleTimeoutMs\) · retrying in \d+s · attempt 2\/5/.test(all), {
      what: 'the retry status',
    });
    await contains(term, 'answered on the retry', { timeout: 3000 });
    assert.equal(net.chats().length, 2);
    assert.ok(net.aborted.includes(net.chats()[0]), 'the silent request was aborted');
    runtime.abort();
  });

  test('a reply that stalls after its first words: FX_GATEWAY_TIMEOUT on screen, no retry; the next prompt runs', async () => {
    const net = fakeFetch([{ chunks: [textThenNothing('The first words')], stall: true }, { events: textEvents('second answer') }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, modelIdleTimeoutMs: IDLE_MS }, wide);
    const started = Date.now();
    runtime.write('tell me\r');
    await contains(term, 'The first words');
    const screen = await until(term, (_, all) => /sent nothing for 50 ms \(modelIdleTimeoutMs\) \(FX_GATEWAY_TIMEOUT\)/.test(all), {
      what: 'the timeout failure',
    });
    console.log(`stalled reply failed on screen after ${Date.now() - started} ms:\n${screen.split('\n').filter((l) => l.trim()).join('\n')}`);
    assert.equal(net.chats().length, 1, 'text on screen is never repeated');
    assert.doesNotMatch(allText(term), /retrying in/);
    runtime.write('again\r');
    await contains(term, 'second answer');
    runtime.abort();
  });

  test('a request that never answers at all: five attempts, then FX_GATEWAY_TIMEOUT on screen', async () => {
    const net = fakeFetch(Array.from({ length: 5 }, () => ({ hang: true })));
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, modelIdleTimeoutMs: IDLE_MS }, wide);
    const started = Date.now();
    runtime.write('anyone there?\r');
    // Five idle periods and the usual backoff between them (0.25 + 1 + 2 + 4 s: real time, the
    // terminal's own schedule).
    await until(term, (_, all) => /retrying in 4s · attempt 5\/5/.test(all), { timeout: 8000, what: 'the last retry' });
    await until(term, (_, all) => /sent nothing for 50 ms \(modelIdleTimeoutMs\) \(FX_GATEWAY_TIMEOUT\)/.test(all), {
      timeout: 8000,
      what: 'the timeout failure',
    });
    const took = Date.now() - started;
    console.log(`never answered: failed on screen after ${took} ms`);
    assert.ok(took < 12_000, `${took} ms`);
    assert.equal(net.chats().length, 5);
    assert.equal(net.aborted.length, 5);
    runtime.abort();
  });
});
