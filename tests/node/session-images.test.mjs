// A session with an image, continued: the fx CLI appends an `<available_images>` block naming
// the session's images (`[Image #1]`) to the newest user message, and sends earlier messages as
// their bare text; fx-wasm sends the same. With FX_NATIVE pointing at the fx CLI, the CLI
// continues the very same bytes against a loopback gateway and its request is compared with
// ours message for message.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { createFxAgent, exportNativeSession, memorySessionStore, readSession } from '../../pkg/node.js';
import { createFxbot, memoryFxbotStore } from '../../pkg/fxbot/node.js';
import { conversation, env, fakeFetch, sse, textEvents, trapGuard } from './agent-support.mjs';
import { continueInCli } from './native-home.mjs';

const guard = trapGuard();
after(() => guard.check());

const MODEL = 'moonshotai/kimi-k3';
// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A bot chat of one turn whose message carries a PNG: its session id and bytes. */
async function chatWithImage() {
  const net = fakeFetch([{ events: textEvents('A red pixel.') }], { catalog: null });
  const sessionStore = memorySessionStore();
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore, fetch: net.fetch });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'sk-test-0123456789abcdefghijklmn', model: MODEL });
  await fxbot.settings.update({ defaultProvider: provider.id });
  const bot = await fxbot.bots.create({ name: 'Ada' });
  const sent = await fxbot.chat.send(bot.id, {
    text: 'describe this image',
    messageId: 'm1',
    files: [{ name: 'red.png', type: 'image/png', data: PNG }],
  });
  for await (const line of fxbot.chat.stream(bot.id, 0)) if (line.type === 'turn_end') break;
  await fxbot.close();
  const id = sent.sessionId;
  return { id, bytes: (await sessionStore.load(id)).bytes };
}

/** The texts of each non-system message of a request body. */
const texts = (messages) =>
  messages.map((m) => ({ role: m.role, text: m.content.filter((p) => p.type === 'text').map((p) => p.text).join('') }));

/** fx-wasm continues `bytes` with `prompt`: the request's messages and the stored session. */
async function continueHere(id, bytes, prompt) {
  const net = fakeFetch([{ events: textEvents('ok') }], { catalog: null });
  const sessionStore = memorySessionStore();
  await sessionStore.commit(id, bytes, undefined);
  const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
  const session = await agent.openSession(id);
  await session.prompt(prompt).result;
  await agent.close();
  const [request] = net.chats();
  return { messages: conversation(request), stored: await readSession((await sessionStore.load(session.id)).bytes) };
}

test('continuing a session with an image: the new message names the images, as the fx CLI does', async () => {
  const { id, bytes } = await chatWithImage();
  const { messages, stored } = await continueHere(id, bytes, 'and what colour?');
  assert.deepEqual(texts(messages), [
    { role: 'user', text: 'describe this image' },
    { role: 'assistant', text: 'A red pixel.' },
    { role: 'user', text: 'and what colour?\n\n<available_images>\n[Image #1]\n</available_images>' },
  ]);
  // The block is for the model only: the log keeps the text as typed.
  assert.equal(stored.turns.at(-1).user.text, 'and what colour?');
});

test('a session without images gets no block', async () => {
  const net = fakeFetch([{ events: textEvents('one') }, { events: textEvents('two') }]);
  const agent = await createFxAgent({ fetch: net.fetch, env });
  const session = await agent.createSession();
  await session.prompt('first').result;
  await session.prompt('second').result;
  await agent.close();
  assert.equal(texts(conversation(net.chats()[1])).at(-1).text, 'second');
});

test('the fx CLI and fx-wasm continue the same bytes with the same messages (FX_NATIVE)', async (t) => {
  const fx = process.env.FX_NATIVE;
  if (!fx) {
    t.diagnostic('FX_NATIVE is not set: the fx CLI half of this check did not run');
    return;
  }
  const { id, bytes } = await chatWithImage();
  const requests = await continueInCli(fx, id, await exportNativeSession(bytes), 'and what colour?', sse(textEvents('ok')), 'fx-images-');
  assert.equal(requests.length, 1, 'the CLI made one model request');
  const cli = requests[0].prompt.filter((m) => m.role !== 'system');
  const { messages } = await continueHere(id, bytes, 'and what colour?');
  assert.deepEqual(texts(messages), texts(cli));
});
