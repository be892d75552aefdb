// examples/bots/ end to end in Chromium, served by the dev gateway with its scripted demo model:
// create a bot, send a message with a file, watch the reply stream, reload (the chat is rebuilt
// from stream(0) out of IndexedDB), pins; and createFxbot's IndexedDB store shared by two tabs:
// the same messageId from both runs one turn, another messageId while it runs is 409.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { launchChromium } from './chromium.mjs';

let gateway;
let browser;
let page;
const pageErrors = [];
const chatPosts = [];

before(async () => {
  gateway = await startDevGateway({ demo: true, demoDelayMs: 40 });
  browser = await launchChromium();
  browser.context.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v3/ai/language-model') chatPosts.push(request.url());
  });
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  await page.goto(`${gateway.url}examples/bots/`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'Ready.');
});

after(async () => {
  await browser?.close();
  await gateway?.close();
});

const transcript = () =>
  page.$$eval('#transcript li', (items) => items.map((li) => [li.className, li.textContent.trim()]));

describe('examples/bots', () => {
  test('create a bot, send with a file, the reply streams, and a reload shows the chat', async () => {
    await page.fill('#bot-name', 'Ada');
    await page.click('#create');
    await page.waitForFunction(() => document.getElementById('bot-title').textContent === 'Ada');
    await page.setInputFiles('#files', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('alpha beta') });
    await page.fill('#text', 'What is in my notes?');
    await page.press('#text', 'Enter');
    // Streaming: the reply is there before the turn ends (Stop is enabled while it runs).
    await page.waitForFunction(() => document.querySelector('#transcript li.bot.running')?.textContent.length > 20);
    await page.waitForFunction(() => document.querySelector('#transcript li.bot.done'));
    const before = await transcript();
    assert.equal(before.length, 2);
    assert.equal(before[0][0], 'user');
    assert.match(before[0][1], /What is in my notes\?/);
    assert.match(before[0][1], /notes\.txt/);
    assert.match(before[1][1], /scripted demo model/);
    assert.equal(chatPosts.length, 1);

    await page.reload();
    await page.waitForFunction(() => document.getElementById('bot-title').textContent === 'Ada');
    await page.waitForFunction(() => document.querySelector('#transcript li.bot.done'));
    assert.deepEqual(await transcript(), before, 'the chat is rebuilt from stream(0)');
    assert.equal(chatPosts.length, 1, 'a reload runs nothing');
    await page.screenshot({ path: 'target/bots-example.png' });
  });

  test('pins: three at most', async () => {
    for (const name of ['B', 'C', 'D']) {
      await page.fill('#bot-name', name);
      await page.click('#create');
      await page.waitForFunction((n) => document.getElementById('bot-title').textContent === n, name);
    }
    for (let i = 0; i < 3; i++) {
      await page.locator('#bots li .pin[aria-pressed="false"]').first().click();
      await page.waitForFunction((n) => document.querySelectorAll('#bots .pin[aria-pressed="true"]').length === n, i + 1);
    }
    await page.locator('#bots li .pin[aria-pressed="false"]').first().click();
    await page.waitForFunction(() => /at most 3 bots can be pinned/.test(document.getElementById('status').textContent));
    assert.equal(await page.locator('#bots .pin[aria-pressed="true"]').count(), 3);
    // Pinned bots come first.
    const pressed = await page.$$eval('#bots .pin', (pins) => pins.map((p) => p.getAttribute('aria-pressed')));
    assert.deepEqual(pressed, ['true', 'true', 'true', 'false']);
  });

  test('two tabs on one IndexedDB store: one turn per messageId, 409 for another while it runs', async () => {
    const second = await browser.context.newPage();
    await second.goto(`${gateway.url}examples/bots/`);
    await second.waitForFunction(() => document.getElementById('status').textContent === 'Ready.');
    const open = (p) =>
      p.evaluate(async () => {
        const { createFxbot } = await import('/pkg/fxbot/index.js');
        const chatUrl = new URL('/v3/ai/language-model', location.href).href;
        const options = { env: { FX_GATEWAY_CHAT_URL: chatUrl } };
        globalThis.twoTabs = await createFxbot(options);
        return true;
      });
    await Promise.all([open(page), open(second)]);
    const botId = await page.evaluate(async () => (await globalThis.twoTabs.bots.list())[0].id);
    const posts = chatPosts.length;
    const send = (p, messageId) =>
      p.evaluate(
        async ({ id, messageId: m }) => {
          try {
            return await globalThis.twoTabs.chat.send(id, { text: 'same message', messageId: m });
          } catch (error) {
            return { status: error.status, code: error.code };
          }
        },
        { id: botId, messageId },
      );
    const [a, b] = await Promise.all([send(page, 'shared-1'), send(second, 'shared-1')]);
    assert.equal([a, b].filter((s) => s.duplicate === false).length, 1, JSON.stringify([a, b]));
    assert.equal(a.sessionId, b.sessionId);
    assert.equal(a.turn, b.turn);
    const runner = a.duplicate ? second : page;
    const other = a.duplicate ? page : second;
    assert.deepEqual(await send(other, 'shared-2'), { status: 409, code: 'FXBOT_BUSY' });
    await runner.evaluate(async ({ id, turn }) => {
      for await (const line of globalThis.twoTabs.chat.stream(id, 0)) if (line.type === 'turn_end' && line.turn === turn) break;
    }, { id: botId, turn: a.turn });
    assert.equal(chatPosts.length - posts, 1, 'the gateway saw one request for shared-1');
    const turns = await other.evaluate(async (id) => (await globalThis.twoTabs.chat.turns(id)).map((t) => [t.messageId, t.status]), botId);
    assert.deepEqual(turns.at(-1), ['shared-1', 'done']);
    await second.close();
    assert.deepEqual(pageErrors, []);
  });
});
