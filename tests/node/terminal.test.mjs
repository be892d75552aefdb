// createFxTerminal through @xterm/headless against a fake fetch: the screen a user sees.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  createFxTerminal,
  encodeXtermKeyEvent,
  memoryConfigStore,
  memoryPromptHistoryStore,
  memorySessionStore,
  xtermAdapter,
} from '../../pkg/index.js';
import { env, fakeFetch, fakeWorkspace, textEvents, toolEvents } from './agent-support.mjs';
import { contains, headless, screen, startTerminal, until } from './terminal-support.mjs';

const chunks4 = (text) => text.match(/[\s\S]{1,4}/gu);

describe('createFxTerminal', () => {
  test('shows the welcome and the status line, and exits on /exit', async () => {
    const net = fakeFetch([]);
    const { term, runtime, events } = await startTerminal({ fetch: net.fetch, env });
    const text = screen(term);
    assert.match(text, /𝒇x/);
    assert.match(text, /Run \/help for commands/);
    assert.match(text, /^ask · kimi-k3$/m);
    assert.equal(net.calls.length, 0, 'no request before any input');
    runtime.write('/exit\r');
    assert.equal(await runtime.exited, 0);
    assert.equal(events.filter((e) => e.type === 'runtime.exit').length, 1);
    assert.throws(() => runtime.write('x'), /stdin is closed/);
  });

  test('requires a terminal', async () => {
    await assert.rejects(createFxTerminal({}), { name: 'TypeError', message: 'terminal is required' });
  });

  test('typing and editing echo in the composer', async () => {
    const { term, runtime } = await startTerminal({ fetch: fakeFetch([]).fetch, env });
    runtime.write('hello wrld');
    runtime.write('\x1b[D\x1b[D\x1b[Do');
    await contains(term, '┃ hello world');
    runtime.write('\x17');
    await until(term, (t) => t.includes('┃ hello ') && !t.includes('world'));
    runtime.abort();
    assert.equal(await runtime.exited, 130);
  });

  test('streams a markdown table split across 4-character deltas', async () => {
    const reply = 'Sizes:\n\n| Name | Size |\n|------|-----:|\n| alpha | 12 |\n| beta | 3 |\n\nAll **done**.\n';
    const net = fakeFetch([{ events: textEvents(...chunks4(reply)) }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env });
    runtime.write('table please\r');
    const text = await contains(term, 'All done.');
    assert.match(text, /┃ table please/);
    assert.match(text, /│ alpha/);
    assert.doesNotMatch(text, /\|------\|/);
    runtime.abort();
  });

  test('two turns with tool calls: both are shown', async () => {
    const net = fakeFetch([
      { events: toolEvents('Looking.', [['c1', 'ls']]) },
      { events: textEvents('Found it.') },
      { events: toolEvents('', [['c2', 'pwd']]) },
      { events: textEvents('In the root.') },
    ]);
    const workspace = fakeWorkspace();
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, workspace }, { rows: 40 });
    runtime.write('list\r');
    await contains(term, 'Found it.');
    runtime.write('where\r');
    const text = await contains(term, 'In the root.');
    assert.match(text, /Ran ls · exit 0/);
    assert.match(text, /Ran pwd · exit 0/);
    runtime.abort();
  });

  test('approval: allow once, allow always, deny with a note', async () => {
    const net = fakeFetch([
      { events: toolEvents('', [['c1', 'make']]) },
      { events: textEvents('built') },
      { events: toolEvents('', [['c2', 'make test']]) },
      { events: textEvents('tested') },
      { events: toolEvents('', [['c3', 'make test']]) },
      { events: textEvents('tested twice') },
      { events: toolEvents('', [['c4', 'rm -rf /']]) },
      { events: textEvents('refused') },
    ]);
    const workspace = fakeWorkspace({ permission: 'prompt' });
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, workspace }, { rows: 30 });
    runtime.write('build\r');
    await contains(term, 'Permission needed');
    await contains(term, '$ make');
    runtime.write('1');
    await contains(term, 'built');
    runtime.write('test\r');
    await contains(term, '$ make test');
    runtime.write('2');
    await contains(term, 'tested');
    runtime.write('test again\r');
    // The reply's words, not the prompt's (which is on screen at once).
    await contains(term, 'tested twice');
    assert.deepEqual(workspace.calls.map((c) => c.command), ['make', 'make test', 'make test']);
    runtime.write('wipe\r');
    await contains(term, '$ rm -rf /');
    // Down twice to "No", Tab for a note to the model, Enter denies with it.
    runtime.write('\x1b[B\x1b[B\t');
    await contains(term, '3. No, and tell fx what to do differently:');
    runtime.write('please do not');
    runtime.write('\r');
    await contains(term, 'refused');
    assert.equal(workspace.calls.length, 3);
    assert.match(JSON.stringify(net.chats().at(-1).body), /please do not/);
    runtime.abort();
  });

  test('Ctrl+C in the approval panel denies the command without ending the turn', async () => {
    const net = fakeFetch([{ events: toolEvents('', [['c1', 'shutdown now']]) }, { events: textEvents('not run') }]);
    const workspace = fakeWorkspace({ permission: 'prompt' });
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, workspace }, { rows: 30 });
    runtime.write('stop it\r');
    await contains(term, '$ shutdown now');
    runtime.write('\x03');
    const text = await contains(term, 'not run');
    assert.match(text, /Denied shutdown now/);
    assert.equal(workspace.calls.length, 0);
    runtime.abort();
  });

  test('Ctrl+C cancels a streaming turn; Esc cancels a running command', async () => {
    const net = fakeFetch([
      { stall: true, chunks: ['data: {"type":"text-delta","id":"t","delta":"partial\\n"}\n\n'] },
      { events: toolEvents('', [['c1', 'sleep 60']]) },
      { events: textEvents('stopped') },
    ]);
    let release;
    const workspace = fakeWorkspace({
      run: ({ signal }) =>
        new Promise((_, reject) => {
          release = reject;
          signal.addEventListener('abort', () => reject(new DOMException('stop', 'AbortError')));
        }),
    });
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env, workspace });
    runtime.write('stream\r');
    await contains(term, 'partial');
    runtime.write('\x03');
    await contains(term, 'cancelled');
    assert.ok(net.aborted.includes(net.stalled), 'the stalled request was aborted');
    runtime.write('run it\r');
    await contains(term, 'Running sleep 60');
    runtime.write('\x1b');
    await contains(term, 'System: cancelled', { timeout: 2000 });
    assert.ok(release);
    runtime.abort();
  });

  test('prompts typed during a turn are queued and sent in order', async () => {
    const net = fakeFetch([{ stall: true, chunks: [] }, { events: textEvents('second done') }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env });
    runtime.write('first\r');
    await net.untilStalled();
    runtime.write('second\r');
    await contains(term, 'queued 1');
    // Cancelling pauses the queue; Enter sends it.
    runtime.write('\x03');
    await contains(term, 'paused');
    runtime.write('\r');
    await contains(term, 'second done');
    assert.equal(net.chats().length, 2);
    runtime.abort();
  });

  test('history survives across two runtimes', async () => {
    const store = memoryPromptHistoryStore();
    const net = fakeFetch([{ events: textEvents('ok') }]);
    const first = await startTerminal({ fetch: net.fetch, env, promptHistoryStore: store });
    first.runtime.write('remember this\r');
    await contains(first.term, 'ok');
    first.runtime.write('/exit\r');
    await first.runtime.exited;
    const second = await startTerminal({ fetch: net.fetch, env, promptHistoryStore: store });
    assert.ok(second.events.some((e) => e.type === 'history.restore' && e.count === 2));
    second.runtime.write('\x1b[A');
    await contains(second.term, '┃ /exit');
    second.runtime.write('\x10');
    await contains(second.term, '┃ remember this');
    second.runtime.abort();
  });

  test('config is restored at start and persisted by /model and /permissions', async () => {
    const configStore = memoryConfigStore({ model: 'test/alpha-model' });
    const catalog = { object: 'list', data: [{ id: 'test/beta-model', type: 'language', tags: ['tool-use'] }] };
    const { term, runtime, events } = await startTerminal({ fetch: fakeFetch([], { catalog }).fetch, env, configStore });
    await until(term, (t) => /^ask · alpha-model$/m.test(t));
    assert.ok(events.some((e) => e.type === 'config.restore' && e.configId === 'model' && e.value === 'test/alpha-model'));
    runtime.write('/permissions auto\r');
    await until(term, (t) => /^auto · alpha-model$/m.test(t));
    runtime.write('/model test/beta-model\r');
    await contains(term, 'Switched to test/beta-model');
    assert.equal(await configStore.get('mode'), 'code');
    assert.equal(await configStore.get('model'), 'test/beta-model');
    assert.ok(events.some((e) => e.type === 'config.changed' && e.configId === 'mode' && e.value === 'code' && e.source === 'terminal'));
    runtime.abort();
  });

  test('--resume last replays the transcript with no request; /resume opens a picker', async () => {
    const sessionStore = memorySessionStore();
    const net = fakeFetch([{ events: textEvents('The answer is 42.') }]);
    const first = await startTerminal({ fetch: net.fetch, env, sessionStore });
    first.runtime.write('what is it\r');
    await contains(first.term, 'The answer is 42.');
    const calls = net.calls.length;
    const second = await startTerminal({ fetch: net.fetch, env, sessionStore, args: ['--resume', 'last'] });
    const text = screen(second.term);
    assert.match(text, /┃ what is it/);
    assert.match(text, /The answer is 42\./);
    assert.equal(net.calls.length, calls);
    second.runtime.write('/resume\r');
    await contains(second.term, 'Resume a session');
    await contains(second.term, 'what is it');
    second.runtime.write('\x1b');
    await contains(second.term, 'Run /help', { timeout: 500 }).catch(() => {});
    first.runtime.abort();
    second.runtime.abort();
  });

  test('/new mid-turn aborts it; the next request carries no history', async () => {
    const net = fakeFetch([{ events: textEvents('one') }, { hang: true }, { events: textEvents('fresh') }]);
    const { term, runtime } = await startTerminal({ fetch: net.fetch, env });
    runtime.write('first\r');
    await contains(term, 'one');
    runtime.write('second\r');
    await net.untilStalled();
    runtime.write('/new\r');
    runtime.write('third\r');
    await contains(term, 'fresh');
    const users = net.chats().at(-1).body.prompt.filter((m) => m.role === 'user');
    assert.equal(users.length, 1);
    assert.ok(net.aborted.includes(net.stalled), 'the hung request was aborted');
    runtime.abort();
  });

  test('resize re-wraps the composer; 40 and 200 columns', async () => {
    const term = headless(40, 24);
    const { runtime, events } = await startTerminal({ fetch: fakeFetch([]).fetch, env, term });
    runtime.write('the quick brown fox jumps over the lazy dog again and again');
    await contains(term, '┃ lazy dog again and again');
    // A burst of resizes (a dragged window) is applied once, 100 ms after the last.
    const sizesBefore = events.filter((e) => e.type === 'terminal.size').length;
    for (const cols of [60, 80, 120, 160, 200]) term.resize(cols, 30);
    assert.equal(events.filter((e) => e.type === 'terminal.resize').length, 5);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(events.filter((e) => e.type === 'terminal.size').length, sizesBefore, 'not applied yet');
    await contains(term, '┃ the quick brown fox jumps over the lazy dog again and again');
    const applied = events.filter((e) => e.type === 'terminal.size').slice(sizesBefore);
    assert.deepEqual(applied.map(({ cols, rows }) => [cols, rows]), [[200, 30]]);
    assert.ok(events.some((e) => e.type === 'terminal.resize' && e.cols === 200 && e.rows === 30));
    runtime.abort();
  });

  test('cleanup happens exactly once on every exit path; abort() gives 130', async () => {
    let unsubscribed = { data: 0, key: 0, resize: 0 };
    const term = headless();
    const base = xtermAdapter(term);
    const adapter = {
      ...base,
      write: base.write,
      cols: 80,
      rows: 24,
      onData: (cb) => {
        const off = base.onData(cb);
        return () => {
          unsubscribed.data += 1;
          off();
        };
      },
      onKeyData: (cb) => {
        const off = base.onKeyData(cb);
        return () => {
          unsubscribed.key += 1;
          off();
        };
      },
      onResize: (cb) => {
        const off = base.onResize(cb);
        return () => {
          unsubscribed.resize += 1;
          off();
        };
      },
    };
    const { runtime, events } = await startTerminal({ fetch: fakeFetch([]).fetch, env, term, adapter });
    runtime.abort();
    runtime.abort();
    assert.equal(await runtime.exited, 130);
    assert.deepEqual(unsubscribed, { data: 1, key: 1, resize: 1 });
    assert.equal(events.filter((e) => e.type === 'runtime.exit').length, 1);
    unsubscribed = { data: 0, key: 0, resize: 0 };
    const second = await startTerminal({ fetch: fakeFetch([]).fetch, env, term: headless(), adapter });
    second.runtime.write('\x04');
    assert.equal(await second.runtime.exited, 0);
    assert.deepEqual(unsubscribed, { data: 1, key: 1, resize: 1 });
  });
});

