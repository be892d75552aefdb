// /login, /logout and token refresh through @xterm/headless, against the loopback fake of
// Vercel's OAuth endpoints (tests/support/fake-oauth.mjs) and a fake gateway `fetch`. Every
// screen buffer, onEvent payload and console line is scanned for the tokens.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';

import { memoryOAuthSessionStore } from '../../pkg/index.js';
import { startFakeOAuth } from '../support/fake-oauth.mjs';
import { fakeFetch, textEvents } from './agent-support.mjs';
import { allText, contains, startTerminal, until } from './terminal-support.mjs';

const LOOPBACK_CHAT = 'http://127.0.0.1:9/v3/ai/language-model';

/** OAuth requests go to the fake over real HTTP; everything else to the fake gateway. */
function routedFetch(fake, net) {
  return (url, init) => (String(url).startsWith(fake.issuer) ? globalThis.fetch(url, init) : net.fetch(url, init));
}

/** The in-memory OAuth store, recording every commit and remove. */
function recordingStore(inner = memoryOAuthSessionStore()) {
  const commits = [];
  const removes = [];
  return {
    commits,
    removes,
    store: {
      load: () => inner.load(),
      commit(bytes, expectedRevision) {
        const result = inner.commit(bytes, expectedRevision);
        commits.push({ bytes, expectedRevision, revision: result.revision, argc: arguments.length });
        return result;
      },
      remove(expectedRevision) {
        removes.push(expectedRevision);
        return inner.remove(expectedRevision);
      },
    },
  };
}

let consoleLines = [];
const originals = {};
beforeEach(() => {
  consoleLines = [];
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    originals[level] = console[level];
    console[level] = (...args) => {
      consoleLines.push(args.map(String).join(' '));
      originals[level](...args);
    };
  }
});
afterEach(() => {
  for (const [level, fn] of Object.entries(originals)) console[level] = fn;
});

function assertNoSecrets(fake, { terms = [], events = [] }) {
  const secrets = [...fake.issuedTokens, fake.deviceCode].filter(Boolean);
  assert.ok(secrets.length > 0);
  const places = [
    ...terms.map((term, i) => [`terminal ${i}`, allText(term)]),
    ['events', JSON.stringify(events)],
    ['console', consoleLines.join('\n')],
  ];
  for (const [where, text] of places) {
    for (const secret of secrets) assert.ok(!text.includes(secret), `a token appeared in ${where}`);
  }
}

async function login(term, runtime, done = /signed in to Vercel/) {
  runtime.write('/login\r');
  await until(term, (_, all) => done.test(all), { timeout: 15000, what: String(done) });
}

