// Vectors for memories and messages with a local embedder (issue 21, fxbot DESIGN §11.2–§11.4),
// through createFxbot's public API with the deterministic hashing embedder
// (tests/support/hashing-embedder.mjs): the fill-in reaches every memory and the newest
// messageVectors messages, restarts when messageVectors changes, reports progress from 0; search
// ranks by meaning; embedding() says model null when the embedder does not answer in 5 s and
// carries the fill-in's last error; a failing test string leaves the settings as they were.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';
import { fakeProviders, hostFetch } from '../support/fake-providers.mjs';
import { hashingEmbedder } from '../support/hashing-embedder.mjs';
import { fakeFetch, finish, textEvents, trapGuard } from './agent-support.mjs';
import { untilEnd } from './fxbot-support.mjs';

const guard = trapGuard();
after(() => guard.check());

async function open({ embedder = hashingEmbedder(), replies = [] } = {}) {
  const net = fakeFetch(replies, { catalog: null });
  const events = [];
  const store = memoryFxbotStore();
  const fxbot = await createFxbot({ store, sessionStore: memorySessionStore(), fetch: net.fetch, embedder, onEvent: (e) => events.push(e) });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'sk-test-0123456789abcdef', model: 'test/model' });
  await fxbot.settings.update({ defaultProvider: provider.id });
  const bot = await fxbot.bots.create({ name: 'Ada' });
  return { fxbot, net, bot, events, embedder, store };
}

/** Polls `embedding()` until `done(status)` (at most 10 s). */
async function until(fxbot, done) {
  let status;
  for (let i = 0; i < 200; i += 1) {
    status = await fxbot.settings.embedding();
    if (done(status)) return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`embedding() never got there: ${JSON.stringify(status)}`);
}

test('embedder local: the fill-in gives every memory and the newest messages a vector', async () => {
  const { fxbot, bot, events } = await open({ replies: [1, 2, 3].map((n) => ({ events: textEvents(`reply ${n}`) })) });
  for (let n = 1; n <= 3; n += 1) {
    await fxbot.chat.send(bot.id, { text: `message ${n}`, messageId: `m${n}` });
    await untilEnd(fxbot, bot.id, n);
  }
  for (let n = 0; n < 40; n += 1) await fxbot.memories.add(bot.id, `memory number ${n} about topic ${n % 7}`);
  const off = await fxbot.settings.embedding();
  assert.deepEqual([off.model, off.memories, off.memoriesWithVectors], [null, 0, 0], 'off: no model, nothing counted');
  await fxbot.settings.update({ embedder: 'local', messageVectors: 2 });
  const status = await until(fxbot, (s) => s.memoriesWithVectors === s.memories && s.withVectors === Math.min(s.messages, 2));
  assert.deepEqual(
    [status.model, status.memories, status.messages, status.withVectors, status.error],
    ['local:hashing-64', 40, 2, 2, null],
  );
  const progress = events.filter((e) => e.type === 'embedding_progress');
  assert.ok(progress.length >= 2);
  assert.equal(progress[0].done, 0);
  assert.equal(progress.at(-1).done, progress.at(-1).total);
  // Changing messageVectors starts the fill again: a progress event from 0, the new count reached.
  const before = progress.length;
  await fxbot.settings.update({ messageVectors: 3 });
  const more = await until(fxbot, (s) => s.withVectors === 3);
  assert.equal(more.messages, 3);
  const restart = events.filter((e) => e.type === 'embedding_progress').slice(before);
  assert.equal(restart[0].done, 0);
  assert.equal(restart[0].total, 1);
  await fxbot.close();
});

