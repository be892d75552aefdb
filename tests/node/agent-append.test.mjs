// sessionStore.append through createFxAgent: a store with `append` is handed only what each
// commit adds (flat as the session grows), one without it keeps getting whole commits through
// `commit`; conflicts, bad results, deadlines and lost chunks of an appending store end as the
// same coded errors as commit's, and nothing is lost.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { createFxAgent, memorySessionStore, readSession } from '../../pkg/index.js';
import { commitOnly, env, fakeFetch, stallable, textEvents, trapGuard, within } from './agent-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const userTexts = async (store, id) => (await readSession((await store.load(id)).bytes)).turns.map((t) => t.user.text);

/** `inner` with every write recorded as `[method, bytes handed]`. */
function recording(inner) {
  const writes = [];
  const store = {
    load: (id) => inner.load(id),
    commit(id, bytes, expected) {
      writes.push(['commit', bytes.byteLength]);
      return inner.commit(id, bytes, expected);
    },
    list: () => inner.list(),
    remove: (id) => inner.remove(id),
  };
  if (typeof inner.append === 'function') {
    store.append = (id, bytes, expected) => {
      writes.push(['append', bytes.byteLength]);
      return inner.append(id, bytes, expected);
    };
  }
  return { store, writes, take: () => writes.splice(0) };
}

const replies = (n) => Array.from({ length: n }, () => ({ events: textEvents('The same answer, ', 'every time.') }));

