// Providers of part 2 (issue 20) through createFxbot's public API, against the fake providers
// on 127.0.0.1 (tests/support/fake-providers.mjs, each protocol's real SSE format): the kinds
// table; the key check (401 -> 400 "The provider rejected this key.", 404 passes, 500 -> 502);
// the baseUrl rules; providers.update and providers.models (Ollama's reported context window,
// and contextWindow over it); and a bot on a provider of each key and server kind but `gateway`
// (13 kinds: four protocols) completing a turn with one `library_list` call, its reply streamed
// through chat.stream and its usage in turn_end, the request sent to the kind's endpoint with
// its auth header.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { exportNativeSession } from '../../pkg/node.js';
import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';
import { fakeProviders, hostFetch } from '../support/fake-providers.mjs';
import { continueInCli } from './native-home.mjs';

const KEY = 'sk-fake-0123456789';
let fake;
before(async () => {
  fake = await fakeProviders({ key: KEY });
});
after(() => fake.close());

async function open() {
  const fetch = hostFetch(fake);
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore(), fetch });
  return { fxbot, fetch };
}

async function rejects(promise, status, message) {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e) => e,
  );
  assert.equal(error.name, 'FxbotError', error.message);
  assert.equal(error.status, status, error.message);
  if (message) assert.match(error.message, message);
  return error;
}

/** Sends one message and reads chat.stream up to its turn_end. */
async function turn(fxbot, botId) {
  await fxbot.chat.send(botId, { text: 'what files do I have?', messageId: 'm1' });
  const lines = [];
  for await (const line of fxbot.chat.stream(botId, 0)) {
    lines.push(line);
    if (line.type === 'turn_end') break;
  }
  return lines;
}

