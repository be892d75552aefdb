// The permission mode through createFxTerminal's handle (@xterm/headless): `setMode` switches it
// as /permissions does, the footer says `ask` or `auto` as it really is, and a sandboxed
// workspace (which runs every command) is `auto` and refuses `ask`.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { memoryConfigStore } from '../../pkg/index.js';
import { env, fakeFetch, fakeWorkspace, textEvents, toolEvents } from './agent-support.mjs';
import { contains, screen, startTerminal, until } from './terminal-support.mjs';

const statusLine = (term) => screen(term).trimEnd().split('\n').at(-1);

describe('setMode on the terminal', () => {
  test('switches ask ⇄ auto like /permissions; the footer, config store and events follow', async () => {
    const configStore = memoryConfigStore();
    const workspace = fakeWorkspace({ permission: 'prompt' });
    const net = fakeFetch([{ events: toolEvents('', [['c1', 'ls']]) }, { events: textEvents('listed') }]);
    const { term, runtime, events } = await startTerminal({ fetch: net.fetch, env, workspace, configStore }, { rows: 30 });
    assert.match(statusLine(term), /^ask · /);
    await runtime.setMode('code');
    await until(term, (text) => /^auto · /m.test(text.trimEnd().split('\n').at(-1)), { what: 'auto in the footer' });
    await contains(term, 'Permissions: auto · commands run without asking');
    assert.equal(await configStore.get('mode'), 'code');
    assert.ok(events.some((e) => e.type === 'config.changed' && e.configId === 'mode' && e.value === 'code' && e.source === 'sdk'));
    runtime.write('list\r');
    await contains(term, 'listed');
    assert.doesNotMatch(screen(term), /Permission needed/);
    assert.deepEqual(workspace.calls.map((c) => c.command), ['ls']);

    await assert.rejects(runtime.setMode('yolo'), (error) => error.code === 'FX_INVALID_MODE' && /"yolo"/.test(error.message));
    await assert.rejects(runtime.setMode(7), TypeError);
    runtime.abort();
  });

  test('a sandboxed workspace is auto everywhere; ask is refused', async () => {
    const workspace = fakeWorkspace({ permission: 'allow-sandboxed' });
    const { term, runtime } = await startTerminal({ fetch: fakeFetch([]).fetch, env, workspace });
    assert.match(statusLine(term), /^auto · /);
    await assert.rejects(runtime.setMode('ask'), (error) => error.code === 'FX_INVALID_MODE' && /allow-sandboxed/.test(error.message));
    runtime.write('/status\r');
    await contains(term, 'auto: this host runs every command without asking');
    runtime.abort();
  });
});
