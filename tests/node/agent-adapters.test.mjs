// Adapters that lie or never answer, through createFxAgent: a malformed store result is a coded
// error naming the method before any turn runs; every store and config call has a deadline
// (`adapterTimeoutMs`); `abort()` settles every pending turn and `close()` at once even when a
// commit never settles, and reports what was not stored; `close()` retries a failed commit.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memoryConfigStore, memorySessionStore, readSession } from '../../pkg/index.js';
import { commitOnly, controllableStore, delay, env, fakeFetch, stallable, textEvents, trapGuard, within } from './agent-support.mjs';

/** Resolves once `predicate()` holds; rejects after `ms`. */
async function until(predicate, ms) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await delay(10);
  }
}

const guard = trapGuard();
after(() => guard.check());

const userTexts = async (store, id) => (await readSession((await store.load(id)).bytes)).turns.map((t) => t.user.text);

/** A stored session (one answered turn) in a fresh memory store; returns { store, id }. */
async function storedSession() {
  const store = memorySessionStore();
  const agent = await createFxAgent({ fetch: fakeFetch([{ events: textEvents('stored') }]).fetch, env, sessionStore: store });
  const session = await agent.createSession();
  await session.prompt('first').result;
  await agent.close();
  return { store, id: session.id };
}

describe('malformed store results are FX_SESSION_STORE_FAILED naming the method', () => {
  const loads = [
    ['no revision', (r) => ({ bytes: r.bytes }), /sessionStore\.load\(\).*revision/],
    ['a numeric revision', (r) => ({ bytes: r.bytes, revision: 7 }), /sessionStore\.load\(\).*revision/],
    ['an empty revision', (r) => ({ bytes: r.bytes, revision: '' }), /sessionStore\.load\(\).*revision/],
    ['no bytes', (r) => ({ revision: r.revision }), /sessionStore\.load\(\).*bytes/],
    ['a string', () => 'session', /sessionStore\.load\(\)/],
    ['false', () => false, /sessionStore\.load\(\)/],
  ];
  for (const [what, shape, message] of loads) {
    test(`load() returning ${what}: openSession rejects before any turn`, async () => {
      const { store, id } = await storedSession();
      const net = fakeFetch([]);
      const commits = [];
      const sessionStore = {
        load: async (sid) => shape(await store.load(sid)),
        commit: (...args) => {
          commits.push(args[0]);
          return store.commit(...args);
        },
        list: () => store.list(),
        remove: (sid) => store.remove(sid),
      };
      const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore });
      await assert.rejects(agent.openSession(id), (error) => {
        assert.equal(error.code, 'FX_SESSION_STORE_FAILED');
        assert.match(error.message, message);
        return true;
      });
      assert.equal(net.chats().length, 0);
      assert.deepEqual(commits, [], 'nothing was written');
      assert.deepEqual(await userTexts(store, id), ['first'], 'the stored session is untouched');
      await agent.close();
    });
  }

  test('list() with an entry that is not { id, updatedAtMs } is refused, naming sessionStore.list', async () => {
    const inner = memorySessionStore();
    for (const entry of [[{ id: 5, updatedAtMs: 1 }], [{ id: 'a', updatedAtMs: 'yesterday' }], [null], { length: 0 }]) {
      const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore: { ...inner, list: () => entry } });
      await assert.rejects(agent.listSessions(), (error) => {
        assert.equal(error.code, 'FX_SESSION_STORE_FAILED');
        assert.match(error.message, /sessionStore\.list\(\)/);
        return true;
      });
      await agent.close();
    }
  });

  test('commit() without a revision is refused, naming sessionStore.commit', async () => {
    const inner = memorySessionStore();
    const net = fakeFetch([{ events: textEvents('answered') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: { ...inner, commit: () => ({ rev: 'x' }) } });
    // A new session is first committed when its turn ends.
    const session = await agent.createSession();
    await assert.rejects(session.prompt('hi').result, (error) => {
      assert.equal(error.code, 'FX_SESSION_STORE_FAILED');
      assert.match(error.message, /sessionStore\.commit\(\).*revision/);
      return true;
    });
    await agent.close();
  });
});