describe('sessionStore.append', () => {
  test('an appending store is handed only the new bytes, and as much at turn 40 as at turn 5', async () => {
    const inner = memorySessionStore();
    const rec = recording(inner);
    const agent = await createFxAgent({ fetch: fakeFetch(replies(40)).fetch, env, sessionStore: rec.store });
    const session = await agent.createSession();
    assert.deepEqual(rec.take(), [], 'a new session is not stored before it has a turn');
    // The first turn stores it whole; each later one appends.
    await session.prompt('step 1').result;
    const created = (await inner.load(session.id)).bytes.byteLength;
    assert.deepEqual(rec.take(), [['commit', created]]);
    const perTurn = [];
    let before = created;
    for (let i = 2; i <= 40; i++) {
      await session.prompt(`step ${i}`).result;
      const writes = rec.take();
      assert.ok(writes.every(([method]) => method === 'append'), JSON.stringify(writes));
      const after = (await inner.load(session.id)).bytes.byteLength;
      const handed = writes.reduce((sum, [, n]) => sum + n, 0);
      assert.equal(handed, after - before, `turn ${i}: the store got exactly the new bytes`);
      perTurn.push(handed);
      before = after;
    }
    const handedAt = (turn) => perTurn[turn - 2];
    assert.ok(handedAt(40) <= 2 * handedAt(5), `turn 40 handed ${handedAt(40)} bytes, turn 5 ${handedAt(5)}`);
    assert.ok(handedAt(40) * 10 < before, 'far less than the whole log');
    assert.equal((await userTexts(inner, session.id)).length, 40);
    await agent.close();

    // The appended record resumes like any other.
    const again = await createFxAgent({ fetch: fakeFetch(replies(1)).fetch, env, sessionStore: inner });
    const resumed = await again.openSession(session.id);
    await resumed.prompt('one more').result;
    assert.equal((await userTexts(inner, session.id)).at(-1), 'one more');
    await again.close();
  });

  test('a store without append keeps working: every commit is whole, through commit', async () => {
    const inner = memorySessionStore();
    const rec = recording(commitOnly(inner));
    assert.equal(rec.store.append, undefined);
    const agent = await createFxAgent({ fetch: fakeFetch(replies(3)).fetch, env, sessionStore: rec.store });
    const session = await agent.createSession();
    for (const text of ['one', 'two', 'three']) await session.prompt(text).result;
    const writes = rec.take();
    assert.ok(writes.every(([method]) => method === 'commit'), JSON.stringify(writes));
    assert.equal(writes.at(-1)[1], (await inner.load(session.id)).bytes.byteLength);
    assert.deepEqual(await userTexts(inner, session.id), ['one', 'two', 'three']);
    await agent.close();
  });

  test('a stale append is FX_SESSION_REVISION_CONFLICT to the core: it forks, nothing is lost', async () => {
    const store = memorySessionStore();
    const net = fakeFetch([{ events: textEvents('one') }, { events: textEvents('tab b') }, { events: textEvents('two') }]);
    const events = [];
    const a = await createFxAgent({ fetch: net.fetch, env, sessionStore: store, onEvent: (e) => events.push(e) });
    const sa = await a.createSession();
    await sa.prompt('first').result;
    const original = sa.id;
    const b = await createFxAgent({ fetch: net.fetch, env, sessionStore: store });
    await (await b.openSession(original)).prompt('from tab b').result;
    await sa.prompt('second').result;
    assert.notEqual(sa.id, original);
    assert.equal(events.filter((e) => e.type === 'session.forked').length, 1);
    assert.deepEqual(await userTexts(store, original), ['first', 'from tab b']);
    assert.deepEqual(await userTexts(store, sa.id), ['first', 'second']);
    await a.close();
    await b.close();
  });

  test('an append with a malformed result fails the turn with FX_SESSION_STORE_FAILED naming sessionStore.append', async () => {
    const inner = memorySessionStore();
    const store = { ...inner, append: () => ({ rev: 'x' }) };
    const agent = await createFxAgent({ fetch: fakeFetch(replies(2)).fetch, env, sessionStore: store });
    const session = await agent.createSession();
    // The first turn stores the session whole (commit); the next appends.
    await session.prompt('stored').result;
    await assert.rejects(session.prompt('hi').result, (error) => {
      assert.equal(error.code, 'FX_SESSION_STORE_FAILED');
      assert.match(error.message, /sessionStore\.append\(\)/);
      return true;
    });
    await agent.close();
  });

  test('an append answered after its deadline: FX_ADAPTER_TIMEOUT, and the late write is ours (no fork)', async () => {
    const inner = memorySessionStore();
    const control = stallable(inner);
    const events = [];
    const agent = await createFxAgent({
      fetch: fakeFetch(replies(3)).fetch,
      env,
      sessionStore: control.adapter,
      adapterTimeoutMs: 150,
      onEvent: (e) => events.push(e),
    });
    const session = await agent.createSession();
    // The first turn stores the session whole (commit); the next appends.
    await session.prompt('zero').result;
    control.stall('append');
    const outcome = await within(session.prompt('first').result, 3000);
    assert.equal(outcome.error?.code, 'FX_ADAPTER_TIMEOUT', String(outcome.error));
    assert.match(outcome.error.message, /sessionStore\.append\(\) did not answer within 150 ms/);
    control.unstall('append');
    await control.release();
    assert.deepEqual(await userTexts(inner, session.id), ['zero', 'first']);
    await session.prompt('second').result;
    assert.deepEqual(await userTexts(inner, session.id), ['zero', 'first', 'second']);
    assert.equal(events.filter((e) => e.type === 'session.forked').length, 0);
    await agent.close();
  });

  test('a store that lost an appended chunk: openSession refuses it (FX_SESSION_INVALID), never a shorter history', async () => {
    const inner = memorySessionStore();
    const chunks = [];
    const store = {
      ...inner,
      commit(id, bytes, expected) {
        chunks.splice(0, chunks.length, bytes.slice());
        return inner.commit(id, bytes, expected);
      },
      append(id, bytes, expected) {
        chunks.push(bytes.slice());
        return inner.append(id, bytes, expected);
      },
    };
    const agent = await createFxAgent({ fetch: fakeFetch(replies(3)).fetch, env, sessionStore: store });
    const session = await agent.createSession();
    for (const text of ['one', 'two', 'three']) await session.prompt(text).result;
    await agent.close();
    // The first turn's commit, then two appends; the one of turn two is lost.
    assert.equal(chunks.length, 3);
    const torn = new Uint8Array(chunks.filter((_, i) => i !== 1).reduce((n, c) => n + c.byteLength, 0));
    let offset = 0;
    for (const chunk of chunks.filter((_, i) => i !== 1)) {
      torn.set(chunk, offset);
      offset += chunk.byteLength;
    }
    const tornStore = { ...inner, load: () => ({ bytes: torn, revision: 'torn' }) };
    const again = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore: tornStore });
    await assert.rejects(again.openSession(session.id), (error) => error.code === 'FX_SESSION_INVALID');
    // A store that detects the loss itself (indexedDbSessionStore checks its chunks) throws,
    // and the core reports the store's failure.
    const detecting = {
      ...inner,
      load() {
        const error = new Error('indexedDbSessionStore: the stored session is damaged (3 of 4 chunks are stored)');
        error.code = 'FX_STORE_FAILED';
        throw error;
      },
    };
    const third = await createFxAgent({ fetch: fakeFetch([]).fetch, env, sessionStore: detecting });
    await assert.rejects(third.openSession(session.id), (error) => {
      assert.equal(error.code, 'FX_SESSION_STORE_FAILED');
      assert.match(error.message, /3 of 4 chunks/);
      return true;
    });
    await again.close();
    await third.close();
  });
});
