// chat.stream of createFxbot served from memory (issue 18): one consumer following a 2,000-delta
// reply costs a handful of store calls, not one chat load per delta, after 0 and after 40
// earlier turns; another process's turns still appear on the next stream() call.

import assert from 'node:assert/strict';
import { test } from 'node:test';

// The in-process fxbot, or (FXBOT_TARGET=server) the same behind its server through connectFxbot.
import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';
import { botWithTurns, CHAT_URL, follow, followReply, replyFetch } from '../support/fxbot-follow.mjs';

const pkg = { createFxbot, memoryFxbotStore, memorySessionStore };
const DELTAS = 2000;

/** The reply of `deltas` deltas as the fetch sends it. */
const expectedText = (deltas) => Array.from({ length: deltas }, (_, i) => `${String(i % 1000).padStart(3, '0')} `).join('');

for (const earlier of [0, 40]) {
  test(`following a ${DELTAS}-delta reply after ${earlier} earlier turns loads the chat a handful of times`, async () => {
    const setup = await botWithTurns(pkg, earlier);
    const { lines, text, follow: calls, sent } = await followReply(setup, DELTAS);
    assert.equal(sent.turn, earlier + 1);
    assert.equal(text, expectedText(DELTAS), 'the whole reply arrived, in order');
    assert.ok(lines.filter((l) => l.type === 'text').length > DELTAS / 2, 'the consumer saw the deltas as they came');
    assert.equal(lines.at(-1).type, 'turn_end');
    // The consumer's first stream() call reads the bot, its provider and its chat; the turn's
    // end saves the chat. Nothing per delta.
    assert.ok(calls.sessionLoads <= 3, `session store loads while following: ${JSON.stringify(calls.all)}`);
    assert.ok(calls.docReads <= 12, `document store reads while following: ${JSON.stringify(calls.all)}`);
    await setup.fxbot.close();
  });
}

test("another process's turns appear on the next stream() call, and following goes on after them", async () => {
  const setup = await botWithTurns(pkg, 2);
  const { fxbot, bot, stores } = setup;
  const other = await createFxbot({
    store: stores.store,
    sessionStore: stores.sessionStore,
    fetch: replyFetch().fetch,
    env: { FX_GATEWAY_CHAT_URL: CHAT_URL },
  });
  // This process streams (and keeps the chat), then the other process runs turn 3.
  const before = [];
  for await (const line of fxbot.chat.stream(bot.id, 0, { follow: false })) before.push(line);
  assert.deepEqual(before.filter((l) => l.type === 'turn_start').map((l) => l.messageId), ['earlier-0', 'earlier-1']);
  const sent = await other.chat.send(bot.id, { text: 'from the other tab', messageId: 'other-1' });
  await follow(other, bot.id, sent.cursor);
  const again = [];
  for await (const line of fxbot.chat.stream(bot.id, 0, { follow: false })) again.push(line);
  assert.deepEqual(again.filter((l) => l.type === 'turn_start').map((l) => l.messageId), ['earlier-0', 'earlier-1', 'other-1']);
  assert.equal((await fxbot.chat.turns(bot.id)).length, 3);
  // A consumer that saw turn 2 end and follows on meets turn 3 (another process's) and then this
  // process's turn 4, in order.
  const turn2End = again.find((l) => l.type === 'turn_end' && l.turn === 2);
  const seen = [];
  const consumer = (async () => {
    for await (const line of fxbot.chat.stream(bot.id, turn2End.cursor)) {
      seen.push(line);
      if (line.type === 'turn_end' && line.turn === 4) break;
    }
  })();
  const mine = await fxbot.chat.send(bot.id, { text: 'and from this one', messageId: 'mine-1' });
  assert.equal(mine.turn, 4);
  await consumer;
  assert.deepEqual(seen.filter((l) => l.type === 'turn_start').map((l) => l.messageId), ['other-1', 'mine-1']);
  await other.close();
  await fxbot.close();
});
