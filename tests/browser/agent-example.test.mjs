// examples/agent/ end to end in Chromium against a scripted loopback gateway (a tiny HTTP server
// in this test, with CORS): connect, a streamed answer, a tool call approved in the confirm
// dialog, the model select, and cancel.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';

import { CATALOG, sse, textEvents, toolEvents } from '../node/agent-support.mjs';
import { openBrowser } from './chromium.mjs';

let browser;
let gateway;
/** How the confirm dialog (the example's permission prompt) is answered. */
let confirmAnswer = 'accept';
const replies = [];
const requests = [];

function startGateway() {
  const server = createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': '*',
      'access-control-allow-methods': 'GET, POST',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(CATALOG));
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(body) });
      const reply = replies.shift() ?? { events: textEvents('(no script)') };
      res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
      if (reply.stall) {
        res.write(sse(reply.events, { done: false }));
        return; // left open until the client goes away
      }
      res.end(sse(reply.events));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

before(async () => {
  gateway = await startGateway();
  browser = await openBrowser();
  browser.page.on('dialog', (dialog) => (confirmAnswer === 'accept' ? dialog.accept() : dialog.dismiss()));
  const chatUrl = `http://127.0.0.1:${gateway.address().port}/v3/ai/language-model`;
  await browser.page.goto(`${browser.url}examples/agent/?gateway=${encodeURIComponent(chatUrl)}`);
  await browser.page.click('#connect');
  await browser.page.waitForFunction(() => /^Connected/.test(document.getElementById('status').textContent));
});

after(async () => {
  await browser?.close();
  gateway?.closeAllConnections();
  await new Promise((resolve) => gateway?.close(resolve) ?? resolve());
});

const transcript = () =>
  browser.page.$$eval('#transcript li', (items) => items.map((li) => [li.className, li.textContent.trim()]));

async function send(text) {
  await browser.page.fill('#prompt', text);
  await browser.page.press('#prompt', 'Enter');
}

describe('examples/agent', () => {
  test('the selects show the catalog and the modes', async () => {
    // The catalog is fetched for the menu after the session started (a turn does not wait).
    await browser.page.waitForFunction(() => [...document.querySelectorAll('#model option')].some((o) => o.value === 'sdk/catalog-alpha'));
    const models = await browser.page.$$eval('#model option', (o) => o.map((x) => x.value));
    assert.ok(models.includes('sdk/catalog-alpha'));
    const modes = await browser.page.$$eval('#mode option', (o) => o.map((x) => [x.value, x.textContent]));
    assert.deepEqual(modes.sort(), [['ask', 'ask'], ['code', 'auto']], 'shown in the words the terminal uses');
  });

  test('a streamed answer, then a tool call approved in the dialog', async () => {
    replies.push({ events: textEvents('Hello ', 'there.') });
    await send('hi');
    await browser.page.waitForFunction(() => !document.getElementById('send').disabled);
    replies.push({ events: toolEvents('Let me look.', [['t1', 'ls']]) }, { events: textEvents('Two files.') });
    await send('what is here?');
    await browser.page.waitForFunction(() => document.querySelectorAll('#transcript li').length >= 6);
    await browser.page.waitForFunction(() => !document.getElementById('send').disabled);
    const items = await transcript();
    assert.deepEqual(items.map(([c]) => c), ['user', 'assistant', 'user', 'assistant', 'tool completed', 'assistant']);
    assert.equal(items[1][1], 'Hello there.');
    assert.match(items[4][1], /\$ ls/);
    assert.equal(items[5][1], 'Two files.');
    const tool = requests.at(-1).body.prompt.find((m) => m.role === 'tool');
    assert.match(tool.content[0].output.value, /README\.md/);
    assert.equal(requests.at(-1).headers.authorization, undefined, 'no key in the page');
  });

  test('the model select changes the model of the next request', async () => {
    await browser.page.selectOption('#model', 'test/feature-model');
    await browser.page.waitForFunction(() => document.getElementById('model').value === 'test/feature-model');
    replies.push({ events: textEvents('ok') });
    await send('again');
    await browser.page.waitForFunction(() => !document.getElementById('send').disabled);
    assert.equal(requests.at(-1).headers['ai-language-model-id'], 'test/feature-model');
  });

  test('cancel stops a running answer', async () => {
    replies.push({ stall: true, events: [{ type: 'text-delta', delta: 'A long' }] });
    await send('write an essay');
    await browser.page.waitForFunction(() => !document.getElementById('cancel').disabled);
    await browser.page.waitForFunction(() => /A long/.test(document.getElementById('transcript').textContent));
    await browser.page.click('#cancel');
    await browser.page.waitForFunction(() => /Stopped: cancelled/.test(document.getElementById('transcript').textContent));
  });

  test('a reply is rendered as Markdown, safely (no markup from the model)', async () => {
    replies.push({
      events: textEvents('Here:\n\n- **one** item\n- `two`\n\n```\nconst x = "<b>not bold</b>";\n```\n\n<img src=x onerror=alert(1)> and [a link](javascript:alert(1)).\n'),
    });
    await send('markdown please');
    await browser.page.waitForFunction(() => !document.getElementById('send').disabled);
    const answer = await browser.page.$$eval('#transcript li.assistant', (items) => {
      const li = items.at(-1);
      return {
        strong: li.querySelector('li strong')?.textContent,
        code: li.querySelector('li code')?.textContent,
        pre: li.querySelector('pre code')?.textContent,
        tags: [...li.querySelectorAll('*')].map((n) => n.tagName.toLowerCase()),
        text: li.textContent,
        links: [...li.querySelectorAll('a')].length,
      };
    });
    assert.equal(answer.strong, 'one');
    assert.equal(answer.code, 'two');
    assert.equal(answer.pre, 'const x = "<b>not bold</b>";');
    assert.ok(!answer.tags.includes('b') && !answer.tags.includes('img'), answer.tags.join());
    assert.equal(answer.links, 0, 'a javascript: link stays text');
    assert.doesNotMatch(answer.text, /\*\*/);
    assert.match(answer.text, /<img src=x onerror=alert\(1\)>/, 'raw HTML shows as text');
  });

  test('a denied command says so instead of showing the denial JSON', async () => {
    replies.push({ events: toolEvents('', [['c9', 'rm -rf /']]) }, { events: textEvents('Understood, not running it.') });
    confirmAnswer = 'dismiss';
    await send('wipe it');
    await browser.page.waitForFunction(() => /not running it/.test(document.getElementById('transcript').textContent));
    confirmAnswer = 'accept';
    const tool = await browser.page.$$eval('#transcript li.tool', (items) => {
      const li = items.at(-1);
      return { state: li.querySelector('.state').textContent, className: li.className, detail: li.querySelector('pre').textContent };
    });
    assert.equal(tool.state, 'denied');
    assert.match(tool.className, /denied/);
    assert.match(tool.detail, /declined/);
    assert.doesNotMatch(tool.detail, /[{}"]/, tool.detail);
  });

  test('no errors reached the page', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
