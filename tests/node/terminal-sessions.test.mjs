// Which sessions the terminal stores, through createFxTerminal on @xterm/headless: a session is
// stored once it has something to keep (a turn, a preference change), never at start-up, /new
// or /clear, so `--resume last` after a launch with no prompt still opens the last conversation
// and `listSessions` shows no empty session. What is stored loads in the fx CLI (FX_NATIVE).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';

import { createFxAgent, exportNativeSession, memoryConfigStore, memorySessionStore, readSession } from '../../pkg/index.js';
import { CATALOG, delay, env, fakeFetch, textEvents } from './agent-support.mjs';
import { nativeHome } from './native-home.mjs';
import { contains, screen, startTerminal, until } from './terminal-support.mjs';

/** The sessions `listSessions` shows for `sessionStore`, each with its turn count. */
async function listed(sessionStore) {
  const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore });
  const sessions = await agent.listSessions();
  await agent.close();
  const out = [];
  for (const s of sessions) out.push({ id: s.sessionId, turns: (await view(sessionStore, s.sessionId)).turns.length });
  return out;
}

const view = (sessionStore, id) => readSession(sessionStore.load(id).bytes);

/**
 * What the fx CLI (`FX_NATIVE`) makes of stored session `id`: `fx session --id <id> --json` on
 * its export; null without FX_NATIVE (the oracle is optional).
 */
async function fxDescribes(sessionStore, id) {
  if (!process.env.FX_NATIVE) return null;
  const files = await exportNativeSession(sessionStore.load(id).bytes);
  const home = nativeHome(id, files, 'fx-blank-');
  try {
    const out = execFileSync(process.env.FX_NATIVE, ['session', '--id', id, '--json'], { env: { ...process.env, HOME: home }, encoding: 'utf8' });
    return JSON.parse(out);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe('the sessions a terminal stores', () => {
  test('--resume last after a launch with no prompt opens the last conversation', async () => {
    const sessionStore = memorySessionStore();
    const net = fakeFetch([{ events: textEvents('The answer is 42.') }]);
    const first = await startTerminal({ fetch: net.fetch, env, sessionStore });
    first.runtime.write('what is it\r');
    await contains(first.term, 'The answer is 42.');
    const conversation = first.runtime.sessionId;
    first.runtime.write('/exit\r');
    assert.equal(await first.runtime.exited, 0);
    // A later launch where nothing is typed (updatedAtMs is in milliseconds: let the clock move).
    await delay(5);
    const idle = await startTerminal({ fetch: net.fetch, env, sessionStore });
    idle.runtime.write('/exit\r');
    assert.equal(await idle.runtime.exited, 0);
    await delay(5);
    const resumed = await startTerminal({ fetch: net.fetch, env, sessionStore, args: ['--resume', 'last'] });
    const text = screen(resumed.term);
    assert.match(text, /┃ what is it/);
    assert.match(text, /The answer is 42\./);
    assert.equal(resumed.runtime.sessionId, conversation);
    resumed.runtime.abort();
  });

  test('launch, /new, /clear (with a restored model) store nothing; listSessions shows no empty session', async () => {
    const sessionStore = memorySessionStore();
    // A stored model is restored into each new session: where it starts, not a change to keep.
    const configStore = memoryConfigStore({ model: 'test/alpha-model' });
    const net = fakeFetch([{ events: textEvents('kept') }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, sessionStore, configStore });
    await until(term, (t) => /^ask · alpha-model$/m.test(t), { what: 'the restored model' });
    const launched = runtime.sessionId;
    runtime.write('/new\r');
    await until(term, () => runtime.sessionId !== launched, { what: 'a new session' });
    const renewed = runtime.sessionId;
    runtime.write('/clear\r');
    await until(term, () => runtime.sessionId !== renewed, { what: 'a cleared session' });
    runtime.write('/exit\r');
    assert.equal(await runtime.exited, 0);
    assert.deepEqual(sessionStore.list(), []);
    assert.deepEqual(await listed(sessionStore), []);

    // A turn is kept, with the model it ran on; /resume lists that session alone.
    const again = await startTerminal({ fetch: net.fetch, env, sessionStore, configStore });
    again.runtime.write('/new\r');
    again.runtime.write('keep this\r');
    await contains(again.term, 'kept');
    await until(again.term, () => sessionStore.list().length > 0, { what: 'the stored turn' });
    const sessions = await listed(sessionStore);
    assert.deepEqual(sessions, [{ id: again.runtime.sessionId, turns: 1 }]);
    assert.equal((await view(sessionStore, again.runtime.sessionId)).preferences.model, 'test/alpha-model');
    const native = await fxDescribes(sessionStore, again.runtime.sessionId);
    if (native) {
      assert.equal(native.kind, 'session_detail', JSON.stringify(native));
      assert.equal(native.history_len, 1);
    }
    again.runtime.write('/resume\r');
    const picker = await contains(again.term, 'Resume a session');
    assert.deepEqual(
      picker.split('\n').filter((line) => / ago · /.test(line)).map((line) => line.includes('keep this · ') && line.endsWith(` ago · ${again.runtime.sessionId}`)),
      [true],
      'one entry: the session with the turn',
    );
    again.runtime.abort();
  });

  test('a preference change is something to keep: /model before any turn stores the session', async () => {
    const sessionStore = memorySessionStore();
    const catalog = { object: 'list', data: [...CATALOG.data, { id: 'test/beta-model', type: 'language', tags: ['tool-use'] }] };
    const { term, runtime } = await startTerminal({ fetch: fakeFetch([], { catalog }).fetch, env, sessionStore });
    runtime.write('/model test/beta-model\r');
    await contains(term, 'Switched to test/beta-model');
    await until(term, () => sessionStore.list().length === 1, { what: 'the stored session' });
    const [stored] = sessionStore.list();
    assert.equal(stored.id, runtime.sessionId);
    assert.equal((await view(sessionStore, stored.id)).preferences.model, 'test/beta-model');
    const native = await fxDescribes(sessionStore, stored.id);
    if (native) {
      assert.equal(native.kind, 'session_detail', JSON.stringify(native));
      assert.equal(native.history_len, 0);
    }
    runtime.abort();
  });
});
