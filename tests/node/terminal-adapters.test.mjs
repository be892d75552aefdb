// createFxTerminal with adapters that lie or never answer, through @xterm/headless: every store
// call has a deadline (`adapterTimeoutMs`) and never wedges the prompt; a malformed load result
// is refused before the session is used; abort() reports what was not stored; a command
// cancelled mid-run stays in the resumed transcript.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { memoryConfigStore, memoryPromptHistoryStore, memorySessionStore, readSession } from '../../pkg/index.js';
import { commitOnly, env, fakeFetch, fakeWorkspace, stallable, textEvents, toolEvents, trapGuard, within } from './agent-support.mjs';
import { allText, contains, startTerminal, until } from './terminal-support.mjs';

const guard = trapGuard();
after(() => guard.check());

const wide = { cols: 160, rows: 30 };

describe('createFxTerminal: adapters that never answer', () => {
  test('a commit that never settles ends the turn at the deadline, naming sessionStore.commit; the next prompt runs', async () => {
    const inner = memorySessionStore();
    const control = stallable(commitOnly(inner));
    const net = fakeFetch([{ events: textEvents('first answer') }, { events: textEvents('second answer') }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, sessionStore: control.adapter, adapterTimeoutMs: 200 }, wide);
    control.stall('commit');
    runtime.write('first\r');
    await contains(term, 'first answer');
    await until(term, (_, all) => /sessionStore\.commit\(\) did not answer within 200 ms.*FX_ADAPTER_TIMEOUT/.test(all), {
      what: 'the timeout warning',
    });
    control.unstall('commit');
    runtime.write('second\r');
    await contains(term, 'second answer');
    assert.doesNotMatch(allText(term), /FX_PROMPT_IN_PROGRESS/);
    runtime.abort();
  });

  test('configStore.set that never settles: /permissions applies and the next prompt runs', async () => {
    const config = stallable(memoryConfigStore());
    config.stall('set');
    const events = [];
    const net = fakeFetch([{ events: textEvents('answered in auto') }]);
    const { term, runtime } = await startTerminal(
      { fetch: net.fetch, env, configStore: config.adapter, adapterTimeoutMs: 5000, onEvent: (e) => events.push(e) },
      wide,
    );
    runtime.write('/permissions auto\r');
    await until(term, (t) => /^auto · kimi-k3$/m.test(t), { what: 'the mode switch' });
    await config.called('set');
    runtime.write('go\r');
    await contains(term, 'answered in auto', { timeout: 2000 });
    assert.doesNotMatch(allText(term), /FX_PROMPT_IN_PROGRESS/);
    runtime.abort();
  });

  test('promptHistoryStore.load that never settles: interactive after the deadline, with a notice', async () => {
    const history = stallable(memoryPromptHistoryStore());
    history.stall('load');
    const started = Date.now();
    const { term, runtime } = await startTerminal(
      { fetch: fakeFetch([]).fetch, env, promptHistoryStore: history.adapter, adapterTimeoutMs: 200 },
      wide,
    );
    assert.ok(Date.now() - started < 3000);
    await until(term, (_, all) => /promptHistoryStore\.load\(\) did not answer within 200 ms/.test(all), { what: 'the history notice' });
    runtime.abort();
  });

  test('--resume with a load result that has no revision: refused, naming sessionStore.load; nothing written to it', async () => {
    const inner = memorySessionStore();
    const first = await startTerminal({ fetch: fakeFetch([{ events: textEvents('kept') }]).fetch, env, sessionStore: inner }, wide);
    first.runtime.write('remember\r');
    await contains(first.term, 'kept');
    const id = first.runtime.sessionId;
    // The reply is painted as it arrives; the session is in the store once its turn's commit lands.
    const storedTurns = async () => {
      const record = await inner.load(id);
      return record ? (await readSession(record.bytes)).turns.length : 0;
    };
    for (let i = 0; i < 100 && (await storedTurns()) === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    first.runtime.abort();
    const before = (await inner.load(id)).bytes;

    const commits = [];
    const lying = {
      load: async (sid) => ({ bytes: (await inner.load(sid))?.bytes }),
      commit: (...args) => {
        commits.push(args[0]);
        return inner.commit(...args);
      },
      list: () => inner.list(),
      remove: (sid) => inner.remove(sid),
    };
    const { term, runtime } = await startTerminal({ fetch: fakeFetch([]).fetch, env, sessionStore: lying, args: ['--resume', id] }, wide);
    await until(term, (_, all) => /could not resume.*sessionStore\.load\(\).*revision/.test(all), { what: 'the resume error' });
    assert.ok(!commits.includes(id), 'the stored session was not written');
    assert.deepEqual((await inner.load(id)).bytes, before);
    assert.notEqual(runtime.sessionId, id, 'a new session started instead');
    runtime.abort();
  });

  test('abort() with a commit that never settles: exited at once, and the unsaved turn is reported with its bytes once the write missed its deadline', async () => {
    const control = stallable(commitOnly(memorySessionStore()));
    const events = [];
    const net = fakeFetch([{ events: textEvents('answered') }]);
    const { term, runtime } = await startTerminal(
      { fetch: net.fetch, env, sessionStore: control.adapter, adapterTimeoutMs: 1000, onEvent: (e) => events.push(e) },
      wide,
    );
    control.stall('commit');
    runtime.write('keep me\r');
    await contains(term, 'answered');
    await control.called('commit');
    runtime.abort();
    const exited = await within(runtime.exited, 200);
    assert.equal(exited.value, 130);
    // The write may still land until its deadline: the report waits for it.
    await until(term, () => events.some((e) => e.type === 'session.unsaved'), { timeout: 3000, what: 'session.unsaved' });
    const [unsaved] = events.filter((e) => e.type === 'session.unsaved');
    assert.equal(unsaved.turns, 1);
    assert.equal(unsaved.code, 'FX_AGENT_CLOSED');
    assert.deepEqual((await readSession(unsaved.bytes)).turns.map((t) => t.user.text), ['keep me']);
    const count = events.length;
    await control.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(events.length, count, 'a late answer changes nothing');
  });
});

describe('createFxTerminal: a command cancelled mid-run', () => {
  test('the resumed transcript still shows the cancelled command', async () => {
    const sessionStore = memorySessionStore();
    const net = fakeFetch([{ events: toolEvents('Starting it.', [['c1', 'sleep 60']]) }]);
    const workspace = fakeWorkspace({
      run: ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('stop', 'AbortError')))),
    });
    const first = await startTerminal({ fetch: net.fetch, env, workspace, sessionStore }, wide);
    first.runtime.write('run it\r');
    await contains(first.term, 'Running sleep 60');
    first.runtime.write('\x1b');
    await contains(first.term, 'System: cancelled', { timeout: 2000 });
    first.runtime.abort();

    const second = await startTerminal({ fetch: fakeFetch([]).fetch, env, workspace, sessionStore, args: ['--resume', 'last'] }, wide);
    const text = allText(second.term);
    assert.match(text, /┃ run it/);
    assert.match(text, /sleep 60/, 'the cancelled command is in the transcript');
    second.runtime.abort();
  });
});