test('search ranks a planted near-duplicate first, by meaning as well as words; a new memory is searchable at once', async () => {
  const { fxbot, bot } = await open();
  await fxbot.settings.update({ embedder: 'local' });
  for (const text of ['Walks the dog at seven.', 'Reads science fiction.', 'Allergic to cats.', 'Takes the train to work.', 'Loves Lisbon in spring.']) {
    await fxbot.memories.add(bot.id, text);
  }
  const planted = await fxbot.memories.add(bot.id, 'Their favourite drink is smoky lapsang souchong tea.');
  await until(fxbot, (s) => s.memoriesWithVectors === s.memories);
  const hits = await fxbot.memories.search(bot.id, 'favourite smoky tea drinks');
  assert.equal(hits[0].id, planted.id);
  assert.ok(hits[0].score > hits[1].score);
  // With vectors every memory gets a score (cosine), not only those sharing a word.
  assert.equal(hits.length, 6);
  const fresh = await fxbot.memories.add(bot.id, 'Plays chess on Tuesdays.');
  await until(fxbot, (s) => s.memoriesWithVectors === s.memories);
  assert.equal((await fxbot.memories.search(bot.id, 'chess tuesdays'))[0].id, fresh.id);
  await fxbot.close();
});

test('a local embedder that fails its test string is a 400 and the settings stay; without one, local is a 400', async () => {
  const embedder = hashingEmbedder();
  embedder.fail = new Error('the model file is missing');
  const { fxbot } = await open({ embedder });
  const before = await fxbot.settings.get();
  await assert.rejects(fxbot.settings.update({ embedder: 'local' }), (e) => e.status === 400 && /failed its test string \(the embedder failed: the model file is missing\)/.test(e.message));
  assert.deepEqual(await fxbot.settings.get(), before);
  await assert.rejects(fxbot.settings.update({ embedder: 'remote' }), (e) => e.status === 400 && /needs both embeddingProvider and embeddingModel/.test(e.message));
  await assert.rejects(fxbot.settings.update({ embedder: 'magic' }), (e) => e.status === 400 && /embedder must be/.test(e.message));
  await fxbot.close();
  const bare = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore(), fetch: fakeFetch([]).fetch });
  await assert.rejects(bare.settings.update({ embedder: 'local' }), (e) => e.status === 400 && /needs a local embedder/.test(e.message));
  await bare.close();
  await assert.rejects(createFxbot({ embedder: { model: 'x' } }), /embedder must be an object/);
});

test('embedding() says model null when the embedder hangs past 5 s, and error carries the fill-in\'s last error', async () => {
  const { fxbot, bot, embedder } = await open();
  await fxbot.settings.update({ embedder: 'local' });
  embedder.fail = new Error('out of memory');
  await fxbot.memories.add(bot.id, 'Something to embed.');
  const failed = await until(fxbot, (s) => s.error !== null);
  assert.match(failed.error, /out of memory/);
  assert.equal(failed.memoriesWithVectors, 0);
  embedder.fail = null;
  embedder.hang = true;
  const started = Date.now();
  const hung = await fxbot.settings.embedding();
  const waited = Date.now() - started;
  assert.equal(hung.model, null);
  assert.ok(waited >= 4_500 && waited < 20_000, `it waited ${waited} ms`);
  await fxbot.close();
});

test('chat_history finds a message by meaning (no word in common) once it has a vector', async () => {
  const { fxbot, bot } = await open({
    replies: [
      { events: textEvents('Noted, the boiler.') },
      { events: textEvents('Lovely.') },
      { events: textEvents('Sure.') },
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'chat_history', input: JSON.stringify({ query: 'boilers repairing heater', limit: 1 }) }, finish('tool-calls')] },
      { events: textEvents('Found it.') },
    ],
  });
  await fxbot.settings.update({ embedder: 'local' });
  const texts = ['The boiler repair man comes on Friday for the heating.', 'We went to the beach.', 'Pizza tonight?'];
  for (const [i, text] of texts.entries()) {
    await fxbot.chat.send(bot.id, { text, messageId: `m${i + 1}` });
    await untilEnd(fxbot, bot.id, i + 1);
  }
  await until(fxbot, (s) => s.withVectors === 3);
  await fxbot.chat.send(bot.id, { text: 'when was that repair?', messageId: 'm4' });
  const { lines } = await untilEnd(fxbot, bot.id, 4);
  const result = lines.find((l) => l.type === 'tool_result');
  assert.equal(result.status, 'completed');
  assert.match(result.output, /^msg:m1 /);
  assert.doesNotMatch(result.output, /msg:m2|msg:m3/);
  await fxbot.close();
});

