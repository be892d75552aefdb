// An MCP server's OAuth sign-in in Chromium, as an owner meets it: the page calls
// `addons.oauth(ref, { origin: location.origin })` and opens the URL in a popup; the owner
// approves on the authorization server's page (tests/support/fake-mcp.mjs, on another loopback
// origin); the popup lands on the callback page (tests/browser/oauth-callback.html), whose own
// fxbot completes the sign-in on the shared IndexedDB stores; the first tab then sees the server
// signed in, and its bot's next tool call carries the bearer.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startServer } from '../../scripts/serve.mjs';
import { startFakeMcp } from '../support/fake-mcp.mjs';
import { launchChromium } from './chromium.mjs';

let server;
let browser;
let mcp;
let page;
const pageErrors = [];

before(async () => {
  server = await startServer(0);
  mcp = await startFakeMcp({ oauth: true });
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  await page.goto(`${server.url}tests/browser/harness.html`);
});

after(async () => {
  await browser?.close();
  await mcp?.close();
  await server?.close();
});

test('approve in a popup, land on the callback, and the next tool call carries the bearer', async () => {
  const started = await page.evaluate(async (mcpUrl) => {
    const { createFxbot } = await import('/pkg/fxbot/index.js');
    // Model calls get a scripted AI Gateway answer; the MCP server is reached for real.
    const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
    const finish = (unified) => ({ type: 'finish', finishReason: { unified, raw: unified }, usage: { inputTokens: { total: 9 }, outputTokens: { total: 3 } } });
    const replies = [
      sse([{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp_issues_search', input: '{"q":"popup"}' }, finish('tool-calls')]),
      sse([{ type: 'text-delta', id: 't', delta: 'Found them.' }, finish('stop')]),
    ];
    const fetch = (url, init) =>
      String(url).startsWith(new URL(mcpUrl).origin)
        ? globalThis.fetch(url, init)
        : Promise.resolve(new Response(replies.shift() ?? sse([finish('stop')]), { headers: { 'content-type': 'text/event-stream' } }));
    const fxbot = await createFxbot({ fetch, oauthRedirectPath: '/tests/browser/oauth-callback.html' });
    const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'test-key', model: 'test/model' });
    await fxbot.settings.update({ defaultProvider: provider.id });
    const bot = await fxbot.bots.create({ name: 'Ada' });
    const added = await fxbot.addons.addServer({ url: mcpUrl, name: 'issues', auth: 'oauth' });
    const refused = await fxbot.addons.oauth(added.ref, { origin: 'http://127.0.0.1:1' }).catch((e) => e.status);
    const { url } = await fxbot.addons.oauth(added.ref, { origin: location.origin });
    globalThis.__oauth = { fxbot, bot, ref: added.ref };
    window.open(url, 'fx-oauth', 'popup,width=480,height=640');
    return { url, refused, signedIn: added.signedIn };
  }, mcp.url);
  assert.equal(started.signedIn, false);
  assert.equal(started.refused, 400, 'an origin other than the page\'s is refused');
  const authorize = new URL(started.url);
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(authorize.searchParams.get('resource'), mcp.url);

  const popup = browser.context.pages().find((p) => p.url().startsWith(mcp.base)) ?? (await browser.context.waitForEvent('page'));
  await popup.waitForSelector('#approve');
  await popup.click('#approve');
  await popup.waitForURL((u) => u.pathname === '/tests/browser/oauth-callback.html');
  await popup.waitForFunction(() => document.title !== 'signing in…');
  assert.equal(await popup.title(), 'signed in', await popup.textContent('#status'));

  const after = await page.evaluate(async () => {
    const { fxbot, bot, ref } = globalThis.__oauth;
    const server = await fxbot.addons.get(ref);
    await fxbot.addons.update(ref, { bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: 'look for popup issues', messageId: 'm1' });
    let result = null;
    for await (const line of fxbot.chat.stream(bot.id, 0)) {
      if (line.type === 'tool_result') result = line;
      if (line.type === 'turn_end') break;
    }
    return { signedIn: server.signedIn, allowed: server.allowed, result };
  });
  assert.equal(after.signedIn, true);
  assert.deepEqual(after.allowed, ['search']);
  assert.equal(after.result?.status, 'completed');
  assert.match(mcp.state.calls[0].headers.authorization, /^Bearer at-/);
  assert.equal(mcp.state.calls[0].headers.origin, new URL(server.url).origin, 'the call came from the page');
  assert.deepEqual(pageErrors, []);
});
