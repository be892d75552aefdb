// Resuming every session the fx CLI wrote (tests/fixtures/fx-sessions) through the JS API:
// importNativeSession → sessionStore → openSession(id) → prompt. The next request must carry the
// same non-system messages fx sent (requests.jsonl), followed by the rest of the last turn and
// the new user message.
//
// How requests.jsonl lines up with our request: fx's last request of a scenario is the last step
// of its last turn, so its messages are a prefix of ours; after them come (a) for turns whose
// tools touched files, the "file evidence" user message fx adds to completed turns (its form is
// checked against fx's own next request by tests/agent_resume.rs), (b) the last turn's final
// answer, and (c) our new prompt.
//
// `long` is the exception: fx's CLI folds the oldest turns into a summary (a system message) once
// a session has more than 8 turns; we keep up to 100 turns by default, so our request holds the
// four turns fx folded away. What is comparable: fx's last unfolded turn-starting request is a
// prefix of ours, and fx's last (folded) request is exactly the block of messages that ends our
// history — the kept turns are identical.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { createFxAgent, importNativeSession, memorySessionStore, readSession } from '../../pkg/index.js';
import { conversation, env, fakeFetch, textEvents, trapGuard } from './agent-support.mjs';
import { FIXTURES_DIR, fixtureNames, loadFixture } from './fixtures.mjs';

const guard = trapGuard();
after(() => guard.check());

/** Fixtures where fx folded old turns on its last requests (see the header). */
const FOLDED_BY_FX = new Set(['long']);

async function fxRequests(name) {
  const text = await readFile(join(FIXTURES_DIR, name, 'requests.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line).body);
}

/** A request that starts a turn: automatic tool choice, ending with the user's message. */
const startsTurn = (body) => body.other_keys?.toolChoice?.type === 'auto' && body.prompt_without_system.at(-1).role === 'user';

const isFileEvidence = (m) => m.role === 'user' && /^Session file evidence/.test(m.content[0].text);

describe('resuming fx CLI sessions through createFxAgent', async () => {
  for (const name of await fixtureNames()) {
    test(name, async () => {
      const { files } = await loadFixture(name);
      const bytes = await importNativeSession(files);
      const view = await readSession(bytes);
      const sessionStore = memorySessionStore();
      await sessionStore.commit(view.id, bytes, undefined);

      const net = fakeFetch([{ events: textEvents('resumed') }]);
      const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
      const session = await agent.openSession(view.id);
      assert.equal(session.id, view.id);
      const users = session.history.filter((u) => u.sessionUpdate === 'user_message_chunk');
      assert.equal(users.length, view.turns.length, 'history replays one user message per turn');
      assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, view.preferences.model);

      assert.equal(await session.prompt('one more question').stopReason, 'end_turn');
      const [chat] = net.chats();
      assert.equal(chat.headers['x-session-id'], view.id);
      assert.equal(chat.headers['ai-language-model-id'], view.preferences.model);
      const ours = conversation(chat);

      const sent = await fxRequests(name);
      const last = sent.at(-1).prompt_without_system;
      const lastTurn = view.turns.at(-1);
      assert.deepEqual(ours.at(-1), { role: 'user', content: [{ type: 'text', text: 'one more question' }] });
      assert.deepEqual(ours.at(-2), { role: 'assistant', content: [{ type: 'text', text: lastTurn.assistant }] });

      let start = 0;
      if (FOLDED_BY_FX.has(name)) {
        assert.equal(sent.at(-1).system_message_count, 6, 'fx sent a summary');
        const unfolded = sent.filter((b) => startsTurn(b) && b.system_message_count === 5).at(-1).prompt_without_system;
        assert.deepEqual(ours.slice(0, unfolded.length), unfolded, 'the last unfolded request is a prefix');
        start = ours.length - 2 - last.length;
        assert.ok(start > 0, 'we kept turns fx folded away');
      }
      assert.deepEqual(ours.slice(start, start + last.length), last, "fx's last request, message for message");
      const between = ours.slice(start + last.length, -2);
      assert.ok(between.length <= 1 && between.every(isFileEvidence), `only file evidence may follow: ${JSON.stringify(between)}`);
      if (!FOLDED_BY_FX.has(name)) {
        const turnStart = sent.filter(startsTurn).at(-1).prompt_without_system;
        assert.deepEqual(ours.slice(0, turnStart.length), turnStart, "fx's last turn-starting request is a prefix");
      }

      // The new turn is appended to the imported log.
      const stored = await readSession((await sessionStore.load(session.id)).bytes);
      assert.equal(stored.turns.length, view.turns.length + 1);
      assert.equal(stored.turns.at(-1).user.text, 'one more question');
      assert.equal(stored.turns.at(-1).assistant, 'resumed');
      await agent.close();
    });
  }
});
