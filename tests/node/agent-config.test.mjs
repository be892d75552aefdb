// Session config values the agent refuses (createFxAgent against a fake fetch): an unknown mode,
// a malformed model id, an unknown config option. Each rejects with a coded FxError, changes
// nothing, persists nothing and emits nothing. A well-formed model the catalog does not list is
// taken, with a `config.model_unlisted` warning naming the nearest ids it does.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createFxAgent, memoryConfigStore } from '../../pkg/index.js';
import { env, fakeFetch, WIDE_CATALOG } from './agent-support.mjs';


async function open(catalog = WIDE_CATALOG) {
  const events = [];
  const configStore = memoryConfigStore();
  const agent = await createFxAgent({
    fetch: fakeFetch([], { catalog }).fetch,
    env,
    configStore,
    onEvent: (e) => events.push(e),
  });
  const session = await agent.createSession();
  return { agent, session, events, configStore };
}

const changed = (events) => events.filter((e) => e.type === 'config.changed');

describe('refused config values', () => {
  test("setMode('yolo') rejects with FX_INVALID_MODE and the mode stays", async () => {
    const { agent, session, events, configStore } = await open();
    await assert.rejects(session.setMode('yolo'), (error) => {
      assert.equal(error.name, 'FxError');
      assert.equal(error.code, 'FX_INVALID_MODE');
      assert.match(error.message, /"yolo"/);
      assert.match(error.message, /"ask".*"code"/);
      return true;
    });
    assert.equal(session.modes.currentModeId, 'ask');
    assert.equal(session.configOptions.find((o) => o.id === 'mode').currentValue, 'ask');
    assert.equal(await configStore.get('mode'), null);
    assert.deepEqual(changed(events), []);
    // A known mode still works.
    await session.setMode('code');
    assert.equal(session.modes.currentModeId, 'code');
    await agent.close();
  });

  test('setModel with an id the catalog does not list takes it, warning with the nearest catalog ids', async () => {
    const { agent, session, events, configStore } = await open();
    const options = await session.setModel('gpt-nonexistent');
    const model = options.find((o) => o.id === 'model');
    assert.equal(model.currentValue, 'gpt-nonexistent');
    assert.ok(model.options.some((o) => o.value === 'gpt-nonexistent'), 'the current model is appended to the options');
    assert.ok(model.options.some((o) => o.value === 'openai/gpt-5'), 'the catalog ids stay listed');
    assert.equal(await configStore.get('model'), 'gpt-nonexistent');
    const [warning] = events.filter((e) => e.type === 'config.model_unlisted');
    assert.equal(warning?.model, 'gpt-nonexistent');
    assert.equal(warning.source, 'sdk');
    assert.ok(warning.nearest.includes('openai/gpt-5'), JSON.stringify(warning.nearest));
    assert.ok(!warning.nearest.some((id) => id.includes('claude')), 'only near ids are named');
    assert.deepEqual(changed(events).map((e) => e.value), ['gpt-nonexistent']);
    // A catalog id is taken without a warning.
    await session.setModel('openai/gpt-5');
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'openai/gpt-5');
    assert.equal(events.filter((e) => e.type === 'config.model_unlisted').length, 1);
    await agent.close();
  });

  test('a malformed model id still rejects with FX_INVALID_MODEL and changes nothing', async () => {
    const { agent, session, events, configStore } = await open();
    for (const bad of ['', ' openai/gpt-5', 'bad\nmodel', 'x'.repeat(1025)]) {
      await assert.rejects(session.setModel(bad), { code: 'FX_INVALID_MODEL' }, JSON.stringify(bad));
    }
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'moonshotai/kimi-k3');
    assert.equal(await configStore.get('model'), null);
    assert.deepEqual(changed(events), []);
    assert.deepEqual(events.filter((e) => e.type === 'config.model_unlisted'), []);
    await agent.close();
  });

  test('a restored model the catalog does not list is taken, with the same warning', async () => {
    const events = [];
    const configStore = memoryConfigStore({ model: 'openai/gpt-5-nano' });
    const agent = await createFxAgent({ fetch: fakeFetch([], { catalog: WIDE_CATALOG }).fetch, env, configStore, onEvent: (e) => events.push(e) });
    // A restore does not fetch the catalog (a plain turn costs one request): with none loaded
    // the value is taken with nothing to compare it with.
    const first = await agent.createSession();
    assert.equal(first.configOptions.find((o) => o.id === 'model').currentValue, 'openai/gpt-5-nano');
    assert.deepEqual(events.filter((e) => e.type === 'config.model_unlisted'), []);
    await first.loadConfigOptions();
    // With the catalog loaded, the next restore is checked against it.
    const session = await agent.createSession();
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'openai/gpt-5-nano');
    const [warning] = events.filter((e) => e.type === 'config.model_unlisted');
    assert.equal(warning?.model, 'openai/gpt-5-nano');
    assert.equal(warning.source, 'restore');
    assert.ok(warning.nearest.includes('openai/gpt-5-mini'), JSON.stringify(warning.nearest));
    assert.deepEqual(events.filter((e) => e.type === 'config.restore_error'), []);
    await agent.close();

    // A malformed stored value is refused as before.
    const badEvents = [];
    const bad = await createFxAgent({ fetch: fakeFetch([], { catalog: WIDE_CATALOG }).fetch, env, configStore: memoryConfigStore({ model: ' spaced ' }), onEvent: (e) => badEvents.push(e) });
    const s2 = await bad.createSession();
    assert.equal(s2.configOptions.find((o) => o.id === 'model').currentValue, 'moonshotai/kimi-k3');
    assert.equal(badEvents.filter((e) => e.type === 'config.restore_error').length, 1);
    assert.deepEqual(badEvents.filter((e) => e.type === 'config.model_unlisted'), []);
    await bad.close();
  });

  test('without a catalog any well-formed model id is taken (nothing to check against)', async () => {
    const { agent, session } = await open(null);
    await session.setModel('some/new-model');
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'some/new-model');
    await assert.rejects(session.setModel('bad\nmodel'), { code: 'FX_INVALID_MODEL' });
    await agent.close();
  });

  test("setConfigOption('nonsense', 'x') rejects with FX_INVALID_CONFIG_OPTION", async () => {
    const { agent, session, events } = await open();
    const before = session.configOptions;
    await assert.rejects(session.setConfigOption('nonsense', 'x'), (error) => {
      assert.equal(error.code, 'FX_INVALID_CONFIG_OPTION');
      assert.match(error.message, /"nonsense"/);
      return true;
    });
    await assert.rejects(session.setConfigOption('provider', 'codex'), { code: 'FX_INVALID_CONFIG_OPTION' });
    assert.deepEqual(session.configOptions, before);
    assert.deepEqual(changed(events), []);
    // setConfig stops at the first refused entry.
    await assert.rejects(session.setConfig({ mode: 'code', bogus: 'x', model: 'openai/gpt-5' }), {
      code: 'FX_INVALID_CONFIG_OPTION',
    });
    assert.equal(session.modes.currentModeId, 'code');
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'moonshotai/kimi-k3');
    await agent.close();
  });
});