describe('deadlines: adapterTimeoutMs', () => {
  const timeoutMs = 150;

  test('the option is validated', async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '200', 2 ** 31, Infinity]) {
      await assert.rejects(createFxAgent({ env, adapterTimeoutMs: bad }), TypeError, `adapterTimeoutMs ${bad}`);
    }
  });

  test('load, list, remove and commit that never settle end as FX_ADAPTER_TIMEOUT naming the method', async () => {
    const { store, id } = await storedSession();
    const control = stallable(store);
    const net = fakeFetch([{ events: textEvents('answered') }]);
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: control.adapter, adapterTimeoutMs: timeoutMs });
    const cases = [
      ['load', () => agent.openSession(id)],
      ['list', () => agent.listSessions()],
      // A new session is first committed when its turn ends.
      ['commit', async () => (await agent.createSession()).prompt('unstored').result],
    ];
    for (const [method, run] of cases) {
      control.stall(method);
      const started = Date.now();
      const outcome = await within(run(), 3000);
      assert.ok(outcome.settled, `${method}: settled`);
      assert.equal(outcome.error?.code, 'FX_ADAPTER_TIMEOUT', `${method}: ${outcome.error}`);
      assert.match(outcome.error.message, new RegExp(`sessionStore\\.${method}\\(\\)`));
      assert.match(outcome.error.message, new RegExp(`${timeoutMs} ms`));
      assert.ok(Date.now() - started >= timeoutMs - 20, `${method}: not before the deadline`);
      control.unstall(method);
    }
    // The agent keeps working: the same calls succeed once the store answers again.
    const session = await agent.openSession(id);
    control.stall('remove');
    const removal = await within(session.remove(), 3000);
    assert.equal(removal.error?.code, 'FX_ADAPTER_TIMEOUT');
    assert.match(removal.error.message, /sessionStore\.remove\(\)/);
    control.unstall('remove');
    // The stored session, and the one whose commit timed out (stored when openSession closed it).
    assert.equal((await agent.listSessions()).length, 2);
    await agent.close();
  });

  test('configStore.get that never settles: the session opens after the deadline, with config.restore_error', async () => {
    const events = [];
    const config = stallable(memoryConfigStore({ model: 'test/feature-model' }));
    config.stall('get');
    const agent = await createFxAgent({
      fetch: fakeFetch([]).fetch,
      env,
      configStore: config.adapter,
      adapterTimeoutMs: timeoutMs,
      onEvent: (e) => events.push(e),
    });
    const outcome = await within(agent.createSession(), 3000);
    assert.ok(outcome.settled && !outcome.error, String(outcome.error));
    const errors = events.filter((e) => e.type === 'config.restore_error');
    assert.deepEqual(errors.map((e) => e.configId), ['model', 'mode']);
    assert.match(errors[0].error, /configStore\.get\(\).*150 ms/);
    await agent.close();
  });

  test('configStore.set that never settles: setMode settles, and prompts are not refused meanwhile', async () => {
    const net = fakeFetch([{ events: textEvents('during') }, { events: textEvents('after') }]);
    const events = [];
    const config = stallable(memoryConfigStore());
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      configStore: config.adapter,
      adapterTimeoutMs: 2000,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    config.stall('set');
    const switching = session.setMode('code');
    await config.called('set');
    // The write hangs; the session is not held by it.
    const during = await within(session.prompt('while the write hangs').result, 1500);
    assert.ok(during.settled, 'the prompt ran');
    assert.equal(during.error, undefined, String(during.error));
    assert.equal(during.value.stopReason, 'end_turn');
    const switched = await within(switching, 3000);
    assert.ok(switched.settled && !switched.error, String(switched.error));
    assert.equal(session.modes.currentModeId, 'code', 'the mode is applied');
    const [persist] = events.filter((e) => e.type === 'config.persist_error');
    assert.equal(persist?.configId, 'mode');
    assert.match(persist.error, /configStore\.set\(\)/);
    // A late answer changes nothing; the next prompt runs normally.
    await config.release();
    assert.equal((await session.prompt('after').result).stopReason, 'end_turn');
    await agent.close();
  });

  test('a commit answered after its deadline: the turn is refused, the late write is recognised as ours (no fork)', async () => {
    const inner = memorySessionStore();
    const control = stallable(commitOnly(inner));
    const events = [];
    const net = fakeFetch([{ events: textEvents('one') }, { events: textEvents('two') }]);
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      sessionStore: control.adapter,
      adapterTimeoutMs: timeoutMs,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    control.stall('commit');
    await assert.rejects(session.prompt('first').result, (e) => e.code === 'FX_ADAPTER_TIMEOUT');
    control.unstall('commit');
    await control.release(); // the store writes the first turn now, after we stopped waiting
    assert.deepEqual(await userTexts(inner, session.id), ['first']);
    await session.prompt('second').result;
    assert.deepEqual(await userTexts(inner, session.id), ['first', 'second']);
    assert.equal(events.filter((e) => e.type === 'session.forked').length, 0, 'no fork of our own write');
    await agent.close();
  });
});