describe('providers of every kind', () => {
  test('the kinds table: 9 key kinds, 5 server kinds, 3 sign-in kinds', async () => {
    const { fxbot } = await open();
    const kinds = fxbot.providers.kinds;
    const of = (c) => kinds.filter((k) => k.class === c).map((k) => k.kind);
    assert.deepEqual(of('key'), ['gateway', 'openai', 'anthropic', 'google', 'xai', 'openrouter', 'groq', 'mistral', 'deepseek']);
    assert.deepEqual(of('server'), ['ollama', 'lmstudio', 'llamacpp', 'vllm', 'custom']);
    assert.deepEqual(of('signIn'), ['vercel', 'chatgpt', 'grok']);
    const anthropic = kinds.find((k) => k.kind === 'anthropic');
    assert.deepEqual(
      [anthropic.label, anthropic.protocol, anthropic.baseUrl, anthropic.authHeader],
      ['Anthropic', 'anthropic-messages', 'https://api.anthropic.com/v1', 'x-api-key'],
    );
    assert.equal(kinds.find((k) => k.kind === 'ollama').baseUrl, 'http://127.0.0.1:11434');
    assert.equal(kinds.find((k) => k.kind === 'custom').baseUrl, null);
    assert.ok(Object.isFrozen(kinds) && Object.isFrozen(anthropic));
    await fxbot.close();
  });

  test('the key check lists the models: 401 is 400, 404 passes, 500 is 502', async () => {
    const { fxbot } = await open();
    await rejects(fxbot.providers.add({ kind: 'openai', apiKey: 'sk-wrong' }), 400, /^The provider rejected this key\.$/);
    await rejects(fxbot.providers.add({ kind: 'custom', baseUrl: `${fake.origin}/v1`, apiKey: 'sk-wrong' }), 400, /rejected this key/);
    const openai = await fxbot.providers.add({ kind: 'openai', apiKey: KEY, model: 'gpt-5-mini' });
    assert.deepEqual([openai.name, openai.baseUrl, openai.hasKey], ['OpenAI', null, true]);
    assert.deepEqual(await fxbot.providers.models(openai.id), [{ id: 'fake-model', contextWindow: null }]);
    const nolist = await fxbot.providers.add({ kind: 'custom', baseUrl: `${fake.origin}/nolist/v1`, apiKey: KEY });
    assert.equal(nolist.baseUrl, `${fake.origin}/nolist/v1`);
    await rejects(fxbot.providers.add({ kind: 'custom', baseUrl: `${fake.origin}/broken/v1`, apiKey: KEY }), 502);
    // Nothing was kept of the failed ones.
    assert.deepEqual((await fxbot.providers.list()).map((p) => p.id).sort(), [openai.id, nolist.id].sort());
    await fxbot.close();
  });

  test('the baseUrl rules, keys and contextWindow', async () => {
    const { fxbot } = await open();
    for (const [provider, message] of [
      [{ kind: 'ollama', baseUrl: 'http://192.168.1.2:11434' }, /must use https/],
      [{ kind: 'custom', baseUrl: 'https://u:p@x.example' }, /credentials/],
      [{ kind: 'custom', baseUrl: 'https://x.example/?q' }, /query or a fragment/],
      [{ kind: 'custom' }, /baseUrl is required/],
      [{ kind: 'openai', apiKey: KEY, baseUrl: 'https://api.openai.com/v1' }, /baseUrl is fixed/],
      [{ kind: 'openai', apiKey: KEY, contextWindow: 8192 }, /contextWindow is for a model server/],
      [{ kind: 'openai' }, /apiKey is required/],
      [{ kind: 'openai', apiKey: 'k'.repeat(4097) }, /1 to 4096/],
      [{ kind: 'chatgpt' }, /signing in/],
    ]) {
      await rejects(fxbot.providers.add(provider), 400, message);
    }
    await fxbot.close();
  });

  test('providers.update: a new key is checked and drops the kept list; baseUrl only for servers', async () => {
    const { fxbot, fetch } = await open();
    const p = await fxbot.providers.add({ kind: 'custom', baseUrl: `${fake.origin}/v1`, apiKey: KEY });
    const lists = () => fetch.sent.filter((s) => s.url.endsWith('/models')).length;
    const before = lists();
    await fxbot.providers.models(p.id);
    assert.equal(lists(), before, 'the kept list answers');
    await fxbot.providers.models(p.id, { refresh: true });
    assert.equal(lists(), before + 1, 'refresh asks again');
    await rejects(fxbot.providers.update(p.id, { apiKey: 'sk-wrong' }), 400, /rejected this key/);
    const renamed = await fxbot.providers.update(p.id, { name: 'Home server', contextWindow: 4096 });
    assert.deepEqual([renamed.name, renamed.contextWindow], ['Home server', 4096]);
    assert.deepEqual(await fxbot.providers.models(p.id), [{ id: 'fake-model', contextWindow: 4096 }]);
    const moved = await fxbot.providers.update(p.id, { baseUrl: `${fake.origin}/nolist/v1` });
    assert.equal(moved.baseUrl, `${fake.origin}/nolist/v1`);
    // The new address has no list (404): the old one was dropped.
    assert.deepEqual(await fxbot.providers.models(p.id), []);
    const openai = await fxbot.providers.add({ kind: 'openai', apiKey: KEY });
    await rejects(fxbot.providers.update(openai.id, { baseUrl: 'https://x.example' }), 400, /baseUrl is fixed/);
    await fxbot.providers.remove(openai.id);
    await rejects(fxbot.providers.get(openai.id), 404);
    await fxbot.close();
  });

  test("Ollama's reported context window shows, and contextWindow overrides it", async () => {
    const { fxbot } = await open();
    const ollama = await fxbot.providers.add({ kind: 'ollama', baseUrl: fake.origin, apiKey: KEY });
    assert.deepEqual([ollama.name, ollama.baseUrl, ollama.contextWindow], ['Ollama', fake.origin, null]);
    assert.deepEqual(await fxbot.providers.models(ollama.id), [{ id: 'llama3.2:latest', contextWindow: 8192 }]);
    await fxbot.providers.update(ollama.id, { contextWindow: 4096 });
    assert.deepEqual(await fxbot.providers.models(ollama.id), [{ id: 'llama3.2:latest', contextWindow: 4096 }]);
    const show = fake.requests.filter((r) => r.path === '/api/show');
    assert.deepEqual(show.at(-1).body, { model: 'llama3.2:latest' });
    await fxbot.close();
  });

  const bearer = ['authorization', `Bearer ${KEY}`];
  const chat = (base) => () => `${base()}/chat/completions`;
  const server = (kind) => [kind, () => ({ baseUrl: fake.origin }), () => `${fake.origin}/v1/chat/completions`, bearer];
  for (const [kind, extra, endpoint, auth] of [
    ['custom', () => ({ baseUrl: `${fake.origin}/v1` }), () => `${fake.origin}/v1/chat/completions`, bearer],
    server('ollama'),
    server('lmstudio'),
    server('llamacpp'),
    server('vllm'),
    ['xai', () => ({}), chat(() => 'https://api.x.ai/v1'), bearer],
    ['groq', () => ({}), chat(() => 'https://api.groq.com/openai/v1'), bearer],
    ['mistral', () => ({}), chat(() => 'https://api.mistral.ai/v1'), bearer],
    ['deepseek', () => ({}), chat(() => 'https://api.deepseek.com/v1'), bearer],
    ['openrouter', () => ({}), chat(() => 'https://openrouter.ai/api/v1'), bearer],
    ['openai', () => ({}), () => 'https://api.openai.com/v1/responses', ['authorization', `Bearer ${KEY}`]],
    ['anthropic', () => ({}), () => 'https://api.anthropic.com/v1/messages', ['x-api-key', KEY]],
    ['google', () => ({}), () => 'https://generativelanguage.googleapis.com/v1beta/models/fake-model:streamGenerateContent?alt=sse', ['x-goog-api-key', KEY]],
  ]) {
    test(`a bot on a ${kind} provider completes a turn with a library_list call`, async () => {
      const { fxbot, fetch } = await open();
      const provider = await fxbot.providers.add({ kind, apiKey: KEY, model: 'fake-model', ...extra() });
      const bot = await fxbot.bots.create({ name: 'Ada', provider: provider.id });
      const lines = await turn(fxbot, bot.id);
      const end = lines.at(-1);
      assert.equal(end.stopReason, 'end_turn', JSON.stringify(end));
      const text = lines.filter((l) => l.type === 'text').map((l) => l.text).join('');
      assert.equal(text, 'You have no files yet.');
      const tools = lines.filter((l) => l.type === 'tool_call');
      assert.ok(tools.some((l) => JSON.stringify(l).includes('library_list')), JSON.stringify(lines.map((l) => l.type)));
      assert.ok(end.usage.inputTokens >= 120 && end.usage.outputTokens >= 9, JSON.stringify(end.usage));
      const calls = fetch.sent.filter((s) => s.method === 'POST' && !s.url.endsWith('/api/show'));
      assert.equal(calls.length, 2, 'two steps: the call, then the answer');
      for (const call of calls) {
        assert.equal(call.url, endpoint());
        assert.equal(call.headers[auth[0]], auth[1]);
      }
      if (kind === 'openrouter') {
        assert.equal(fetch.sent[0].url, 'https://openrouter.ai/api/v1/key', 'OpenRouter checks the key with /key (its /models is public)');
        assert.equal(calls[0].headers['x-title'], 'fx');
      }
      if (kind === 'anthropic') {
        assert.equal(calls[0].headers['anthropic-dangerous-direct-browser-access'], 'true');
        assert.equal(calls[0].headers['anthropic-version'], '2023-06-01');
      }
      await fxbot.close();
    });
  }

  test('an anthropic request from a page (Origin set) carries the browser-access header the API requires', async () => {
    const fetch = hostFetch(fake, { origin: 'http://localhost:5173' });
    const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore(), fetch });
    const provider = await fxbot.providers.add({ kind: 'anthropic', apiKey: KEY, model: 'fake-model' });
    const bot = await fxbot.bots.create({ provider: provider.id });
    const lines = await turn(fxbot, bot.id);
    assert.equal(lines.at(-1).stopReason, 'end_turn');
    const calls = fake.requests.filter((r) => r.path === '/anthropic/v1/messages').slice(-2);
    for (const call of calls) {
      assert.equal(call.headers.origin, 'http://localhost:5173');
      assert.equal(call.headers['anthropic-dangerous-direct-browser-access'], 'true');
    }
    // The fake refuses a page's request without it, as the API does.
    const refused = await globalThis.fetch(`${fake.origin}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { origin: 'http://localhost:5173', 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(refused.status, 401);
    await fxbot.close();
  });

  test('a provider switch hands the chat off: a new chat, earlier, handoff, chat_end to an open stream', async () => {
    const { fxbot } = await open();
    const local = await fxbot.providers.add({ kind: 'custom', baseUrl: `${fake.origin}/v1`, apiKey: KEY, model: 'fake-model' });
    const openai = await fxbot.providers.add({ kind: 'openai', apiKey: KEY, model: 'fake-model' });
    const bot = await fxbot.bots.create({ name: 'Ada', provider: local.id, model: 'fake-model' });
    await turn(fxbot, bot.id);
    const old = (await fxbot.bots.get(bot.id)).sessionId;
    // A stream that follows the chat, open across the switch.
    const seen = [];
    const reading = (async () => {
      for await (const line of fxbot.chat.stream(bot.id, 0)) seen.push(line);
    })();
    while (!seen.some((l) => l.type === 'turn_end')) await new Promise((r) => setTimeout(r, 5));
    const updated = await fxbot.bots.update(bot.id, { provider: openai.id });
    assert.deepEqual([updated.provider, updated.model, updated.handoff], [openai.id, '', 'You have no files yet.']);
    assert.ok(updated.sessionId && updated.sessionId !== old, 'a new chat');
    const summaryCall = fake.calls().at(-1);
    assert.equal(summaryCall.protocol, 'chat', 'the old provider summarized');
    assert.match(JSON.stringify(summaryCall.body), /what files do I have\?/);
    await reading;
    assert.deepEqual(seen.at(-1), { type: 'chat_end', cursor: 2 * 2 ** 21, reason: 'handoff', nextSessionId: updated.sessionId });
    const earlier = await fxbot.chat.earlier(bot.id);
    assert.equal(earlier.length, 1);
    assert.deepEqual([earlier[0].sessionId, earlier[0].provider, earlier[0].model, earlier[0].handoff], [old, local.id, 'fake-model', null]);
    // The next turn runs on the new provider, the handoff in its instructions.
    const sent = await fxbot.chat.send(bot.id, { text: 'and now?', messageId: 'm2' });
    assert.equal(sent.sessionId, updated.sessionId);
    for await (const line of fxbot.chat.stream(bot.id, 0)) if (line.type === 'turn_end') break;
    const next = fake.calls().at(-1);
    assert.equal(next.protocol, 'responses');
    assert.match(next.body.instructions, /You have no files yet\./);
    assert.ok(!JSON.stringify(next.body.input).includes('what files do I have'), 'the new chat starts empty');
    await fxbot.close();
  });
});

test('a bot chat on a non-gateway provider exports, and the fx CLI continues it through the AI Gateway (FX_NATIVE)', async (t) => {
  const sessionStore = memorySessionStore();
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore, fetch: hostFetch(fake) });
  const provider = await fxbot.providers.add({ kind: 'openai', apiKey: KEY, model: 'fake-model' });
  const bot = await fxbot.bots.create({ name: 'Ada', provider: provider.id });
  const lines = await turn(fxbot, bot.id);
  assert.equal(lines.at(-1).stopReason, 'end_turn');
  const { sessionId } = await fxbot.bots.get(bot.id);
  await fxbot.close();
  const files = await exportNativeSession((await sessionStore.load(sessionId)).bytes);
  assert.ok(Object.keys(files).length > 0);
  const fx = process.env.FX_NATIVE;
  if (!fx) {
    t.diagnostic('FX_NATIVE is not set: the fx CLI half of this check did not run');
    return;
  }
  const reply = 'data: {"type":"text-delta","id":"t","delta":"ok"}\n\ndata: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":1},"outputTokens":{"total":1}}}\n\ndata: [DONE]\n\n';
  const requests = await continueInCli(fx, sessionId, files, 'and now?', reply, 'fx-openai-');
  // The CLI knows only the AI Gateway: it continues the chat there, with the whole history.
  assert.equal(requests.length, 1, 'the CLI made one model request');
  const history = JSON.stringify(requests[0].prompt);
  assert.match(history, /what files do I have\?/);
  assert.match(history, /library_list/);
  assert.match(history, /and now\?/);
});
