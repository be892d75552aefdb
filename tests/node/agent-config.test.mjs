// Session config values the agent refuses (createFxAgent against a fake fetch): an unknown mode,
// a model the catalog does not list (naming the nearest ids it does), an unknown config option.
// Each rejects with a coded FxError, changes nothing, persists nothing and emits nothing.

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

  test("setModel('no/such') rejects with FX_INVALID_MODEL naming the nearest catalog ids", async () => {
    const { agent, session, events, configStore } = await open();
    await assert.rejects(session.setModel('gpt-nonexistent'), (error) => {
      assert.equal(error.code, 'FX_INVALID_MODEL');
      assert.match(error.message, /"gpt-nonexistent"/);
      assert.match(error.message, /nearest are .*openai\/gpt-5/);
      assert.doesNotMatch(error.message, /claude/, 'only near ids are named');
      return true;
    });
    await assert.rejects(session.setModel('no/such'), { code: 'FX_INVALID_MODEL' });
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'moonshotai/kimi-k3');
    assert.equal(await configStore.get('model'), null);
    assert.deepEqual(changed(events), []);
    // A catalog id is accepted.
    await session.setModel('openai/gpt-5');
    assert.equal(session.configOptions.find((o) => o.id === 'model').currentValue, 'openai/gpt-5');
    await agent.close();
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
