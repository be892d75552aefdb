// The config store through createFxTerminal on @xterm/headless: `config.changed` reports only
// what the configStore kept, for every option the terminal persists (`model`, `mode`) and every
// way it is set; a failing `set` is `config.persist_error` alone.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { memoryConfigStore } from '../../pkg/index.js';
import { CATALOG, delay, env, fakeFetch } from './agent-support.mjs';
import { startTerminal, until } from './terminal-support.mjs';

describe('config.changed on the terminal says what the configStore kept', () => {
  const failing = () => {
    const inner = memoryConfigStore();
    return {
      get: (id) => inner.get(id),
      set: () => {
        throw new Error('disk full');
      },
    };
  };
  const catalog = { object: 'list', data: [...CATALOG.data, { id: 'test/beta-model', type: 'language', tags: ['tool-use'] }] };

  // Every option the terminal persists, and every way it is set.
  const cases = [
    ['model', '/model', (runtime) => runtime.write('/model test/beta-model\r'), 'test/beta-model'],
    ['mode', '/permissions', (runtime) => runtime.write('/permissions auto\r'), 'code'],
    ['mode', 'Shift+Tab', (runtime) => runtime.write('\x1b[Z'), 'code'],
    ['mode', 'setMode', (runtime) => runtime.setMode('code'), 'code'],
  ];
  for (const [configId, how, change, value] of cases) {
    test(`${configId} by ${how}: a failing set is config.persist_error alone; a working one is config.changed`, async () => {
      const bad = await startTerminal({ fetch: fakeFetch([], { catalog }).fetch, env, configStore: failing() });
      await change(bad.runtime);
      await until(bad.term, () => bad.events.some((e) => e.type === 'config.persist_error'), { what: 'config.persist_error' });
      // The value is applied for this run all the same.
      await until(bad.term, (t) => (configId === 'mode' ? /^auto · /m : /^ask · beta-model$/m).test(t.trimEnd().split('\n').at(-1)), {
        what: 'the value in the footer',
      });
      await delay(20);
      const persist = bad.events.filter((e) => e.type === 'config.persist_error');
      assert.deepEqual(
        persist.map((e) => [e.configId, /disk full/.test(e.error)]),
        [[configId, true]],
      );
      assert.deepEqual(bad.events.filter((e) => e.type === 'config.changed'), []);
      bad.runtime.abort();

      const configStore = memoryConfigStore();
      const good = await startTerminal({ fetch: fakeFetch([], { catalog }).fetch, env, configStore });
      await change(good.runtime);
      await until(good.term, () => good.events.some((e) => e.type === 'config.changed'), { what: 'config.changed' });
      const [changed] = good.events.filter((e) => e.type === 'config.changed');
      assert.equal(changed.configId, configId);
      assert.equal(changed.value, value);
      assert.equal(await configStore.get(configId), value);
      assert.ok(!good.events.some((e) => e.type === 'config.persist_error'));
      good.runtime.abort();
    });
  }

  test('a configStore without set keeps nothing: no config.changed', async () => {
    const { term, runtime, events } = await startTerminal({ fetch: fakeFetch([]).fetch, env, configStore: { get: () => null } });
    runtime.write('/permissions auto\r');
    await until(term, (t) => /^auto · /m.test(t.trimEnd().split('\n').at(-1)), { what: 'auto in the footer' });
    await delay(20);
    assert.ok(!events.some((e) => e.type === 'config.changed' || e.type === 'config.persist_error'));
    runtime.abort();
  });
});
