// signIns of createFxbot (part 1: a Vercel account) in Node against the fake OAuth issuer on a
// loopback port: the verification page is opened through openUrl, an approved sign-in adds a
// `vercel` provider (one team is taken, several leave teamId null), a denied one adds nothing,
// and other kinds are 400.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createFxbot, memoryFxbotStore } from '../../pkg/fxbot/node.js';
import { startFakeOAuth } from '../support/fake-oauth.mjs';

async function signIn(fakeOptions) {
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

test('several teams leave teamId null; a denied sign-in adds nothing', async () => {
  const teams = [
    { id: 'team_1', slug: 'one', name: 'One' },
    { id: 'team_2', slug: 'two', name: 'Two' },
  ];
  const several = await signIn({ teams });
  assert.equal(several.done.status, 'complete');
  assert.equal(several.done.provider.teamId, null);
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
