// Sessions and config through createFxAgent: revision conflicts from a second writer (nothing
// lost, a fork observed), listSessions / openSession / remove, and config restore and persist
// with their events.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memoryConfigStore, memorySessionStore, readSession } from '../../pkg/index.js';
import { conversation, controllableStore, env, fakeFetch, textEvents, trapGuard } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const userTexts = async (store, id) => (await readSession((await store.load(id)).bytes)).turns.map((t) => t.user.text);

describe('revision conflicts', () => {
  test('a second writer: our next commit forks, both histories survive, the host is told', async () => {
    const net = fakeFetch([
      { events: textEvents('one') },
      { events: textEvents('tab b') },
      { events: textEvents('two') },
      { events: textEvents('three') },
    ]);
    const sessionStore = memorySessionStore();
    const events = [];
    const a = await createFxAgent({ fetch: net.fetch, env, sessionStore, onEvent: (e) => events.push(e) });
    const sa = await a.createSession();
    await sa.prompt('first').result;
    const original = sa.id;

    const b = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    const sb = await b.openSession(original);
    await sb.prompt('from tab b').result;

    const turn = sa.prompt('second');
    const result = await turn.result;
    assert.equal(result.stopReason, 'end_turn');
    assert.notEqual(sa.id, original, 'session.id follows the fork');
    assert.match(sa.id, /^\d+-\d+-[0-9a-f]{16}$/);
    const forks = events.filter((e) => e.type === 'session.forked');
    assert.equal(forks.length, 1);
    assert.equal(forks[0].from, original);
    assert.equal(forks[0].to, sa.id);
    assert.equal(typeof forks[0].reason, 'string');
    assert.equal(typeof forks[0].timestamp, 'number');

    // Nothing lost: the other writer's record is untouched, ours holds the shared turn and ours.
    assert.deepEqual(await userTexts(sessionStore, original), ['first', 'from tab b']);
    assert.deepEqual(await userTexts(sessionStore, sa.id), ['first', 'second']);
    assert.deepEqual((await a.listSessions()).map((s) => s.sessionId).sort(), [original, sa.id].sort());

    // The fork continues normally, under its new id, without forking again.
    await sa.prompt('third').result;
    assert.deepEqual(await userTexts(sessionStore, sa.id), ['first', 'second', 'third']);
    assert.equal(events.filter((e) => e.type === 'session.forked').length, 1);
    assert.equal(net.chats().at(-1).headers['x-session-id'], sa.id);
    await a.close();
    await b.close();
  });

  test('a conflict where the store holds exactly our last commit retries in place, no fork', async () => {
    // A store that reports a conflict once even though nothing changed (a lost reply).
    const inner = memorySessionStore();
    let failNext = false;
    const store = {
      ...inner,
      commit(id, bytes, expected) {
        if (failNext) {
          failNext = false;
          const current = inner.load(id);
          // Re-commit what is there so the revision moves on, then report a conflict.
          inner.commit(id, current.bytes, current.revision);
          const error = new Error('conflict');
          error.code = 'FX_SESSION_REVISION_CONFLICT';
          throw error;
        }
        return inner.commit(id, bytes, expected);
      },
    };
    const net = fakeFetch([{ events: textEvents('fine') }, { events: textEvents('still fine') }]);
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: store, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const id = session.id;
    // The first turn stores the session (a new one is stored once it has a turn).
    await session.prompt('hello').result;
    failNext = true;
    await session.prompt('again').result;
    assert.equal(session.id, id);
    assert.ok(!events.some((e) => e.type === 'session.forked'));
    assert.deepEqual(await userTexts(inner, id), ['hello', 'again']);
    await agent.close();
  });

  test('a store failure on commit rejects the turn with a coded error', async () => {
    const control = controllableStore(memorySessionStore());
    const net = fakeFetch([{ events: textEvents('lost?') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.store });
    const session = await agent.createSession();
    control.fail.commit = new Error('disk full');
    await assert.rejects(session.prompt('hi').result, (error) => {
      assert.equal(error.code, 'FX_SESSION_STORE_FAILED');
      assert.match(error.message, /disk full/);
      return true;
    });
    await agent.close();
  });
});

describe('a session is stored once it has something to keep', () => {
  test('createSession stores nothing; a turn or a preference change stores it; close reports no empty session', async () => {
    const control = controllableStore(memorySessionStore());
    const sessionStore = control.store;
    const events = [];
    // A stored model is restored into each new session: where it starts, not a change to keep.
    const configStore = memoryConfigStore({ model: 'test/feature-model' });
    const net = fakeFetch([{ events: textEvents('kept') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, configStore, onEvent: (e) => events.push(e) });
    const blank = await agent.createSession();
    assert.equal(blank.configOptions.find((o) => o.id === 'model').currentValue, 'test/feature-model');
    assert.deepEqual(await agent.listSessions(), []);
    // Replacing it (createSession closes the active session) stores nothing either.
    const second = await agent.createSession();
    assert.notEqual(second.id, blank.id);
    assert.deepEqual(await agent.listSessions(), []);
    await assert.rejects(agent.openSession(blank.id), (e) => e.code === 'FX_SESSION_NOT_FOUND');

    const talked = await agent.createSession();
    await talked.prompt('keep this').result;
    assert.deepEqual((await agent.listSessions()).map((s) => s.sessionId), [talked.id]);
    const stored = await readSession((await sessionStore.load(talked.id)).bytes);
    assert.deepEqual(stored.turns.map((t) => t.user.text), ['keep this']);
    assert.equal(stored.preferences.model, 'test/feature-model');

    // A model change before any turn is kept (as the reference's terminal commits a preference change).
    const chosen = await agent.createSession();
    await chosen.setModel('sdk/catalog-alpha');
    const ids = (await agent.listSessions()).map((s) => s.sessionId);
    assert.deepEqual(ids.sort(), [talked.id, chosen.id].sort());
    assert.equal((await readSession((await sessionStore.load(chosen.id)).bytes)).preferences.model, 'sdk/catalog-alpha');

    // A blank session with a failing store: closing it has nothing to store and nothing to report.
    await agent.createSession();
    control.fail.commit = new Error('disk full');
    assert.equal(await agent.close(), 0);
    assert.ok(!events.some((e) => e.type === 'session.unsaved'), 'no session.unsaved for an empty session');
    assert.equal((await sessionStore.list()).length, 2);
  });
});

describe('listSessions, openSession, remove', () => {
  test('list is newest first with ISO times; open replays history; remove deletes', async () => {
    const net = fakeFetch([{ events: textEvents('A') }, { events: textEvents('B') }]);
    const sessionStore = memorySessionStore();
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
    assert.deepEqual(await agent.listSessions(), []);
    const first = await agent.createSession();
    await first.prompt('first session').result;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await agent.createSession();
    await second.prompt('second session').result;
    assert.throws(() => first.prompt('x'), /fx session is closed/);

    const listed = await agent.listSessions();
    assert.deepEqual(listed.map((s) => s.sessionId), [second.id, first.id]);
    for (const entry of listed) {
      assert.match(entry.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(entry.cwd, '/');
    }

    const reopened = await agent.openSession(first.id);
    assert.deepEqual(
      reopened.history.map((u) => [u.sessionUpdate, u.content.text]),
      [
        ['user_message_chunk', 'first session'],
        ['agent_message_chunk', 'A'],
      ],
    );
    assert.throws(() => second.prompt('x'), /closed|no longer active/);
    await reopened.remove();
    assert.deepEqual((await agent.listSessions()).map((s) => s.sessionId), [second.id]);
    assert.throws(() => reopened.prompt('x'), /closed/);
    await assert.rejects(agent.openSession(first.id), (e) => e.code === 'FX_SESSION_NOT_FOUND');
    await assert.rejects(agent.openSession(''), TypeError);
    await agent.close();
  });

  test('remove is refused while a turn runs, and a failed remove keeps the session usable', async () => {
    const net = fakeFetch([{ hang: true }, { events: textEvents('still here') }]);
    const control = controllableStore(memorySessionStore());
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.store });
    const session = await agent.createSession();
    const turn = session.prompt('wait');
    await assert.rejects(session.remove(), /cannot remove a session while a prompt is active/);
    turn.cancel();
    await turn.result;
    control.fail.remove = new Error('read-only store');
    await assert.rejects(session.remove(), (e) => e.code === 'FX_SESSION_STORE_FAILED');
    assert.equal(await session.prompt('again').stopReason, 'end_turn');
    assert.equal((await agent.listSessions()).length, 1);
    await agent.close();
  });

  test('an unreadable stored session is refused with FX_SESSION_INVALID', async () => {
    const sessionStore = memorySessionStore();
    await sessionStore.commit('1-2-0123456789abcdef', new TextEncoder().encode('not a log\n'), undefined);
    const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore });
    await assert.rejects(agent.openSession('1-2-0123456789abcdef'), (e) => e.code === 'FX_SESSION_INVALID');
    await agent.close();
  });
});