describe('xterm glue', () => {
  test('encodeXtermKeyEvent follows the table', () => {
    const key = (k, mods = {}) => encodeXtermKeyEvent({ type: 'keydown', key: k, ...mods });
    assert.equal(key('Enter', { shiftKey: true }), '\x1b[13;2u');
    assert.equal(key('Backspace', { metaKey: true }), '\x1b[127;9u');
    assert.equal(key('Backspace', { metaKey: true, shiftKey: true }), '\x1b[127;10u');
    assert.equal(key('ArrowUp', { metaKey: true }), '\x1b[1;9A');
    assert.equal(key('ArrowLeft', { metaKey: true, shiftKey: true }), '\x1b[1;10D');
    assert.equal(key('Enter', { metaKey: true }), null);
    assert.equal(key('a'), null);
    assert.equal(key('Enter', { shiftKey: true, ctrlKey: true }), null);
    assert.equal(encodeXtermKeyEvent({ type: 'keyup', key: 'Enter', shiftKey: true }), null);
  });

  test('xtermAdapter: Esc then Tab (or Shift+Tab) is left to the browser; any other key in between keeps Tab', () => {
    // A stand-in for a browser xterm.js: only the key handler matters here.
    let handler = null;
    const term = { write() {}, onData: () => ({ dispose() {} }), onResize: () => ({ dispose() {} }), attachCustomKeyEventHandler: (fn) => (handler = fn) };
    const adapter = xtermAdapter(term);
    assert.equal(adapter.escThenTabLeaves, true);
    const down = (key, mods = {}) => handler({ type: 'keydown', key, code: mods.code ?? key, preventDefault() {}, ...mods });
    assert.equal(down('Tab'), true, 'a Tab alone is the terminal’s');
    assert.equal(down('Escape'), true, 'Esc still reaches fx');
    assert.equal(down('Tab'), false, 'Esc then Tab: xterm.js and fx never see it');
    assert.equal(down('Tab'), true, 'only the one Tab after Esc');
    down('Escape');
    assert.equal(down('Shift', { shiftKey: true }), true, 'holding Shift does not count as a key');
    assert.equal(down('Tab', { shiftKey: true }), false, 'Esc then Shift+Tab leaves backwards');
    down('Escape');
    assert.equal(down('Unidentified', { code: 'Tab', shiftKey: true }), false, "WebKitGTK's Shift+Tab (ISO_Left_Tab)");
    down('Escape');
    down('a');
    assert.equal(down('Tab'), true, 'Esc, a, Tab: the Tab is the terminal’s');
    down('Escape');
    assert.equal(down('Tab', { ctrlKey: true }), true, 'Ctrl+Tab is not the way out');
    assert.equal(handler({ type: 'keyup', key: 'Tab', code: 'Tab' }), true);
    // @xterm/headless has no focus to leave: no claim.
    assert.equal(xtermAdapter(headless(20, 4)).escThenTabLeaves, false);
  });

  test('/help lists Esc, then Tab when the terminal adapter lets the focus out, and only then', async () => {
    for (const leaves of [true, false]) {
      const term = headless(100, 40);
      const adapter = { ...xtermAdapter(term), escThenTabLeaves: leaves };
      // The spread copied the getters' values; the size must follow the terminal.
      Object.defineProperties(adapter, { cols: { get: () => term.cols }, rows: { get: () => term.rows } });
      const { runtime } = await startTerminal({ fetch: fakeFetch([]).fetch, env, term, adapter });
      runtime.write('/help\r');
      await contains(term, 'fx help');
      await contains(term, 'Ctrl+Z');
      assert.equal(/Esc, then Tab +leave the terminal/.test(screen(term)), leaves, `escThenTabLeaves: ${leaves}`);
      runtime.abort();
    }
  });

  test('xtermAdapter keeps a UTF-8 character split across writes', async () => {
    const term = headless(20, 4);
    const adapter = xtermAdapter(term);
    const bytes = new TextEncoder().encode('é𝒇x');
    adapter.write(bytes.subarray(0, 1));
    adapter.write(bytes.subarray(1, 3));
    adapter.write(bytes.subarray(3));
    await new Promise((resolve) => term.write('', resolve));
    assert.equal(screen(term).split('\n')[0], 'é𝒇x');
  });
});
