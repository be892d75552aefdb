// createFxbot (fx-wasm/fxbot) in Node against the dev gateway's scripted demo model on a
// loopback port: a bot, a message with a PNG and a text file, stream(0) with the saved input and
// the files as library URLs, the same messageId again (duplicate, one request at the gateway),
// every bad input of issue 14 with its status and code, reconnects at every cursor through the
// client reducer, and the chat as an fx session (readSession, exportNativeSession).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { exportNativeSession, readSession } from '../../pkg/node.js';
import { isBotId, MAX_PINNED } from '../../pkg/fxbot/node.js';
// The in-process fxbot, or (FXBOT_TARGET=server) the same behind its server through connectFxbot.
import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';
import { turnsFromLines } from '../../pkg/fxbot/client.js';

const DEMO = 'fx-demo/scripted';
const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const png = (size) => {
  const bytes = new Uint8Array(size);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
};

let gateway;
let chatUrl;
before(async () => {
  gateway = await startDevGateway({ demo: true, demoDelayMs: 1 });
  chatUrl = new URL('/v3/ai/language-model', gateway.url).href;
});
after(() => gateway.close());

/** An fxbot on memory stores whose fetch counts the model requests. */
async function open({ store = memoryFxbotStore(), sessionStore = memorySessionStore() } = {}) {
  const seen = [];
  const fxbot = await createFxbot({
    store,
    sessionStore,
    env: { FX_GATEWAY_CHAT_URL: chatUrl },
    fetch: (url, init) => {
      if (String(url).startsWith(chatUrl)) seen.push(JSON.parse(new TextDecoder().decode(init.body)));
      return fetch(url, init);
    },
  });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'test-key', model: DEMO });
  await fxbot.settings.update({ defaultProvider: provider.id });
  return { fxbot, seen, provider, store, sessionStore };
}

async function collect(iterable, until = () => false) {
  const lines = [];
  for await (const line of iterable) {
    lines.push(line);
    if (until(line)) break;
  }
  return lines;
}

async function rejects(promise, status, code) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.name, 'FxbotError', error.message);
    assert.equal(error.status, status, error.message);
    assert.equal(error.code, code, error.message);
    assert.ok(error.message.length > 10);
    return true;
  });
}

