// createFxTerminal through @xterm/headless: what the terminal refuses and when it asks the
// network. The model catalog is fetched when first needed (never at start-up); a model the
// catalog does not list is taken with a suggestion; an unknown mode or command is refused with
// one; `/mcp list`-style commands never become prompts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { memoryConfigStore } from '../../pkg/index.js';
import { env, fakeFetch, textEvents, WIDE_CATALOG } from './agent-support.mjs';
import { contains, flushed, screen, startTerminal, until } from './terminal-support.mjs';


const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const catalogRequests = (net) => net.calls.filter((c) => c.method === 'GET');
const statusLine = (term) => screen(term).trimEnd().split('\n').at(-1);

describe('the model catalog is fetched when first needed', () => {
  test('no request at start-up, while typing, or for other commands; /model fetches it', async () => {
    const net = fakeFetch([], { catalog: WIDE_CATALOG });
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env });
    // The terminal's start-up queries (colour scheme, device attributes) are answered by xterm.
    await delay(200);
    await flushed(term);
    runtime.write('hello there');
    await contains(term, '┃ hello there');
    runtime.write('\x15/status\r');
    await contains(term, '● Status');
    await delay(100);
    assert.deepEqual(catalogRequests(net), [], 'no catalog request yet');

    runtime.write('/model\r');
    await contains(term, 'openai/gpt-5-mini');
    assert.equal(catalogRequests(net).length, 1, 'one catalog request, when the picker opened');
    runtime.write('\x1b');
    await until(term, (text) => !text.includes('Choose a model'), { what: 'the picker to close' });
    runtime.write('/models\r');
    await contains(term, 'anthropic/claude-sonnet-4.5');
    assert.equal(catalogRequests(net).length, 1, 'loaded once');
    runtime.abort();
  });

  test('a plain turn costs one request: no catalog, start-up included', async () => {
    const net = fakeFetch([{ events: textEvents('hi there') }, { events: textEvents('again') }], { catalog: WIDE_CATALOG });
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env });
    runtime.write('hello\r');
    await contains(term, 'hi there');
    runtime.write('more\r');
    await contains(term, 'again');
    await delay(100);
    assert.deepEqual(net.calls.map((c) => c.method), ['POST', 'POST'], 'one request per turn, no catalog');
    // The model screen still fetches it.
    runtime.write('/models\r');
    await contains(term, 'anthropic/claude-sonnet-4.5');
    assert.equal(catalogRequests(net).length, 1);
    runtime.abort();
  });
});

describe('refused values and commands', () => {
  test('/model with an id the catalog lacks takes it, says so and suggests the nearest', async () => {
    const configStore = memoryConfigStore();
    const net = fakeFetch([{ events: textEvents('served') }], { catalog: WIDE_CATALOG });
    const { term, runtime, events } = await startTerminal({ fetch: net.fetch, env, configStore });
    runtime.write('/model gpt-nonexistent\r');
    const text = await contains(term, 'not in the model catalog');
    assert.match(text, /gpt-nonexistent/);
    assert.match(text, /using it anyway/);
    assert.match(text, /\/model openai\/gpt-5/);
    await until(term, () => /gpt-nonexistent/.test(statusLine(term)), { what: 'the new model in the status line' });
    assert.equal(await configStore.get('model'), 'gpt-nonexistent');
    const warning = events.find((e) => e.type === 'config.model_unlisted');
    assert.equal(warning?.model, 'gpt-nonexistent');
    assert.equal(warning.source, 'terminal');
    assert.ok(warning.nearest.includes('openai/gpt-5'));
    // The next turn asks for it.
    runtime.write('hello\r');
    await contains(term, 'served');
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'gpt-nonexistent');
    // A catalog id is taken without the warning.
    runtime.write('/model openai/gpt-5\r');
    await contains(term, 'Switched to openai/gpt-5');
    assert.equal(await configStore.get('model'), 'openai/gpt-5');
    assert.equal(events.filter((e) => e.type === 'config.model_unlisted').length, 1);
    runtime.abort();
  });

  test('/model with a malformed id is refused and the model stays', async () => {
    const configStore = memoryConfigStore();
    const { term, runtime, events } = await startTerminal({ fetch: fakeFetch([], { catalog: WIDE_CATALOG }).fetch, env, configStore });
    runtime.write('/model ' + 'x'.repeat(1100) + '\r');
    await contains(term, 'is not a valid model id');
    assert.match(statusLine(term), /kimi-k3/);
    assert.equal(await configStore.get('model'), null);
    assert.ok(!events.some((e) => e.type === 'config.changed' || e.type === 'config.model_unlisted'));
    runtime.abort();
  });

  test('/permissions with an unknown mode is refused and names the modes', async () => {
    const configStore = memoryConfigStore();
    const { term, runtime } = await startTerminal({ fetch: fakeFetch([]).fetch, env, configStore });
    runtime.write('/permissions yolo\r');
    const text = await contains(term, 'yolo');
    assert.match(text, /\/permissions ask/);
    assert.match(text, /\/permissions auto/);
    assert.equal(await configStore.get('mode'), null);
    runtime.abort();
  });

  test('/mcp list and /skills list are refused like any unknown command, never sent as prompts', async () => {
    const net = fakeFetch([]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env });
    runtime.write('/mcp list\r');
    await contains(term, 'unknown command /mcp');
    runtime.write('/skills list\r');
    await contains(term, 'unknown command /skills');
    runtime.write('/modle gpt\r');
    const text = await contains(term, 'unknown command /modle');
    assert.match(text, /did you mean \/model/);
    await delay(100);
    assert.equal(net.chats().length, 0, 'nothing went to the model');
    assert.doesNotMatch(screen(term), /Thinking/);
    runtime.abort();
  });
});
