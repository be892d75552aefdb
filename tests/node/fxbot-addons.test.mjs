// Add-ons through createFxbot's public API (issue 24, fxbot DESIGN §9.2, §9.3): skills from a
// SKILL.md or a URL, `$name` and `/name` in a message, the skills list and the `skill` tool; a
// remote MCP server on loopback (tests/support/fake-mcp.mjs) added, listed, allowed, assigned,
// called in a bot turn, refreshed and removed; its header rules; secrets kept out of every answer.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, test } from 'node:test';

import { exportNativeSession } from '../../pkg/node.js';
import { createFxbot, memoryFxbotStore, memorySessionStore } from '../support/fxbot-target.mjs';
import { startFakeMcp } from '../support/fake-mcp.mjs';
import { fakeFetch, finish, textEvents, trapGuard } from './agent-support.mjs';
import { rejectsWith, untilEnd } from './fxbot-support.mjs';
import { continueInCli } from './native-home.mjs';

const guard = trapGuard();
after(() => guard.check());

const MODEL = 'test/model';
const KEY = 'sk-test-0123456789abcdefghijklmn';
const REVIEW = `---
name: review
description: >
  Reviews a change
  for bugs.
license: MIT
---

# Review

Read the diff line by line and list the bugs you find.
`;

/** An fxbot whose model calls go to a scripted fake and everything else to the real fetch. */
async function open(script, sessionStore = memorySessionStore()) {
  const net = fakeFetch(script, { catalog: null });
  const routed = (url, init) => (String(url).startsWith('http://127.0.0.1') ? globalThis.fetch(url, init) : net.fetch(url, init));
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore, fetch: routed });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: KEY, model: MODEL });
  await fxbot.settings.update({ defaultProvider: provider.id });
  const bot = await fxbot.bots.create({ name: 'Ada' });
  return { fxbot, net, bot };
}

const userText = (request) =>
  request.body.prompt
    .filter((m) => m.role === 'user')
    .map((m) => m.content.map((c) => c.text ?? '').join(''))
    .at(-1);
const systemText = (request) =>
  request.body.prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');