describe('createFxbot over the dev gateway demo model', () => {
  test('send with a PNG and a .txt, stream(0), and the same messageId again', async () => {
    const { fxbot, seen, sessionStore } = await open();
    const bot = await fxbot.bots.create({ name: 'Ada', instructions: 'Be brief.' });
    assert.ok(isBotId(bot.id));
    assert.equal(bot.sessionId, null);
    const message = {
      text: 'What is in these?',
      messageId: 'm1',
      files: [
        { name: 'dot.png', type: 'image/png', data: b64(png(100)) },
        { name: 'notes.txt', type: 'text/plain', data: b64(new TextEncoder().encode('alpha beta')) },
      ],
    };
    const sent = await fxbot.chat.send(bot.id, message);
    assert.equal(sent.duplicate, false);
    assert.equal(sent.turn, 1);
    assert.equal(sent.cursor, 2 ** 21);
    const lines = await collect(fxbot.chat.stream(bot.id, 0), (l) => l.type === 'turn_end');
    const [start] = lines;
    assert.equal(start.type, 'turn_start');
    assert.equal(start.messageId, 'm1');
    assert.equal(start.input, 'What is in these?');
    assert.deepEqual(start.files.map((f) => [f.name, f.type]), [['dot.png', 'image/png'], ['notes.txt', 'text/plain']]);
    for (const file of start.files) assert.match(file.url, /^\/api\/library\/[0-9a-f]{12}\/file$/);
    assert.match(start.prompt, /<file name="notes.txt" type="text\/plain">\nalpha beta\n<\/file>/);
    const text = lines.filter((l) => l.type === 'text').map((l) => l.text).join('');
    assert.match(text, /scripted demo model/);
    assert.ok(lines.filter((l) => l.type === 'text').length > 1, 'the reply streams in several lines');
    const end = lines.at(-1);
    assert.equal(end.type, 'turn_end');
    assert.equal(end.stopReason, 'end_turn');
    assert.equal(end.cursor, 2 ** 21 + 2 ** 21 - 1);
    // Each line's cursor is larger than the one before.
    lines.reduce((prev, line) => (assert.ok(line.cursor > prev), line.cursor), 0);
    assert.equal(seen.length, 1, 'the gateway saw one request');
    const user = seen[0].prompt.at(-1);
    assert.equal(user.content[1].mediaType, 'image/png');

    const again = await fxbot.chat.send(bot.id, message);
    assert.deepEqual(again, { ...sent, duplicate: true });
    assert.equal(seen.length, 1, 'the duplicate ran nothing');

    // The files are in the library, tagged; the bot has its chat and preview.
    const items = await fxbot.library.list({ botId: bot.id });
    assert.equal(items.length, 2);
    for (const item of items) assert.deepEqual(item.tags, [`bot:${bot.id}`, `chat:${sent.sessionId}`, 'message:m1']);
    const read = await fxbot.library.read(items.find((i) => i.name === 'notes.txt').id);
    assert.equal(new TextDecoder().decode(read.bytes), 'alpha beta');
    const profile = await fxbot.bots.get(bot.id);
    assert.equal(profile.sessionId, sent.sessionId);
    assert.match(profile.preview, /scripted demo model/);

    // turns() reduces the replay; the chat is an fx session.
    const turns = await fxbot.chat.turns(bot.id);
    assert.equal(turns.length, 1);
    assert.equal(turns[0].status, 'done');
    assert.equal(turns[0].files.length, 2);
    const stored = await sessionStore.load(sent.sessionId);
    const session = await readSession(stored.bytes);
    assert.equal(session.turns.length, 1);
    assert.equal(session.workspaceRoot, `/fxbot/${bot.id}`);
    const files = await exportNativeSession(stored.bytes);
    assert.ok(Object.keys(files).some((p) => p.startsWith('images/image-1-')));
    await fxbot.close();
  });

  test('every reconnect cursor rebuilds the same turns through the client reducer', async () => {
    const { fxbot, store, sessionStore } = await open();
    const bot = await fxbot.bots.create();
    await fxbot.chat.send(bot.id, { text: 'one', messageId: 'a' });
    const live = await collect(fxbot.chat.stream(bot.id, 0), (l) => l.type === 'turn_end');
    const whole = turnsFromLines(live);
    for (let i = 0; i < live.length; i++) {
      const rest = await collect(fxbot.chat.stream(bot.id, live[i].cursor, { follow: false }));
      assert.deepEqual(turnsFromLines([...live.slice(0, i + 1), ...rest]), whole, `reconnect after line ${i}`);
    }
    // A second fxbot on the same stores (another process: no live journal) replays the same.
    const other = await createFxbot({ store, sessionStore, env: { FX_GATEWAY_CHAT_URL: chatUrl } });
    const replayed = await collect(other.chat.stream(bot.id, 0, { follow: false }));
    assert.deepEqual(turnsFromLines(replayed), whole);
    for (let i = 0; i < live.length; i++) {
      const rest = await collect(other.chat.stream(bot.id, live[i].cursor, { follow: false }));
      assert.deepEqual(turnsFromLines([...live.slice(0, i + 1), ...rest]), whole, `replay reconnect after line ${i}`);
    }
    await other.close();
    await fxbot.close();
  });

  test('a stream follows the next turn and ends on release', async () => {
    const { fxbot } = await open();
    const bot = await fxbot.bots.create();
    const first = await fxbot.chat.send(bot.id, { text: 'one', messageId: 'a' });
    const got = [];
    const done = (async () => {
      for await (const line of fxbot.chat.stream(bot.id, 0)) {
        got.push(line);
        if (line.type === 'turn_end' && line.turn === 1) {
          await fxbot.chat.send(bot.id, { text: 'two', messageId: 'b' });
        }
        if (line.type === 'turn_end' && line.turn === 2) await fxbot.release(bot.id);
      }
    })();
    await done;
    assert.deepEqual(got.filter((l) => l.type === 'turn_start').map((l) => l.messageId), ['a', 'b']);
    assert.equal(first.turn, 1);
    // An aborted stream ends.
    const controller = new AbortController();
    const pending = collect(fxbot.chat.stream(bot.id, 2 ** 22 + 2 ** 21 - 1, { signal: controller.signal }));
    controller.abort();
    assert.deepEqual(await pending, []);
    await fxbot.close();
  });

  test('bad input gets its status and code', async () => {
    const { fxbot } = await open();
    const bot = await fxbot.bots.create();
    const send = (message) => fxbot.chat.send(bot.id, { text: 'hi', messageId: 'x', ...message });
    const file = (name, type, bytes) => ({ name, type, data: b64(bytes) });
    await rejects(send({ files: [file('big.png', 'image/png', png(4 * 1024 * 1024))] }), 400, 'FXBOT_BAD_REQUEST');
    await rejects(
      send({ files: [file('a.png', 'image/png', png(3.5 * 1024 * 1024)), file('b.png', 'image/png', png(3.5 * 1024 * 1024))] }),
      400,
      'FXBOT_BAD_REQUEST',
    );
    await rejects(send({ files: [file('nul.txt', 'text/plain', new Uint8Array([97, 0, 98]))] }), 400, 'FXBOT_BAD_REQUEST');
    await rejects(send({ messageId: 'a/b' }), 400, 'FXBOT_BAD_REQUEST');
    await rejects(fxbot.bots.get('0123456789abc'), 400, 'FXBOT_BAD_REQUEST');
    await rejects(fxbot.chat.send('0123456789abc', { text: 'hi', messageId: 'm' }), 400, 'FXBOT_BAD_REQUEST');
    await rejects(fxbot.bots.get('0123456789ab'), 404, 'FXBOT_NOT_FOUND');
    await rejects(fxbot.chat.send('0123456789ab', { text: 'hi', messageId: 'm' }), 404, 'FXBOT_NOT_FOUND');
    // A GIF named a.txt is an image (sniffed by its bytes): it is sent as one, typed image/gif.
    const gif = new TextEncoder().encode('GIF89a\x01\x00\x01\x00rest');
    const sent = await send({ messageId: 'gif', files: [file('a.txt', 'text/plain', gif)] });
    const [start] = await collect(fxbot.chat.stream(bot.id, 0), (l) => l.type === 'turn_end');
    assert.equal(start.files[0].type, 'image/gif');
    assert.equal(sent.turn, 1);
    // The fourth pin.
    const pinned = [];
    for (let i = 0; i < MAX_PINNED + 1; i++) pinned.push(await fxbot.bots.create({ name: `p${i}` }));
    for (const b of pinned.slice(0, MAX_PINNED)) assert.equal((await fxbot.bots.update(b.id, { pinned: true })).pinned, true);
    await rejects(fxbot.bots.update(pinned[MAX_PINNED].id, { pinned: true }), 400, 'FXBOT_BAD_REQUEST');
    assert.deepEqual((await fxbot.bots.list()).slice(0, MAX_PINNED).map((b) => b.pinned), [true, true, true]);
    // A cursor that is not a whole number.
    for (const cursor of [1.5, '0', -1, null]) {
      await rejects(collect(fxbot.chat.stream(bot.id, cursor)), 400, 'FXBOT_BAD_REQUEST');
    }
    // No provider; a provider without a default model and a bot without a model.
    const lone = await fxbot.bots.create({ provider: '' });
    await rejects(fxbot.chat.send(lone.id, { text: 'hi', messageId: 'm' }), 400, 'FXBOT_BAD_REQUEST');
    const bare = await fxbot.providers.add({ kind: 'gateway', apiKey: 'k' });
    const modelless = await fxbot.bots.create({ provider: bare.id });
    await rejects(fxbot.chat.send(modelless.id, { text: 'hi', messageId: 'm' }), 400, 'FXBOT_BAD_REQUEST');
    // A stream of a bot without a chat ends at once.
    assert.deepEqual(await collect(fxbot.chat.stream(modelless.id, 0)), []);
    // The kinds table (issue 20): vercel, chatgpt and grok sign in.
    assert.deepEqual(fxbot.providers.kinds.map((k) => k.kind), [
      'gateway', 'vercel', 'openai', 'anthropic', 'google', 'xai', 'openrouter', 'groq', 'mistral', 'deepseek',
      'ollama', 'lmstudio', 'llamacpp', 'vllm', 'custom', 'chatgpt', 'grok',
    ]);
    await rejects(fxbot.providers.add({ kind: 'vercel' }), 400, 'FXBOT_BAD_REQUEST');
    await rejects(fxbot.providers.add({ kind: 'gateway' }), 400, 'FXBOT_BAD_REQUEST');
    await fxbot.close();
    await rejects(fxbot.bots.list(), 409, 'FXBOT_CLOSED');
  });

  test('a different messageId while a turn runs is 409; two fxbots on one store run one turn per messageId', async () => {
    const store = memoryFxbotStore();
    const sessionStore = memorySessionStore();
    const a = await open({ store, sessionStore });
    const b = await createFxbot({ store, sessionStore, env: { FX_GATEWAY_CHAT_URL: chatUrl } });
    const bot = await a.fxbot.bots.create();
    const message = { text: 'once', messageId: 'm1' };
    const [sa, sb] = await Promise.all([a.fxbot.chat.send(bot.id, message), b.chat.send(bot.id, message)]);
    assert.equal([sa, sb].filter((s) => !s.duplicate).length, 1, 'one of them runs m1');
    assert.equal(sa.sessionId, sb.sessionId);
    const runner = sa.duplicate ? b : a.fxbot;
    const other = sa.duplicate ? a.fxbot : b;
    await rejects(other.chat.send(bot.id, { text: 'x', messageId: 'm2' }), 409, 'FXBOT_BUSY');
    await rejects(runner.chat.send(bot.id, { text: 'x', messageId: 'm2' }), 409, 'FXBOT_BUSY');
    await collect(runner.chat.stream(bot.id, 0), (l) => l.type === 'turn_end');
    const turns = await other.chat.turns(bot.id);
    assert.equal(turns.length, 1);
    assert.equal(turns[0].messageId, 'm1');
    await a.fxbot.close();
    await b.close();
  });
});