describe('device login in the terminal', () => {
  test('/login, a stored login in a second runtime, /logout', async () => {
    const fake = await startFakeOAuth({ pendingPolls: 2 });
    const { store, commits, removes } = recordingStore();
    const opened = [];
    const openUrl = (url) => {
      opened.push(url);
      return true;
    };
    try {
      // Runtime 1 has an env key: a login made here wins over it.
      const net1 = fakeFetch([{ events: textEvents('first answer') }]);
      const one = await startTerminal({
        fetch: routedFetch(fake, net1),
        env: { AI_GATEWAY_API_KEY: 'placeholder-key', FX_E2E_OAUTH_ISSUER_URL: fake.issuer, FX_THEME: 'dark' },
        oauthSessionStore: store,
        openUrl,
      });
      one.runtime.write('/login\r');
      await until(one.term, (_, all) => all.includes('TEST-CODE'), { what: 'the user code' });
      const shown = allText(one.term);
      assert.ok(shown.includes(`${fake.issuer}/oauth/device`), 'the bare verification URL is shown');
      assert.deepEqual(opened, [`${fake.issuer}/oauth/device?user_code=TEST-CODE`]);
      await until(one.term, (_, all) => /signed in to Vercel/.test(all), { timeout: 15000, what: 'signed in' });
      assert.equal(fake.polls, 3, 'two pending answers, then the tokens');
      assert.equal(commits.length, 1);
      assert.equal(commits[0].expectedRevision, undefined, 'the first commit has no expected revision');
      assert.equal(commits[0].argc, 2);
      assert.ok(commits[0].bytes instanceof Uint8Array);
      const device = fake.requests.find((r) => r.path === '/login/oauth/device-authorization');
      assert.equal(device.form.scope, 'openid offline_access');

      one.runtime.write('hello\r');
      await contains(one.term, 'first answer');
      assert.equal(net1.chats()[0].headers.authorization, `Bearer ${fake.accessToken}`);
      assert.equal(net1.chats()[0].headers['x-vercel-ai-gateway-team'], undefined);
      one.runtime.write('/status\r');
      await contains(one.term, 'fx login (renews itself)');
      one.runtime.abort();

      // Runtime 2, same store, no env key: the stored login is used, no device flow.
      const requestsBefore = fake.requests.length;
      const net2 = fakeFetch([{ events: textEvents('second answer') }, { events: textEvents('third answer') }]);
      const two = await startTerminal({
        fetch: routedFetch(fake, net2),
        env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer, FX_GATEWAY_CHAT_URL: LOOPBACK_CHAT, FX_THEME: 'dark' },
        oauthSessionStore: store,
        openUrl,
      });
      two.runtime.write('again\r');
      await contains(two.term, 'second answer');
      assert.equal(net2.chats()[0].headers.authorization, `Bearer ${fake.accessToken}`);
      assert.equal(fake.polls, 3, 'no polling on the second boot');
      assert.equal(fake.requests.length, requestsBefore, 'no OAuth request on the second boot');
      assert.equal(opened.length, 1);

      two.runtime.write('/logout\r');
      await until(two.term, (_, all) => /Signed out/.test(all), { what: 'signed out' });
      assert.deepEqual(removes, [commits[0].revision], 'removed with the committed revision');
      assert.equal(store.load(), null);
      await until(two.term, () => fake.revoked.length === 2, { what: 'two revocations' });
      assert.ok(fake.revoked.includes(fake.accessToken) && fake.revoked.includes(fake.refreshToken));
      two.runtime.write('once more\r');
      await contains(two.term, 'third answer');
      assert.equal(net2.chats()[1].headers.authorization, undefined, 'no bearer after /logout');
      two.runtime.abort();

      assertNoSecrets(fake, { terms: [one.term, two.term], events: [...one.events, ...two.events] });
    } finally {
      await fake.close();
    }
  });

  for (const [outcome, text] of [
    ['deny', /turned down/],
    ['expire', /timed out/],
  ]) {
    test(`${outcome === 'deny' ? 'access_denied' : 'expired_token'} ends the login and keeps the credential`, async () => {
      const fake = await startFakeOAuth({ pendingPolls: 0, outcome });
      const { store, commits } = recordingStore();
      const net = fakeFetch([]);
      const { term, runtime, events } = await startTerminal({
        fetch: routedFetch(fake, net),
        env: { AI_GATEWAY_API_KEY: 'placeholder-key', FX_E2E_OAUTH_ISSUER_URL: fake.issuer },
        oauthSessionStore: store,
        openUrl: () => true,
      });
      try {
        await login(term, runtime, text);
        assert.equal(fake.polls, 1);
        assert.equal(commits.length, 0);
        runtime.write('/status\r');
        await contains(term, 'AI_GATEWAY_API_KEY from the environment');
        assertNoSecrets(fake, { terms: [term], events });
      } finally {
        runtime.abort();
        await fake.close();
      }
    });
  }

  test('Esc cancels a waiting login; a later approval is not saved', async () => {
    const fake = await startFakeOAuth({ pendingPolls: Infinity });
    const { store, commits } = recordingStore();
    const { term, runtime } = await startTerminal({
      fetch: routedFetch(fake, fakeFetch([])),
      env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer },
      oauthSessionStore: store,
      openUrl: () => true,
    });
    try {
      runtime.write('/login\r');
      await contains(term, 'Waiting for approval');
      runtime.write('\x1b');
      await until(term, (_, all) => /sign-in cancelled/.test(all), { what: 'cancelled' });
      const polls = fake.polls;
      fake.approve();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(fake.polls, polls, 'no polling after the cancel');
      assert.equal(commits.length, 0);
      assert.doesNotMatch(allText(term), /signed in to Vercel/);
    } finally {
      runtime.abort();
      await fake.close();
    }
  });

  test('openUrl returning false or throwing still leaves the URL and code on screen', async () => {
    for (const openUrl of [() => false, () => { throw new Error('no browser'); }]) {
      const fake = await startFakeOAuth({ pendingPolls: Infinity });
      const { term, runtime } = await startTerminal({
        fetch: routedFetch(fake, fakeFetch([])),
        env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer },
        oauthSessionStore: memoryOAuthSessionStore(),
        openUrl,
      });
      try {
        runtime.write('/login\r');
        await until(term, (_, all) => /no browser page was opened/.test(all), { what: 'the open notice' });
        const all = allText(term);
        assert.ok(all.includes('TEST-CODE') && all.includes(`${fake.issuer}/oauth/device`));
      } finally {
        runtime.abort();
        await fake.close();
      }
    }
  });

  test('a team is sent as x-vercel-ai-gateway-team; an expiring token is refreshed before the request', async () => {
    const team = { id: 'team_abc123', slug: 'acme', name: 'Acme' };
    const fake = await startFakeOAuth({ pendingPolls: 0, team, tokenTtl: 30 });
    const { store, commits } = recordingStore();
    const net = fakeFetch([{ events: textEvents('team answer') }]);
    const { term, runtime, events } = await startTerminal({
      fetch: routedFetch(fake, net),
      env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer },
      oauthSessionStore: store,
      openUrl: () => true,
    });
    try {
      await login(term, runtime, /billed to\s+team Acme/);
      const firstAccess = fake.accessToken;
      runtime.write('hi\r');
      await contains(term, 'team answer');
      assert.equal(fake.refreshes, 1, 'a token inside the expiry margin is refreshed first');
      assert.notEqual(fake.accessToken, firstAccess);
      const chat = net.chats()[0];
      assert.equal(chat.headers.authorization, `Bearer ${fake.accessToken}`);
      assert.equal(chat.headers['x-vercel-ai-gateway-team'], 'team_abc123');
      assert.equal(commits.length, 2);
      assert.equal(commits[1].expectedRevision, commits[0].revision, 'the refresh commits over the login');
      assert.ok(events.some((e) => e.type === 'auth.refresh' && e.outcome === 'refreshed'));
      runtime.write('/status\r');
      await contains(term, 'fx login (renews itself) · team team_abc123');
      assertNoSecrets(fake, { terms: [term], events });
    } finally {
      runtime.abort();
      await fake.close();
    }
  });

  test('a stored sign-in whose revision is longer than 1 KiB is refused where the host checks store results', async () => {
    // js/host.js checks every store result once (its RESULTS table); the core reads no revision
    // the host let through unchecked.
    const store = {
      load: () => ({ bytes: new TextEncoder().encode('{}\n'), revision: 'r'.repeat(1025) }),
      commit: () => ({ revision: 'r1' }),
      remove: () => 'deleted',
    };
    const { term, runtime } = await startTerminal({
      fetch: fakeFetch([]).fetch,
      env: { AI_GATEWAY_API_KEY: 'k' },
      oauthSessionStore: store,
      openUrl: () => true,
    });
    try {
      await until(term, (_, all) => /sign-in could not be read/.test(all), { what: 'the notice' });
      assert.match(allText(term).replace(/\s+/g, ' '), /oauthSessionStore\.load\(\) returned a record with a revision longer than 1 KiB/);
    } finally {
      runtime.abort();
    }
  });

  test('without oauthSessionStore and openUrl, /login explains what is missing', async () => {
    const { term, runtime } = await startTerminal({ fetch: fakeFetch([]).fetch, env: { AI_GATEWAY_API_KEY: 'k' } });
    runtime.write('/login\r');
    await contains(term, 'oauthSessionStore and openUrl');
    runtime.abort();
  });
});
