// signIns of createFxbot (part 1: a Vercel account) in Node against the fake OAuth issuer on a
// loopback port: the verification page is opened through openUrl, an approved sign-in adds a
// `vercel` provider (one team is taken, several leave teamId null), a denied one adds nothing,
// and other kinds are 400.

import assert from 'node:assert/strict';
import { test } from 'node:test';

// The in-process fxbot, or (FXBOT_TARGET=server) the same behind its server through connectFxbot.
import { createFxbot, memoryFxbotStore } from '../support/fxbot-target.mjs';
import { startFakeOAuth } from '../support/fake-oauth.mjs';
import { sse, textEvents } from './agent-support.mjs';

async function signIn(fakeOptions, then = async () => {}) {
  const fake = await startFakeOAuth({ interval: 1, pendingPolls: 0, ...fakeOptions });
  const opened = [];
  const fxbot = await createFxbot({
    store: memoryFxbotStore(),
    env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer },
    openUrl: (url) => (opened.push(url), true),
  });
  try {
    const pending = await fxbot.signIns.start('vercel');
    assert.equal(pending.status, 'pending');
    assert.equal(pending.kind, 'vercel');
    assert.ok(pending.userCode);
    assert.equal(opened.length, 1);
    assert.ok(opened[0].startsWith(fake.issuer));
    const done = await fxbot.signIns.wait(pending.id);
    assert.deepEqual(await fxbot.signIns.get(pending.id), done);
    await then(fxbot, done);
    return { done, providers: await fxbot.providers.list() };
  } finally {
    await fxbot.close();
    await fake.close();
  }
}

test('a Vercel sign-in with one team takes it', async () => {
  const { done, providers } = await signIn({ team: { id: 'team_1', slug: 'one', name: 'One' } });
  assert.equal(done.status, 'complete', done.error);
  assert.equal(done.provider.kind, 'vercel');
  assert.equal(done.provider.teamId, 'team_1');
  assert.equal(done.provider.signedIn, true);
  assert.deepEqual(providers, [done.provider]);
});

test('several teams leave teamId null until update picks one of them; a denied sign-in adds nothing', async () => {
  const teams = [
    { id: 'team_1', slug: 'one', name: 'One' },
    { id: 'team_2', slug: 'two', name: 'Two' },
    { id: 'team_3', slug: 'three', name: 'Three' },
  ];
  const several = await signIn({ teams }, async (fxbot, done) => {
    assert.equal(done.provider.teamId, null);
    await assert.rejects(fxbot.providers.update(done.provider.id, { teamId: 'team_9' }), (e) => e.status === 400 && /not a team of this Vercel account/.test(e.message));
    assert.equal((await fxbot.providers.update(done.provider.id, { teamId: 'team_2' })).teamId, 'team_2');
  });
  assert.equal(several.done.status, 'complete');
  assert.equal(several.providers[0].teamId, 'team_2');
  const denied = await signIn({ outcome: 'deny' });
  assert.equal(denied.done.status, 'denied');
  assert.deepEqual(denied.providers, []);
});

test('other kinds are 400', async () => {
  const fxbot = await createFxbot({ store: memoryFxbotStore() });
  for (const kind of ['chatgpt', 'grok', 'openai']) {
    await assert.rejects(fxbot.signIns.start(kind), (e) => e.status === 400 && e.code === 'FXBOT_BAD_REQUEST');
  }
  await fxbot.close();
});

/**
 * A signed-in Vercel provider and a bot on it, over a fake gateway that takes only the tokens
 * `valid` allows (the fake issuer's tokens are the only credentials it knows).
 */
async function signedInBot(fakeOptions, valid) {
  const fake = await startFakeOAuth({ interval: 1, pendingPolls: 0, team: { id: 'team_1', slug: 'one', name: 'One' }, ...fakeOptions });
  const gateway = [];
  const chatUrl = 'http://127.0.0.1:9/v3/ai/language-model';
  const fxbot = await createFxbot({
    store: memoryFxbotStore(),
    env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer, FX_GATEWAY_CHAT_URL: chatUrl },
    openUrl: () => true,
    fetch: async (url, init = {}) => {
      if (!String(url).startsWith(chatUrl)) return fetch(url, init);
      const headers = new Headers(init.headers);
      const token = (headers.get('authorization') ?? '').replace(/^Bearer /, '');
      gateway.push({ token, team: headers.get('x-vercel-ai-gateway-team') });
      if (!valid(token, fake)) return new Response('{"error":{"message":"expired token"}}', { status: 401 });
      const body = sse(textEvents('signed ', 'in'));
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    },
  });
  const pending = await fxbot.signIns.start('vercel');
  const done = await fxbot.signIns.wait(pending.id);
  assert.equal(done.status, 'complete', done.error);
  const bot = await fxbot.bots.create({ provider: done.provider.id, model: 'openai/gpt-5' });
  const turn = async (messageId) => {
    const sent = await fxbot.chat.send(bot.id, { text: 'hi', messageId });
    for await (const line of fxbot.chat.stream(bot.id, sent.cursor)) {
      if (line.type === 'turn_end') return line;
    }
    return null;
  };
  return { fake, fxbot, gateway, turn };
}

test('an expiring Vercel sign-in is refreshed before the turn, its rotated refresh token kept', async () => {
  // Tokens live 30 s: inside the one-minute margin, so each counts as expiring when it arrives.
  // The gateway takes only the token the issuer issued last after a refresh.
  const first = new Set();
  const { fake, fxbot, gateway, turn } = await signedInBot({ tokenTtl: 30 }, (token, f) => f.refreshes > 0 && token === f.accessToken && !first.has(token));
  first.add(fake.accessToken);
  try {
    for (const messageId of ['m1', 'm2']) {
      const end = await turn(messageId);
      assert.equal(end.stopReason, 'end_turn', JSON.stringify(end.error));
    }
    assert.equal(fake.refreshes, 2, 'one refresh per turn (each new token expires within the margin too)');
    assert.deepEqual(gateway.map((g) => g.team), ['team_1', 'team_1']);
    assert.ok(gateway.every((g) => !first.has(g.token)), 'the first token was never sent');
    const provider = (await fxbot.providers.list())[0];
    assert.equal(provider.signedIn, true);
  } finally {
    await fxbot.close();
    await fake.close();
  }
});

test('a fresh Vercel sign-in is used as it is', async () => {
  const { fake, fxbot, turn } = await signedInBot({}, (token, f) => token === f.accessToken);
  try {
    assert.equal((await turn('m1')).stopReason, 'end_turn');
    assert.equal(fake.refreshes, 0);
  } finally {
    await fxbot.close();
    await fake.close();
  }
});
