// Memories through createFxbot's public API (issue 21, fxbot DESIGN §11): memories.* with both
// id forms and the text rule, the lexical search, the memory tools in a bot turn (memory_save
// names the turn's message, the next turn's instructions list it, memory_forget removes it), and
// a removed bot taking its memories with it.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';
import { fakeFetch, finish, textEvents, trapGuard } from './agent-support.mjs';
import { rejectsWith, untilEnd } from './fxbot-support.mjs';

const guard = trapGuard();
after(() => guard.check());

async function open(script, store = memoryFxbotStore()) {
  const net = fakeFetch(script, { catalog: null });
  const fxbot = await createFxbot({ store, sessionStore: memorySessionStore(), fetch: net.fetch });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'sk-test-0123456789abcdef', model: 'test/model' });
  await fxbot.settings.update({ defaultProvider: provider.id });
  const bot = await fxbot.bots.create({ name: 'Ada' });
  return { fxbot, net, bot, store };
}

const system = (request) =>
  request.body.prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');

const call = (id, name, input) => ({ events: [{ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) }, finish('tool-calls')] });

test('memories.* keep the seed rules: both id forms, 404 for an unknown one, the text limit', async () => {
  const { fxbot, bot } = await open([]);
  const a = await fxbot.memories.add(bot.id, '  Likes green tea.  ');
  assert.deepEqual(Object.keys(a).sort(), ['createdAt', 'id', 'messageId', 'savedBy', 'text', 'updatedAt']);
  assert.deepEqual([a.text, a.savedBy, a.messageId], ['Likes green tea.', 'owner', null]);
  assert.match(a.id, /^[0-9a-f]{12}$/);
  assert.match(a.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const b = await fxbot.memories.add(bot.id, 'x'.repeat(4000));
  await rejectsWith(fxbot.memories.add(bot.id, 'x'.repeat(4001)), 400, /4001 characters; at most 4000/);
  await rejectsWith(fxbot.memories.add(bot.id, ' '), 400, /empty/);
  await rejectsWith(fxbot.memories.add(bot.id, 7), 400, /must be a string/);
  const updated = await fxbot.memories.update(bot.id, `mem:${a.id}`, 'Likes green tea with lemon.');
  assert.equal(updated.text, 'Likes green tea with lemon.');
  assert.ok(updated.updatedAt >= a.updatedAt);
  // Newest first by updatedAt: the updated one is now the newest.
  assert.deepEqual((await fxbot.memories.list(bot.id)).map((m) => m.id), [a.id, b.id]);
  await rejectsWith(fxbot.memories.update(bot.id, '00000000000f', 'y'), 404, /there is no memory 00000000000f/);
  await rejectsWith(fxbot.memories.remove(bot.id, 'mem:00000000000f'), 404);
  await rejectsWith(fxbot.memories.remove(bot.id, 'mem:nope'), 400, /memoryId must be 12 lowercase hex/);
  await rejectsWith(fxbot.memories.list('0123456789ab'), 404, /there is no bot/);
  await fxbot.memories.remove(bot.id, b.id);
  await fxbot.memories.remove(bot.id, `mem:${a.id}`);
  assert.deepEqual(await fxbot.memories.list(bot.id), []);
  await fxbot.close();
});

test('memories.search ranks a planted near-duplicate first', async () => {
  const { fxbot, bot } = await open([]);
  const filler = [
    'Works as a nurse on night shifts.',
    'Has a dog called Pixel.',
    'Prefers trains to planes.',
    'Is learning Portuguese.',
    'Their sister lives in Porto.',
    'Allergic to peanuts.',
    'Plays the cello on Sundays.',
  ];
  for (const text of filler) await fxbot.memories.add(bot.id, text);
  const planted = await fxbot.memories.add(bot.id, 'Their favourite tea is a smoky lapsang souchong.');
  for (const text of ['Drinks coffee before noon.', 'Dislikes sweet tea.']) await fxbot.memories.add(bot.id, text);
  const hits = await fxbot.memories.search(bot.id, 'favourite tea smoky lapsang');
  assert.equal(hits[0].id, planted.id);
  assert.equal(hits[0].score, 1);
  assert.ok(hits.length <= 8 && hits.every((h, i) => i === 0 || h.score <= hits[i - 1].score));
  assert.equal((await fxbot.memories.search(bot.id, 'tea', { limit: 1 })).length, 1);
  await rejectsWith(fxbot.memories.search(bot.id, 'tea', { limit: 21 }), 400, /limit/);
  assert.deepEqual(await fxbot.memories.search(bot.id, 'zebra'), []);
  await fxbot.close();
});

test('memory_save in a turn leaves a bot memory naming the turn; the next turn lists it; memory_forget removes it', async () => {
  const { fxbot, net, bot } = await open([
    call('c1', 'memory_save', { text: 'Their cat is called Miso.' }),
    { events: textEvents('Noted.') },
    { events: textEvents('Miso!') },
  ]);
  await fxbot.chat.send(bot.id, { text: 'My cat is called Miso.', messageId: 'msg-cat' });
  const { lines } = await untilEnd(fxbot, bot.id, 1);
  const result = lines.find((l) => l.type === 'tool_result');
  assert.equal(result.status, 'completed');
  const [memory] = await fxbot.memories.list(bot.id);
  assert.deepEqual([memory.text, memory.savedBy, memory.messageId], ['Their cat is called Miso.', 'bot', 'msg:msg-cat']);
  assert.equal(result.output, `Saved as mem:${memory.id}.`);
  // Saved mid-turn: the turn's own requests do not list it, the next turn's do.
  assert.doesNotMatch(system(net.chats()[1]), /Miso/);
  await fxbot.chat.send(bot.id, { text: 'What is my cat called?', messageId: 'msg-2' });
  await untilEnd(fxbot, bot.id, 2);
  assert.match(system(net.chats()[2]), new RegExp(`## What you remember\\n\\n.*\\n- \\[mem:${memory.id}\\] Their cat is called Miso\\.`));
  await fxbot.close();

  const second = await open([call('c2', 'memory_forget', { id: 'mem:000000000000' }), { events: textEvents('ok') }]);
  await second.fxbot.chat.send(second.bot.id, { text: 'forget it', messageId: 'm1' });
  const failed = (await untilEnd(second.fxbot, second.bot.id, 1)).lines.find((l) => l.type === 'tool_result');
  assert.equal(failed.status, 'failed');
  assert.match(failed.output, /there is no memory 000000000000/);
  await second.fxbot.close();
});

test('memory_search, memory_update and memory_forget act on the bot whose chat runs them; a removed bot takes its memories', async () => {
  const store = memoryFxbotStore();
  const { fxbot, bot } = await open([], store);
  const m = await fxbot.memories.add(bot.id, 'Birthday on 4 May.');
  const other = await fxbot.bots.create({ name: 'Bo' });
  await fxbot.memories.add(other.id, 'Birthday of Bo is in June.');
  await fxbot.close();
  const { fxbot: again, net } = await open(
    [
      call('c1', 'memory_search', { query: 'birthday' }),
      call('c2', 'memory_update', { id: `mem:${m.id}`, text: 'Birthday on 5 May.' }),
      call('c3', 'memory_forget', { id: m.id }),
      { events: textEvents('done') },
    ],
    store,
  );
  await again.chat.send(bot.id, { text: 'tidy up', messageId: 'm1' });
  const { lines } = await untilEnd(again, bot.id, 1);
  const results = lines.filter((l) => l.type === 'tool_result');
  assert.deepEqual(results.map((r) => r.status), ['completed', 'completed', 'completed']);
  assert.match(results[0].output, new RegExp(`^mem:${m.id}  \\S+  Birthday on 4 May\\.$`));
  assert.equal(results[1].output, `Updated mem:${m.id}.`);
  assert.equal(results[2].output, `Forgot mem:${m.id}.`);
  assert.deepEqual(await again.memories.list(bot.id), []);
  assert.equal((await again.memories.list(other.id)).length, 1);
  assert.equal(net.chats().length, 4);
  await again.bots.remove(other.id);
  assert.deepEqual((await store.list('memory/')).length, 0);
  await again.close();
});