test('embedder remote: an OpenAI-compatible or Gemini provider embeds; no model, no such provider, a failing test string or Anthropic is a 400 with nothing changed', async () => {
  const fake = await fakeProviders({ key: 'sk-fake-0123456789' });
  try {
    const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore(), fetch: hostFetch(fake) });
    const openai = await fxbot.providers.add({ kind: 'openai', apiKey: 'sk-fake-0123456789', model: 'fake-model' });
    const anthropic = await fxbot.providers.add({ kind: 'anthropic', apiKey: 'sk-fake-0123456789', model: 'fake-model' });
    const google = await fxbot.providers.add({ kind: 'google', apiKey: 'sk-fake-0123456789', model: 'fake-model' });
    await fxbot.settings.update({ defaultProvider: openai.id });
    const bot = await fxbot.bots.create({ name: 'Ada' });
    const before = await fxbot.settings.get();
    const refused = async (patch, pattern) => {
      await assert.rejects(fxbot.settings.update(patch), (e) => e.status === 400 && pattern.test(e.message));
      assert.deepEqual(await fxbot.settings.get(), before, 'the settings are unchanged');
    };
    await refused({ embedder: 'remote', embeddingProvider: openai.id }, /needs both embeddingProvider and embeddingModel/);
    await refused({ embedder: 'remote', embeddingProvider: '00000000000f', embeddingModel: 'm' }, /is not a provider/);
    await refused({ embedder: 'remote', embeddingProvider: anthropic.id, embeddingModel: 'm' }, /has no embeddings endpoint/);
    await refused({ embedder: 'remote', embeddingProvider: openai.id, embeddingModel: 'broken-embedder' }, /failed its test string \(the embeddings endpoint answered HTTP 500\)/);
    await fxbot.settings.update({ embedder: 'remote', embeddingProvider: openai.id, embeddingModel: 'text-embedding-3-small' });
    const check = fake.requests.filter((r) => r.path.endsWith('/embeddings')).at(-1);
    assert.deepEqual(check.body, { model: 'text-embedding-3-small', input: ['fxbot embedding check'] });
    assert.equal(check.headers.authorization, 'Bearer sk-fake-0123456789');
    const planted = await fxbot.memories.add(bot.id, 'The spare key is under the blue flower pot.');
    await fxbot.memories.add(bot.id, 'Prefers window seats.');
    const status = await until(fxbot, (s) => s.memoriesWithVectors === 2);
    assert.equal(status.model, `remote:${openai.id}:text-embedding-3-small`);
    assert.equal((await fxbot.memories.search(bot.id, 'where is the spare key'))[0].id, planted.id);
    // Gemini's batch endpoint, with its own header.
    await fxbot.settings.update({ embeddingProvider: google.id, embeddingModel: 'text-embedding-004' });
    const gemini = await until(fxbot, (s) => s.memoriesWithVectors === 2 && s.model?.startsWith(`remote:${google.id}`));
    assert.equal(gemini.model, `remote:${google.id}:text-embedding-004`);
    const batch = fake.requests.filter((r) => r.path.includes(':batchEmbedContents')).at(-1);
    assert.match(batch.path, /\/models\/text-embedding-004:batchEmbedContents$/);
    assert.equal(batch.headers['x-goog-api-key'], 'sk-fake-0123456789');
    await fxbot.close();
  } finally {
    await fake.close();
  }
});
