// createFxAgent's options and the sharp edges of the reference SDK (sdk-api.md §12.3) that we
// fix: `fetch: undefined` means the default fetch, an `undefined` env value means absent, a failed
// start tears the runtime down, endpoint and workspace validation, the model catalog.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, afterEach, describe, test } from 'node:test';

import { createFxAgent } from '../../pkg/index.js';
import { collect, env, fakeFetch, fakeWorkspace, textEvents, trapGuard, WIDE_CATALOG } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('options', () => {
  test('fetch: undefined (and no fetch key) use globalThis.fetch', async () => {
    for (const options of [{ fetch: undefined, env }, { env }]) {
      const net = fakeFetch([{ events: textEvents('via the global fetch') }]);
      globalThis.fetch = net.fetch;
      const agent = await createFxAgent(options);
      const session = await agent.createSession();
      assert.equal(await session.prompt('hi').stopReason, 'end_turn');
      assert.equal(net.chats().length, 1);
      await agent.close();
    }
  });

  test('a fetch that is not a function is a TypeError', async () => {
    await assert.rejects(createFxAgent({ fetch: 'https://example.com' }), TypeError);
    await assert.rejects(createFxAgent(null), TypeError);
  });

  test('env: an undefined or null key is absent, never the text "undefined"', async () => {
    const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env: { AI_GATEWAY_API_KEY: undefined } });
    const session = await agent.createSession();
    await assert.rejects(session.prompt('hi').result, (e) => e.code === 'FX_AUTH_REQUIRED');
    await agent.close();

    // Against a loopback gateway a missing key is allowed: no Authorization header at all.
    const net = fakeFetch([{ events: textEvents('local') }]);
    const local = await createFxAgent({
      fetch: net.fetch,
      env: { AI_GATEWAY_API_KEY: null, FX_GATEWAY_CHAT_URL: 'http://127.0.0.1:8788/v3/ai/language-model' },
    });
    const s2 = await local.createSession();
    assert.equal(await s2.prompt('hi').stopReason, 'end_turn');
    const [chat] = net.chats();
    assert.equal(chat.url, 'http://127.0.0.1:8788/v3/ai/language-model');
    assert.equal(chat.headers.authorization, undefined);
    await s2.loadConfigOptions();
    assert.equal(net.calls.find((c) => c.method === 'GET').url, 'http://127.0.0.1:8788/coding-agent/v1/models');
    await local.close();
  });

  test('env: FX_MODEL picks the model; a blank key counts as none', async () => {
    const net = fakeFetch([{ events: textEvents('ok') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env: { ...env, FX_MODEL: 'test/feature-model' } });
    const session = await agent.createSession();
    await session.prompt('hi').result;
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'test/feature-model');
    await agent.close();
    const blank = await createFxAgent({ fetch: fakeFetch([]).fetch, env: { AI_GATEWAY_API_KEY: '   ' } });
    const s2 = await blank.createSession();
    await assert.rejects(s2.prompt('hi').result, (e) => e.code === 'FX_AUTH_REQUIRED');
    await blank.close();
  });

  test('FX_GATEWAY_CHAT_URL: only the canonical URL or explicit loopback http', async () => {
    for (const url of [
      'https://ai-gateway.vercel.sh/v3/ai/language-model',
      'http://localhost:1234/v3/ai/language-model',
      'http://[::1]:9/v3/ai/language-model',
    ]) {
      const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env: { FX_GATEWAY_CHAT_URL: url } });
      await agent.close();
    }
    for (const url of [
      'https://evil.example/v3/ai/language-model',
      'http://localhost/v3/ai/language-model',
      'http://user:pw@127.0.0.1:80/v3',
      'http://127.0.0.1:80/v3#frag',
      'not a url',
      'http://10.0.0.1:80/v3',
    ]) {
      await assert.rejects(createFxAgent({ fetch: fakeFetch([]).fetch, env: { FX_GATEWAY_CHAT_URL: url } }), TypeError, url);
    }
    await assert.rejects(createFxAgent({ env: { AI_GATEWAY_API_KEY: { key: 1 } } }), TypeError);
  });

  test('a failed start tears the runtime down: runtime.exit, no request, nothing left running', async () => {
    const invalid = [
      { ...fakeWorkspace(), info: { ...fakeWorkspace().info, cwd: '/elsewhere' } },
      { ...fakeWorkspace(), info: { ...fakeWorkspace().info, version: 2 } },
      { ...fakeWorkspace(), info: { ...fakeWorkspace().info, root: 'relative/path' } },
      { ...fakeWorkspace(), permission: 'yolo' },
      {
        ...fakeWorkspace(),
        get info() {
          throw new Error('getter blew up');
        },
      },
    ];
    for (const workspace of invalid) {
      const net = fakeFetch([]);
      const events = [];
      await assert.rejects(createFxAgent({ fetch: net.fetch, env, workspace, onEvent: (e) => events.push(e) }), (error) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.match(error.message, /workspace/i);
        return true;
      });
      assert.deepEqual(events.map((e) => e.type), ['runtime.start', 'runtime.exit']);
      assert.equal(events[1].code, 1);
      assert.equal(net.calls.length, 0, 'not even the catalog was fetched');
    }
  });

  test('the wasm option accepts bytes and a compiled module', async () => {
    const bytes = await readFile(new URL('../../pkg/fx-core.wasm', import.meta.url));
    const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env, wasm: bytes });
    await agent.close();
    const module = await WebAssembly.compile(bytes);
    const agent2 = await createFxAgent({ fetch: fakeFetch([]).fetch, env, wasm: module });
    await agent2.close();
  });

  test('a plain turn on a fresh agent makes exactly one request, start-up included', async () => {
    const calls = [];
    const net = fakeFetch([{ events: textEvents('one request') }]);
    const fetch = (url, init) => {
      calls.push(`${init?.method ?? 'GET'} ${url}`);
      return net.fetch(url, init);
    };
    const agent = await createFxAgent({ fetch, env });
    const session = await agent.createSession();
    assert.equal((await session.prompt('hi').result).stopReason, 'end_turn');
    await agent.close();
    assert.equal(calls.length, 1, calls.join('\n'));
    assert.match(calls[0], /^POST .*\/ai\/language-model$/);
  });

  test('loadConfigOptions fetches the catalog once for the model select; a failed catalog does not block a turn', async () => {
    const events = [];
    const net = fakeFetch([{ events: textEvents('works without a catalog') }], { catalog: null });
    const agent = await createFxAgent({ fetch: net.fetch, env, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const model = (await session.loadConfigOptions()).find((o) => o.id === 'model');
    assert.match(events.find((e) => e.type === 'catalog.error').error, /503/);
    assert.equal(model.currentValue, 'moonshotai/kimi-k3');
    assert.deepEqual(model.options.map((o) => o.value), ['moonshotai/kimi-k3']);
    assert.equal(await session.prompt('hi').stopReason, 'end_turn');
    await agent.close();

    const ok = fakeFetch([]);
    const withCatalog = await createFxAgent({ fetch: ok.fetch, env });
    const s2 = await withCatalog.createSession();
    assert.deepEqual(s2.configOptions.find((o) => o.id === 'model').options.map((o) => o.value), ['moonshotai/kimi-k3'], 'no catalog yet');
    assert.equal(ok.calls.length, 0, 'createSession fetches nothing');
    const options = await s2.loadConfigOptions();
    const values = options.find((o) => o.id === 'model').options.map((o) => o.value);
    assert.ok(values.includes('sdk/catalog-alpha') && values.includes('test/feature-model'));
    assert.ok(values.includes('moonshotai/kimi-k3'), 'the current model is listed even if the catalog lacks it');
    assert.deepEqual(s2.configOptions, options, 'configOptions follows');
    assert.equal(options.find((o) => o.id === 'mode').currentValue, 'ask');
    await s2.loadConfigOptions();
    await s2.setModel('sdk/catalog-alpha');
    assert.equal(ok.calls.filter((c) => c.method === 'GET').length, 1, 'fetched once');
    await withCatalog.close();
  });

  test('setModel fetches the catalog it checks the model against; concurrent needs share one request', async () => {
    let release;
    const gate = new Promise((resolve) => {
      release = resolve;
    });
    const events = [];
    const net = fakeFetch([], { catalog: WIDE_CATALOG });
    const fetch = async (url, init) => {
      if ((init.method ?? 'GET') === 'GET') await gate;
      return net.fetch(url, init);
    };
    const agent = await createFxAgent({ fetch, env, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const menu = session.loadConfigOptions();
    const setting = session.setModel('openai/gpt-5-nano');
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([menu, setting]);
    assert.equal(net.calls.filter((c) => c.method === 'GET').length, 1);
    assert.equal(events.find((e) => e.type === 'config.model_unlisted')?.model, 'openai/gpt-5-nano');
    await agent.close();
  });

  test('a catalog that never answers delays setModel and loadConfigOptions by at most 2 s, a new session not at all', async () => {
    const net = fakeFetch([{ events: textEvents('fine') }]);
    const fetch = (url, init) => ((init.method ?? 'GET') === 'GET' ? new Promise(() => {}) : net.fetch(url, init));
    const agent = await createFxAgent({ fetch, env });
    let started = performance.now();
    const session = await agent.createSession();
    assert.ok(performance.now() - started < 500, 'createSession does not wait for a catalog');
    started = performance.now();
    const options = await session.loadConfigOptions();
    const waited = performance.now() - started;
    assert.ok(waited >= 1900 && waited < 4000, `waited ${waited} ms for the catalog`);
    assert.deepEqual(options.find((o) => o.id === 'model').options.map((o) => o.value), ['moonshotai/kimi-k3']);
    assert.equal(await session.prompt('hi').stopReason, 'end_turn');
    started = performance.now();
    await session.setModel('some/model');
    assert.ok(performance.now() - started < 4000);
    await agent.close();
  });

  test('one active session: createSession closes the previous one and cancels its turn', async () => {
    const net = fakeFetch([{ hang: true }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const first = await agent.createSession();
    const turn = first.prompt('long');
    await net.untilStalled();
    const second = await agent.createSession();
    assert.equal(await turn.stopReason, 'cancelled');
    assert.throws(() => first.prompt('x'), /fx session is closed/);
    assert.notEqual(second.id, first.id);
    assert.throws(() => second.prompt('a') && second.prompt('b'), /already in progress/);
    await agent.close();
    await assert.rejects(agent.createSession(), /fx agent is closing/);
    await assert.rejects(agent.listSessions(), /fx agent is closing/);
    assert.equal(await agent.close(), 0);
  });

  test('prompt input: strings, text and resource blocks; bad input throws synchronously', async () => {
    const net = fakeFetch([{ events: textEvents('ok') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    await collect(
      session.prompt([
        { type: 'text', text: 'Look at this:' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'A' } },
        { type: 'resource', uri: 'file:///b.txt' },
      ]),
    );
    assert.equal(net.chats()[0].body.prompt.at(-1).content[0].text, 'Look at this:\nFile: file:///a.txt\nA\nFile: file:///b.txt');
    assert.throws(() => session.prompt(42), TypeError);
    assert.throws(() => session.prompt([null]), /prompt block 0 must be an object/);
    assert.throws(() => session.prompt([{ type: 'image', data: '' }]), /image prompt blocks are unsupported/);
    assert.throws(() => session.prompt([{ type: 'text', text: 1 }]), /text prompt block 0 requires text/);
    assert.throws(() => session.prompt([{ type: 'resource' }]), /requires uri/);
    assert.throws(() => session.prompt([{ type: 'audio' }]), /unsupported prompt block type: audio/);
    assert.throws(() => session.prompt('x', { signal: {} }), /prompt signal must be an AbortSignal/);
    await assert.rejects(session.prompt('   ').result, (e) => e.code === 'FX_EMPTY_PROMPT');
    await agent.close();
  });
});