describe('config', () => {
  test('restore: stored model and mode are applied to new and opened sessions', async () => {
    const net = fakeFetch([{ events: textEvents('ok') }]);
    const configStore = memoryConfigStore({ model: 'test/feature-model', mode: 'code' });
    const events = [];
    const agent = await createFxAgent({ fetch: net.fetch, env, configStore, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'test/feature-model');
    assert.equal(session.configOptions.find((o) => o.id === 'mode').currentValue, 'code');
    assert.equal(session.modes.currentModeId, 'code');
    const restored = events.filter((e) => e.type === 'config.changed');
    assert.deepEqual(
      restored.map((e) => [e.configId, e.previousValue, e.value, e.source]),
      [
        ['model', 'moonshotai/kimi-k3', 'test/feature-model', 'restore'],
        ['mode', 'ask', 'code', 'restore'],
      ],
    );
    await session.prompt('hi').result;
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'test/feature-model');
    const reopened = await agent.openSession(session.id);
    assert.equal(reopened.modes.currentModeId, 'code', 'mode is restored on open too');
    await agent.close();
  });

  test('restore errors: a throwing get, a non-string, an invalid stored value', async () => {
    const events = [];
    const configStore = {
      get(id) {
        if (id === 'model') throw new Error('storage locked');
        return 'turbo'; // not a mode
      },
      set() {},
    };
    const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env, configStore, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const errors = events.filter((e) => e.type === 'config.restore_error');
    assert.deepEqual(errors.map((e) => e.configId), ['model', 'mode']);
    assert.match(errors[0].error, /storage locked/);
    assert.equal(typeof errors[1].error, 'string');
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'moonshotai/kimi-k3');
    assert.equal(session.modes.currentModeId, 'ask');
    assert.ok(!events.some((e) => e.type === 'config.changed'));
    await agent.close();

    const events2 = [];
    const agent2 = await createFxAgent({
      fetch: fakeFetch([]).fetch,
      env,
      configStore: { get: (id) => (id === 'model' ? 42 : null) },
      onEvent: (e) => events2.push(e),
    });
    await agent2.createSession();
    assert.deepEqual(events2.filter((e) => e.type === 'config.restore_error').map((e) => e.configId), ['model']);
    await agent2.close();
  });

  test('persist: only accepted values are stored, after acceptance; a failing set is an event', async () => {
    const writes = [];
    let failSet = false;
    const values = new Map();
    const configStore = {
      get: (id) => values.get(id) ?? null,
      set(id, value) {
        if (failSet) throw new Error('quota exceeded');
        writes.push([id, value]);
        values.set(id, value);
      },
    };
    const control = controllableStore(memorySessionStore());
    const events = [];
    const agent = await createFxAgent({
      fetch: fakeFetch([]).fetch,
      env,
      configStore,
      sessionStore: control.store,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    assert.deepEqual(writes, [], 'nothing stored at creation');

    const options = await session.setModel('sdk/catalog-alpha');
    assert.equal(options.find((o) => o.id === 'model').currentValue, 'sdk/catalog-alpha');
    assert.deepEqual(writes, [['model', 'sdk/catalog-alpha']]);
    assert.deepEqual(
      events.filter((e) => e.type === 'config.changed').map((e) => [e.configId, e.previousValue, e.value, e.source]),
      [['model', 'moonshotai/kimi-k3', 'sdk/catalog-alpha', 'sdk']],
    );
    const stored = await readSession((await control.store.load(session.id)).bytes);
    assert.equal(stored.preferences.model, 'sdk/catalog-alpha', 'the model change is in the session log');

    // Refused values: nothing stored, no event.
    await assert.rejects(session.setModel(' padded '), (e) => e.code === 'FX_INVALID_MODEL');
    await assert.rejects(session.setMode('turbo'), (e) => e.code === 'FX_INVALID_MODE');
    assert.equal(session.modes.currentModeId, 'ask');
    assert.deepEqual(writes, [['model', 'sdk/catalog-alpha']]);

    // A model change the session store cannot save is not applied and not persisted.
    control.fail.commit = new Error('store down');
    await assert.rejects(session.setModel('test/feature-model'), (e) => e.code === 'FX_SESSION_STORE_FAILED');
    control.fail.commit = null;
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'sdk/catalog-alpha');
    assert.deepEqual(writes, [['model', 'sdk/catalog-alpha']]);

    // configStore.set throwing: the change stands, the host gets config.persist_error.
    failSet = true;
    await session.setMode('code');
    assert.equal(session.modes.currentModeId, 'code');
    const persistErrors = events.filter((e) => e.type === 'config.persist_error');
    assert.deepEqual(persistErrors.map((e) => e.configId), ['mode']);
    assert.match(persistErrors[0].error, /quota exceeded/);

    // setConfig applies in order and stops at the first failure.
    failSet = false;
    await assert.rejects(session.setConfig({ mode: 'ask', model: 'bad\nmodel', other: 'x' }));
    assert.equal(session.modes.currentModeId, 'ask');
    assert.deepEqual(writes.at(-1), ['mode', 'ask']);
    await agent.close();
  });

  test('the model in use follows setModel; an unknown config id is refused', async () => {
    const net = fakeFetch([{ events: textEvents('a') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env });
    const session = await agent.createSession();
    const before = session.configOptions;
    await assert.rejects(session.setConfigOption('provider', 'codex'), (e) => e.code === 'FX_INVALID_CONFIG_OPTION');
    assert.deepEqual(session.configOptions, before);
    await session.setModel('test/feature-model');
    await session.prompt('hi').result;
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'test/feature-model');
    assert.ok(conversation(net.chats()[0]).length === 1);
    await agent.close();
  });
});