/** A loopback server answering GET with `body` (a skill URL). */
async function serveText(body) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/markdown', 'access-control-allow-origin': '*' });
    res.end(body.current);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/SKILL.md`, close: () => new Promise((r) => server.close(r)) };
}

describe('skills', () => {
  test('addSkill reads a SKILL.md; a bad one is a 400 naming what is wrong', async () => {
    const { fxbot } = await open([]);
    const skill = await fxbot.addons.addSkill({ markdown: REVIEW });
    assert.deepEqual(skill, {
      ref: 'skill:review',
      kind: 'skill',
      name: 'review',
      description: 'Reviews a change for bugs.',
      instructions: '# Review\n\nRead the diff line by line and list the bugs you find.',
      sourceUrl: null,
      bots: [],
    });
    await rejectsWith(fxbot.addons.addSkill({ markdown: REVIEW.replace('name: review', 'name: Review') }), 400, /"Review" is not a skill name/);
    await rejectsWith(fxbot.addons.addSkill({ markdown: REVIEW }), 400, /a skill named review exists already/);
    await rejectsWith(fxbot.addons.addSkill({ markdown: 'no frontmatter' }), 400, /starts with frontmatter/);
    await rejectsWith(fxbot.addons.addSkill({}), 400, /exactly one/);
    await rejectsWith(fxbot.addons.get('review'), 400, /not an add-on reference/);
    await rejectsWith(fxbot.addons.get('skill:other'), 404, /there is no add-on skill:other/);
    assert.deepEqual((await fxbot.addons.list()).map((a) => a.ref), ['skill:review']);
    await fxbot.close();
  });

  test('"$review please" and "/review please" send its instructions; "a/review" and "$unknown" do not', async () => {
    const replies = Array.from({ length: 4 }, () => ({ events: textEvents('ok') }));
    const { fxbot, net, bot } = await open(replies);
    await fxbot.addons.addSkill({ markdown: REVIEW });
    await fxbot.addons.update('skill:review', { bots: [bot.id] });
    const messages = ['$review please', '/review please', 'a/review', '$unknown'];
    for (const [i, text] of messages.entries()) {
      await fxbot.chat.send(bot.id, { text, messageId: `m${i}` });
      await untilEnd(fxbot, bot.id, i + 1);
    }
    const seen = net.chats().map(userText);
    assert.equal(seen.length, 4);
    assert.match(seen[0], /^\$review please\n\n<skill name="review">\n# Review\n\nRead the diff/);
    assert.match(seen[1], /^\/review please\n\n<skill name="review">/);
    assert.equal(seen[2], 'a/review');
    assert.equal(seen[3], '$unknown');
    // Every request lists the skill and offers the skill tool.
    for (const request of net.chats()) {
      assert.match(systemText(request), /## Your skills\n\n.*\n- \$review — Reviews a change for bugs\./);
      assert.ok(request.body.tools.some((t) => t.name === 'skill'));
    }
    // The turn_start of a message naming a skill carries what was saved.
    const turns = await fxbot.chat.turns(bot.id);
    assert.deepEqual(turns[0].skills ?? null, ['review']);
    const { lines } = await untilEnd(fxbot, bot.id, 4);
    const starts = lines.filter((l) => l.type === 'turn_start');
    assert.deepEqual(starts.map((l) => l.skills ?? null), [['review'], ['review'], null, null]);
    assert.equal(starts[0].input, '$review please');
    await fxbot.close();
  });

  test('the skill tool loads an assigned skill; an unassigned bot has neither list nor tool', async () => {
    const { fxbot, net, bot } = await open([
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'skill', input: JSON.stringify({ name: 'review' }) }, finish('tool-calls')] },
      { events: textEvents('done') },
      { events: textEvents('plain') },
    ]);
    await fxbot.addons.addSkill({ markdown: REVIEW });
    await fxbot.addons.update('skill:review', { bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: 'check my change', messageId: 'm1' });
    const { lines } = await untilEnd(fxbot, bot.id, 1);
    const result = lines.find((l) => l.type === 'tool_result');
    assert.equal(result.status, 'completed');
    assert.match(result.output, /Read the diff line by line/);
    const other = await fxbot.bots.create({ name: 'Bo' });
    await fxbot.chat.send(other.id, { text: '$review this', messageId: 'm2' });
    await untilEnd(fxbot, other.id, 1);
    const last = net.chats().at(-1);
    assert.equal(userText(last), '$review this');
    assert.doesNotMatch(systemText(last), /Your skills/);
    assert.ok(!last.body.tools.some((t) => t.name === 'skill'));
    await fxbot.close();
  });

  test('a skill from a URL, refreshed; removing it takes it out of the next turn', async () => {
    const body = { current: REVIEW };
    const site = await serveText(body);
    const { fxbot, net, bot } = await open([{ events: textEvents('a') }, { events: textEvents('b') }]);
    const skill = await fxbot.addons.addSkill({ url: site.url });
    assert.equal(skill.sourceUrl, site.url);
    body.current = REVIEW.replace('list the bugs you find', 'name each bug once');
    const refreshed = await fxbot.addons.refresh('skill:review');
    assert.match(refreshed.instructions, /name each bug once/);
    body.current = REVIEW.replace('name: review', 'name: other');
    await rejectsWith(fxbot.addons.refresh('skill:review'), 400, /named other, not review/);
    await fxbot.addons.update('skill:review', { bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: '$review now', messageId: 'm1' });
    await untilEnd(fxbot, bot.id, 1);
    assert.match(userText(net.chats()[0]), /name each bug once/);
    await fxbot.addons.remove('skill:review');
    await fxbot.chat.send(bot.id, { text: '$review now', messageId: 'm2' });
    await untilEnd(fxbot, bot.id, 2);
    assert.equal(userText(net.chats()[1]), '$review now');
    await rejectsWith(fxbot.addons.addSkill({ url: 'http://example.com/SKILL.md' }), 400, /must use https/);
    await site.close();
    await fxbot.close();
  });
});

describe('remote MCP servers', () => {
  test('addServer lists the tools and allows the read-only ones; a bot turn calls an allowed tool', async () => {
    const mcp = await startFakeMcp({ sse: true, asks: true });
    const { fxbot, net, bot } = await open([
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp_issues_search', input: JSON.stringify({ q: 'crash' }) }, finish('tool-calls')] },
      { events: textEvents('Two issues.') },
    ]);
    const server = await fxbot.addons.addServer({ url: mcp.url, name: 'Issues', headers: { 'X-Api-Key': 'mcp-secret-1' } });
    assert.equal(server.ref, `server:${server.id}`);
    assert.deepEqual(
      server.tools.map((t) => [t.name, t.readOnly]),
      [['search', true], ['close_issue', false]],
    );
    assert.deepEqual(server.allowed, ['search']);
    assert.deepEqual([server.auth, server.headers, server.signedIn], ['headers', ['X-Api-Key'], true]);
    assert.equal(mcp.state.seen[0].body.params.protocolVersion, '2025-11-25');
    await fxbot.addons.update(server.ref, { bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: 'any crashes?', messageId: 'm1' });
    const { lines, end } = await untilEnd(fxbot, bot.id, 1);
    assert.equal(end.stopReason, 'end_turn');
    const call = lines.find((l) => l.type === 'tool_call');
    assert.equal(call.name, 'mcp_issues_search');
    const result = lines.find((l) => l.type === 'tool_result');
    assert.equal(result.status, 'completed');
    assert.equal(result.output, 'search found 2 issues for {"q":"crash"}');
    assert.deepEqual(mcp.state.calls.map((c) => [c.name, c.arguments, c.headers['x-api-key']]), [['search', { q: 'crash' }, 'mcp-secret-1']]);
    // The server's own request on the stream was answered "not supported".
    assert.ok(mcp.state.answers.length >= 1);
    assert.ok(mcp.state.answers.every((a) => a.error?.code === -32601));
    // The model was offered the allowed tool only.
    const names = net.chats()[0].body.tools.map((t) => t.name);
    assert.ok(names.includes('mcp_issues_search'));
    assert.ok(!names.some((n) => n.includes('close_issue')));
    // No answer holds the header value.
    const everything = JSON.stringify([await fxbot.addons.list(), await fxbot.addons.get(server.ref), lines]);
    assert.ok(!everything.includes('mcp-secret-1'));
    await fxbot.close();
    await mcp.close();
  });

  test('headers: a line break or 8 KiB + 1 is a 400, only names given at add update, a new value is sent next', async () => {
    const mcp = await startFakeMcp();
    const { fxbot, bot } = await open([
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp_issues_search', input: '{"q":"a"}' }, finish('tool-calls')] },
      { events: textEvents('ok') },
    ]);
    await rejectsWith(fxbot.addons.addServer({ url: mcp.url, headers: { 'X-Api-Key': 'a\nb' } }), 400, /line break/);
    await rejectsWith(fxbot.addons.addServer({ url: mcp.url, headers: { 'X-Api-Key': 'k'.repeat(8193) } }), 400, /8193 bytes/);
    await rejectsWith(fxbot.addons.addServer({ url: 'http://mcp.example/mcp' }), 400, /must use https/);
    await rejectsWith(fxbot.addons.addServer({ url: mcp.url, auth: 'magic' }), 400, /auth must be/);
    const server = await fxbot.addons.addServer({ url: mcp.url, name: 'issues', headers: { 'X-Api-Key': 'k'.repeat(8192) } });
    await rejectsWith(fxbot.addons.update(server.ref, { headers: { 'X-Other': 'v' } }), 400, /X-Other was not given when the server was added/);
    await rejectsWith(fxbot.addons.update(server.ref, { allowed: ['nope'] }), 400, /no tool named "nope"/);
    await rejectsWith(fxbot.addons.update(server.ref, { bots: ['0123456789ab'] }), 404, /there is no bot/);
    await fxbot.addons.update(server.ref, { headers: { 'x-api-key': 'second' }, bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: 'go', messageId: 'm1' });
    await untilEnd(fxbot, bot.id, 1);
    assert.deepEqual(mcp.state.calls.map((c) => c.headers['x-api-key']), ['second']);
    await fxbot.close();
    await mcp.close();
  });

  test('allowing a tool offers it; refresh does not allow a new tool; a removed server leaves the next turn', async () => {
    const mcp = await startFakeMcp({ versions: ['2025-06-18'] });
    const { fxbot, net, bot } = await open([{ events: textEvents('1') }, { events: textEvents('2') }, { events: textEvents('3') }]);
    const server = await fxbot.addons.addServer({ url: mcp.url, name: 'issues' });
    // The fake refused 2025-11-25 and took 2025-06-18.
    assert.deepEqual(
      mcp.state.seen.filter((s) => s.method === 'initialize').map((s) => s.body.params.protocolVersion),
      ['2025-11-25', '2025-06-18'],
    );
    await fxbot.addons.update(server.ref, { allowed: ['search', 'close_issue'], bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: 'x', messageId: 'm1' });
    await untilEnd(fxbot, bot.id, 1);
    assert.ok(net.chats()[0].body.tools.some((t) => t.name === 'mcp_issues_close_issue'));
    mcp.state.tools = [...mcp.state.tools, { name: 'merge', description: 'Merges.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }];
    const refreshed = await fxbot.addons.refresh(server.ref);
    assert.deepEqual(refreshed.tools.map((t) => t.name), ['search', 'close_issue', 'merge']);
    assert.deepEqual(refreshed.allowed, ['search', 'close_issue']);
    await fxbot.chat.send(bot.id, { text: 'y', messageId: 'm2' });
    await untilEnd(fxbot, bot.id, 2);
    assert.ok(!net.chats()[1].body.tools.some((t) => t.name === 'mcp_issues_merge'));
    await fxbot.addons.remove(server.ref);
    await rejectsWith(fxbot.addons.get(server.ref), 404);
    await fxbot.chat.send(bot.id, { text: 'z', messageId: 'm3' });
    await untilEnd(fxbot, bot.id, 3);
    assert.ok(!net.chats()[2].body.tools.some((t) => t.name.startsWith('mcp_')));
    await fxbot.close();
    await mcp.close();
  });

  test('an unreachable server is a 502 and nothing is stored; removing a bot unassigns it', async () => {
    const mcp = await startFakeMcp();
    const { fxbot, bot } = await open([]);
    const url = mcp.url;
    await mcp.close();
    await rejectsWith(fxbot.addons.addServer({ url }), 502, /could not be reached/);
    assert.deepEqual(await fxbot.addons.list(), []);
    await fxbot.addons.addSkill({ markdown: REVIEW });
    await fxbot.addons.update('skill:review', { bots: [bot.id] });
    await fxbot.bots.remove(bot.id);
    assert.deepEqual((await fxbot.addons.get('skill:review')).bots, []);
    await fxbot.close();
  });
});

test('a chat that used a skill and an MCP tool exports, and the fx CLI continues it (FX_NATIVE)', async (t) => {
  const mcp = await startFakeMcp();
  const sessionStore = memorySessionStore();
  const { fxbot, bot } = await open(
    [
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp_issues_search', input: '{"q":"crash"}' }, finish('tool-calls')] },
      { events: textEvents('Two crash issues.') },
    ],
    sessionStore,
  );
  await fxbot.addons.addSkill({ markdown: REVIEW });
  await fxbot.addons.update('skill:review', { bots: [bot.id] });
  const server = await fxbot.addons.addServer({ url: mcp.url, name: 'issues' });
  await fxbot.addons.update(server.ref, { bots: [bot.id] });
  const sent = await fxbot.chat.send(bot.id, { text: '$review the crash reports', messageId: 'm1' });
  await untilEnd(fxbot, bot.id, 1);
  await fxbot.close();
  await mcp.close();
  const { bytes } = await sessionStore.load(sent.sessionId);
  const files = await exportNativeSession(bytes);
  assert.ok(Object.keys(files).length > 0);
  const fx = process.env.FX_NATIVE;
  if (!fx) {
    t.diagnostic('FX_NATIVE is not set: the fx CLI half of this check did not run');
    return;
  }
  const reply = textEvents('Noted.').map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
  const requests = await continueInCli(fx, sent.sessionId, files, 'thanks', reply, 'fx-addons-');
  assert.equal(requests.length, 1, 'the CLI made one model request');
  const history = JSON.stringify(requests[0].prompt);
  assert.match(history, /Read the diff line by line/, 'the skill went with the message');
  assert.match(history, /mcp_issues_search/, 'the MCP call is in the history');
  assert.match(history, /search found 2 issues/, 'and its result');
});

/** Approves a sign-in as its owner would: opens the authorize URL, follows Approve, returns the callback URL. */
async function approve(authorizeUrl) {
  const page = await fetch(authorizeUrl);
  assert.equal(page.status, 200, 'the authorize page accepts the request');
  const href = /id="approve" href="([^"]+)"/.exec(await page.text())[1];
  const answer = await fetch(new URL(href, authorizeUrl), { redirect: 'manual' });
  assert.equal(answer.status, 302);
  return answer.headers.get('location');
}

describe('MCP servers that sign in with OAuth', () => {
  const ORIGIN = 'http://127.0.0.1:4321';

  test('oauth() gives an S256 authorize URL with the resource; completeOAuth signs in from the callback; a turn carries the bearer', async () => {
    const mcp = await startFakeMcp({ oauth: true });
    const { fxbot, bot } = await open([
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp_issues_search', input: '{"q":"x"}' }, finish('tool-calls')] },
      { events: textEvents('ok') },
    ]);
    const added = await fxbot.addons.addServer({ url: mcp.url, name: 'issues', auth: 'oauth' });
    assert.deepEqual([added.auth, added.signedIn, added.tools], ['oauth', false, []]);
    await rejectsWith(fxbot.addons.oauth(added.ref, { origin: 'javascript:alert(1)' }), 400, /origin/);
    const { url } = await fxbot.addons.oauth(added.ref, { origin: ORIGIN });
    const authorize = new URL(url);
    assert.equal(authorize.origin + authorize.pathname, `${mcp.base}/authorize`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('resource'), mcp.url);
    assert.equal(authorize.searchParams.get('redirect_uri'), `${ORIGIN}/oauth/callback`);
    assert.match(authorize.searchParams.get('state'), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(authorize.searchParams.get('scope'), 'issues:read');
    // The client was registered dynamically, as a public client for the redirect URI.
    const [[clientId, registration]] = [...mcp.state.clients.entries()];
    assert.equal(authorize.searchParams.get('client_id'), clientId);
    assert.deepEqual(registration.redirect_uris, [`${ORIGIN}/oauth/callback`]);
    assert.equal(registration.token_endpoint_auth_method, 'none');
    const callback = await approve(url);
    assert.ok(callback.startsWith(`${ORIGIN}/oauth/callback?code=`));
    const wrong = new URL(callback);
    wrong.searchParams.set('state', 'not-the-state');
    await rejectsWith(fxbot.addons.completeOAuth(wrong.href), 400, /no sign-in is waiting/);
    const signedIn = await fxbot.addons.completeOAuth(callback);
    assert.deepEqual([signedIn.signedIn, signedIn.error, signedIn.allowed], [true, null, ['search']]);
    assert.deepEqual(signedIn.tools.map((t) => t.name), ['search', 'close_issue']);
    // The callback is answered once; the fake refuses the code a second time too.
    await rejectsWith(fxbot.addons.completeOAuth(callback), 400, /no sign-in is waiting/);
    const code = new URL(callback).searchParams.get('code');
    const replay = await fetch(`${mcp.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: `${ORIGIN}/oauth/callback`, code_verifier: 'x', resource: mcp.url }),
    });
    assert.equal(replay.status, 400);
    assert.equal((await replay.json()).error, 'invalid_grant');
    await fxbot.addons.update(added.ref, { bots: [bot.id] });
    await fxbot.chat.send(bot.id, { text: 'search', messageId: 'm1' });
    const { lines } = await untilEnd(fxbot, bot.id, 1);
    assert.equal(lines.find((l) => l.type === 'tool_result').status, 'completed');
    const bearer = mcp.state.calls[0].headers.authorization;
    assert.match(bearer, /^Bearer at-/);
    // No token appears in any answer.
    const token = bearer.slice('Bearer '.length);
    assert.ok(!JSON.stringify([await fxbot.addons.list(), lines]).includes(token));
    await fxbot.close();
    await mcp.close();
  });

  test('a server that answers 401 is stored to sign in; a refused token is renewed once mid-turn; a refused sign-in is a 400', async () => {
    const mcp = await startFakeMcp({ oauth: true });
    const { fxbot, bot } = await open([
      { events: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp_issues_search', input: '{"q":"y"}' }, finish('tool-calls')] },
      { events: textEvents('ok') },
    ]);
    const added = await fxbot.addons.addServer({ url: mcp.url, name: 'issues' });
    assert.deepEqual([added.auth, added.signedIn], ['oauth', false]);
    const first = await fxbot.addons.oauth(added.ref, { origin: ORIGIN });
    const refused = new URL(`${ORIGIN}/oauth/callback`);
    refused.searchParams.set('error', 'access_denied');
    refused.searchParams.set('state', new URL(first.url).searchParams.get('state'));
    await rejectsWith(fxbot.addons.completeOAuth(refused.href), 400, /refused the sign-in \(access_denied\)/);
    await fxbot.addons.completeOAuth(await approve(first.url));
    await fxbot.addons.update(added.ref, { bots: [bot.id] });
    mcp.revokeAccess();
    await fxbot.chat.send(bot.id, { text: 'search', messageId: 'm1' });
    const { lines } = await untilEnd(fxbot, bot.id, 1);
    assert.equal(lines.find((l) => l.type === 'tool_result').status, 'completed');
    assert.deepEqual(mcp.state.tokenCalls.map((c) => c.grant_type), ['authorization_code', 'refresh_token']);
    await fxbot.close();
    await mcp.close();
  });
});
