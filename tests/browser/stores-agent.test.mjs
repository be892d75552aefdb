// createFxAgent on indexedDbSessionStore in two tabs of Chromium, Firefox and WebKit: turns are
// stored in IndexedDB, a reload opens them again, and when both tabs continue one session the
// second writer's commit conflicts in the store and becomes a fork: both histories survive.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ENGINES, openHarness } from './engines.mjs';

/** In the page: an agent on the IndexedDB store with a fake gateway that echoes the prompt. */
function startAgent(page) {
  return page.evaluate(async () => {
    const fx = await import('/pkg/index.js');
    const encoder = new TextEncoder();
    const fetch = async (url, init = {}) => {
      if ((init.method ?? 'GET') === 'GET') {
        const catalog = { object: 'list', data: [{ id: 'moonshotai/kimi-k3', type: 'language', tags: ['tool-use'] }] };
        return new Response(JSON.stringify(catalog), { status: 200, headers: { 'content-type': 'application/json' } });
      }
      const body = JSON.parse(new TextDecoder().decode(init.body));
      const asked = body.prompt.at(-1).content[0].text;
      const events = [
        { type: 'text-delta', id: 't', delta: `echo: ${asked}` },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 5 }, outputTokens: { total: 2 } } },
      ];
      const sse = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
      return new Response(encoder.encode(sse), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    globalThis.__events = [];
    globalThis.__store = fx.indexedDbSessionStore({ name: 'test.agent' });
    globalThis.__agent = await fx.createFxAgent({
      fetch,
      env: { AI_GATEWAY_API_KEY: 'test-key' },
      sessionStore: globalThis.__store,
      onEvent: (e) => globalThis.__events.push(e),
    });
    return true;
  });
}

const turnsOf = (page, id) =>
  page.evaluate(async (sessionId) => {
    const fx = await import('/pkg/index.js');
    const record = await globalThis.__store.load(sessionId);
    const view = await fx.readSession(record.bytes);
    return view.turns.map((t) => t.user.text);
  }, id);

for (const engine of ENGINES) {
  describe(`the agent on IndexedDB in two ${engine} tabs`, () => {
    let browser;
    let tabB;

    before(async () => {
      browser = await openHarness(engine);
      tabB = await browser.open();
    });

    after(async () => {
      await browser?.close();
    });

    test('two tabs continuing one stored session: a fork, and nothing lost', async () => {
      await startAgent(browser.page);
      await startAgent(tabB);
      const original = await browser.page.evaluate(async () => {
        globalThis.__session = await globalThis.__agent.createSession();
        await globalThis.__session.prompt('first').result;
        return globalThis.__session.id;
      });
      await tabB.evaluate(async (id) => {
        const session = await globalThis.__agent.openSession(id);
        await session.prompt('from tab B').result;
      }, original);
      const after = await browser.page.evaluate(async () => {
        await globalThis.__session.prompt('second').result;
        const forked = globalThis.__events.find((e) => e.type === 'session.forked');
        return { id: globalThis.__session.id, forked: forked && { from: forked.from, to: forked.to } };
      });
      assert.notEqual(after.id, original, 'tab A continues in a new session');
      assert.deepEqual(after.forked, { from: original, to: after.id });
      assert.deepEqual(await turnsOf(browser.page, original), ['first', 'from tab B']);
      assert.deepEqual(await turnsOf(browser.page, after.id), ['first', 'second']);
      const listed = await tabB.evaluate(() => globalThis.__store.list());
      assert.deepEqual(listed.map((s) => s.id).sort(), [original, after.id].sort());
      assert.equal(listed[0].id, after.id, 'the fork is the newest');

      await browser.page.reload();
      await startAgent(browser.page);
      const reopened = await browser.page.evaluate(async (id) => {
        const session = await globalThis.__agent.openSession(id);
        await session.prompt('after reload').result;
        return session.id;
      }, after.id);
      assert.equal(reopened, after.id, 'the reopened session goes on under its id');
      assert.deepEqual(await turnsOf(browser.page, after.id), ['first', 'second', 'after reload']);
    });

    test('the pages logged no errors', async () => {
      assert.deepEqual([...(await browser.page.errors()), ...(await tabB.errors())], []);
    });
  });
}