describe('a model change whose commit answered after its deadline', () => {
  test('is refused and taken back; when the late write lands, the next commit is reconciled with it, not forked', async () => {
    const inner = memorySessionStore();
    const control = stallable(commitOnly(inner));
    const events = [];
    const net = fakeFetch([{ events: textEvents('after') }]);
    const agent = await createFxAgent({
      fetch: net.fetch,
      env,
      sessionStore: control.adapter,
      adapterTimeoutMs: 200,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    const id = session.id;
    control.stall('commit');
    await assert.rejects(session.setModel('sdk/catalog-alpha'), (e) => e.code === 'FX_ADAPTER_TIMEOUT');
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'moonshotai/kimi-k3');
    control.unstall('commit');
    await control.release(); // the store writes the model change now, after we stopped waiting
    assert.equal((await readSession((await inner.load(id)).bytes)).preferences.model, 'sdk/catalog-alpha');

    assert.equal((await session.prompt('next').result).stopReason, 'end_turn');
    assert.equal(events.filter((e) => e.type === 'session.forked').length, 0, 'no fork of our own late write');
    assert.equal(session.id, id);
    assert.equal(net.chats()[0].headers['ai-language-model-id'], 'moonshotai/kimi-k3');
    const stored = await readSession((await inner.load(id)).bytes);
    assert.deepEqual(stored.turns.map((t) => t.user.text), ['next']);
    assert.equal(stored.preferences.model, 'moonshotai/kimi-k3', 'the store holds what the agent holds: the change was refused');
    assert.equal((await inner.list()).length, 1, 'one session, no copy');
    await agent.close();
  });
});

describe('abort() with a commit that never settles', () => {
  test('abort settles the turn and a pending close() at once; the unsaved turn is reported when the write misses its deadline', async () => {
    const inner = memorySessionStore();
    const control = stallable(commitOnly(inner));
    const events = [];
    const agent = await createFxAgent({
      fetch: fakeFetch([{ events: textEvents('answered') }]).fetch,
      env,
      sessionStore: control.adapter,
      adapterTimeoutMs: 1000,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    control.stall('commit');
    const turn = session.prompt('keep me');
    await control.called('commit');
    const closing = agent.close();
    assert.equal((await within(closing, 100)).settled, false, 'close() waits for the turn to be saved');

    const started = Date.now();
    agent.abort();
    const [result, closed, exited] = await Promise.all([within(turn.result, 500), within(closing, 500), within(agent.exited, 500)]);
    assert.ok(Date.now() - started < 500);
    assert.ok(result.settled, 'turn.result settled');
    assert.equal(result.error?.code, 'FX_AGENT_CLOSED', String(result.error));
    assert.match(result.error.message, /sessionStore\.commit\(\)/);
    assert.ok(closed.settled, 'close() settled');
    assert.equal(closed.value, 130);
    assert.equal(exited.value, 130);

    // The write may still land until its deadline: the report waits for it.
    const unsaved = () => events.filter((e) => e.type === 'session.unsaved');
    await until(() => unsaved().length > 0, 3000);
    assert.ok(Date.now() - started >= 700, 'reported once the write missed its deadline');
    assert.equal(unsaved().length, 1);
    const [report] = unsaved();
    assert.equal(report.sessionId, session.id);
    assert.equal(report.turns, 1);
    assert.equal(report.code, 'FX_AGENT_CLOSED');
    // The report carries the session bytes that were not stored: nothing is lost.
    const view = await readSession(report.bytes);
    assert.deepEqual(view.turns.map((t) => t.user.text), ['keep me']);

    // A late answer is ignored: no error, no event.
    const count = events.length;
    await control.release();
    await delay(20);
    assert.equal(events.length, count);
  });

  test('abort while a slow store writes the turn: no session.unsaved once the write lands within its deadline', async () => {
    const inner = memorySessionStore();
    const control = stallable(inner);
    const events = [];
    const agent = await createFxAgent({
      fetch: fakeFetch([{ events: textEvents('answered') }]).fetch,
      env,
      sessionStore: control.adapter,
      adapterTimeoutMs: 2000,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    control.stall('commit');
    control.stall('append');
    const turn = session.prompt('slow but saved');
    await Promise.race([control.called('commit'), control.called('append')]);
    agent.abort();
    assert.equal((await within(turn.result, 500)).error?.code, 'FX_AGENT_CLOSED');
    assert.equal(await agent.exited, 130);
    await delay(150); // the store is slow, not stuck
    await control.release();
    await delay(100);
    assert.deepEqual(await userTexts(inner, session.id), ['slow but saved'], 'the store holds the turn');
    assert.deepEqual(events.filter((e) => e.type === 'session.unsaved'), [], 'nothing is reported unsaved');
  });

  test('abort settles a stuck openSession and listSessions at once', async () => {
    const { store, id } = await storedSession();
    const control = stallable(store);
    const agent = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore: control.adapter, adapterTimeoutMs: 60_000 });
    control.stall('load');
    control.stall('list');
    const outcomes = Promise.all([within(agent.openSession(id), 1000), within(agent.listSessions(), 1000)]);
    await control.called('load');
    agent.abort();
    for (const outcome of await outcomes) {
      assert.ok(outcome.settled);
      assert.equal(outcome.error?.code, 'FX_AGENT_CLOSED', String(outcome.error));
    }
    assert.equal(await agent.exited, 130);
  });

  test('abort with a working store still stores the cancelled turn (nothing reported)', async () => {
    const inner = memorySessionStore();
    const events = [];
    const net = fakeFetch([{ stall: true, chunks: ['data: {"type":"text-delta","delta":"part"}\n\n'] }]);
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore: inner, onEvent: (e) => events.push(e) });
    const session = await agent.createSession();
    const turn = session.prompt('interrupt me');
    await net.untilStalled();
    agent.abort();
    assert.equal((await turn.result).stopReason, 'cancelled');
    const [stored] = (await readSession((await inner.load(session.id)).bytes)).turns;
    assert.equal(stored.kind, 'interrupted');
    assert.equal(events.filter((e) => e.type === 'session.unsaved').length, 0);
  });
});

describe('close()', () => {
  /** An agent whose store can be made to fail, with one scripted answer and its events. */
  async function failingStoreAgent() {
    const inner = memorySessionStore();
    const control = controllableStore(inner);
    const events = [];
    const agent = await createFxAgent({
      fetch: fakeFetch([{ events: textEvents('answer') }]).fetch,
      env,
      sessionStore: control.store,
      onEvent: (e) => events.push(e),
    });
    return { inner, control, events, agent, session: await agent.createSession() };
  }

  test('retries a commit that failed earlier: the answered turn is stored', async () => {
    const { inner, control, events, agent, session } = await failingStoreAgent();
    control.fail.commit = new Error('disk full');
    await assert.rejects(session.prompt('save me later').result, (e) => e.code === 'FX_SESSION_STORE_FAILED');
    control.fail.commit = null;
    assert.equal(await agent.close(), 0);
    assert.deepEqual(await userTexts(inner, session.id), ['save me later']);
    assert.equal(events.filter((e) => e.type === 'session.unsaved').length, 0);
  });

  test('reports a commit that still fails at close, with the bytes', async () => {
    const { control, events, agent, session } = await failingStoreAgent();
    control.fail.commit = new Error('disk full');
    await assert.rejects(session.prompt('lost?').result);
    assert.equal(await agent.close(), 0);
    const [unsaved] = events.filter((e) => e.type === 'session.unsaved');
    assert.equal(unsaved?.sessionId, session.id);
    assert.equal(unsaved.turns, 1);
    assert.equal(unsaved.code, 'FX_SESSION_STORE_FAILED');
    assert.match(unsaved.error, /disk full/);
    assert.deepEqual((await readSession(unsaved.bytes)).turns.map((t) => t.user.text), ['lost?']);
  });

  test('replacing the active session saves what it had not stored', async () => {
    const inner = memorySessionStore();
    const control = controllableStore(inner);
    const agent = await createFxAgent({ fetch: fakeFetch([{ events: textEvents('answer') }]).fetch, env, sessionStore: control.store });
    const first = await agent.createSession();
    control.fail.commit = new Error('flaky');
    await assert.rejects(first.prompt('first session').result);
    control.fail.commit = null;
    await agent.createSession();
    assert.deepEqual(await userTexts(inner, first.id), ['first session']);
    await agent.close();
  });
});
