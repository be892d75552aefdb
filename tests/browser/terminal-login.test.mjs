// /login with real xterm.js in Chromium, Firefox and WebKit: the page calls the loopback OAuth
// fake on another port (so CORS is exercised), stores the sign-in in IndexedDB, and a second
// terminal in the page uses the stored token without another device flow.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startFakeOAuth } from '../support/fake-oauth.mjs';
import { ENGINES, openHarness } from './engines.mjs';

for (const engine of ENGINES) {
  describe(`/login in ${engine}`, () => {
    let browser;
    let fake;

    before(async () => {
      // The login is approved when the page "visits" the verification URL, as a user would.
      fake = await startFakeOAuth({ pendingPolls: Infinity, approveOnVisit: true });
      browser = await openHarness(engine);
    });

    after(async () => {
      await browser?.close();
      await fake?.close();
    });

    test('CORS to the fake, IndexedDB store, restore in a second terminal', async () => {
      const result = await browser.page.evaluate(async (issuer) => {
        const { Terminal } = await import('/node_modules/@xterm/xterm/lib/xterm.mjs');
        const fx = await import('/pkg/index.js');
        const chats = [];
        const opened = [];
        const sse = 'data: {"type":"text-delta","id":"t","delta":"ok"}\n\ndata: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{}}\n\ndata: [DONE]\n\n';
        const fetch = (url, init) => {
          if (String(url).startsWith(issuer)) return window.fetch(url, init);
          if ((init?.method ?? 'GET') === 'GET') return Promise.resolve(new Response('{"data":[]}', { status: 200 }));
          chats.push(new Headers(init.headers).get('authorization'));
          return Promise.resolve(new Response(new TextEncoder().encode(sse), { status: 200 }));
        };
        const start = async () => {
          const host = document.createElement('div');
          document.body.append(host);
          const term = new Terminal({ cols: 100, rows: 30 });
          term.open(host);
          const runtime = await fx.createFxTerminal({
            terminal: fx.xtermAdapter(term),
            env: { FX_E2E_OAUTH_ISSUER_URL: issuer },
            fetch,
            oauthSessionStore: fx.indexedDbOAuthSessionStore({ name: 'fx.oauth.login-test' }),
            openUrl: (url) => {
              opened.push(url);
              setTimeout(() => window.fetch(url), 1500);
              return true;
            },
          });
          await runtime.interactive;
          const text = () => {
            const lines = [];
            const buffer = term.buffer.active;
            for (let y = 0; y < buffer.length; y += 1) lines.push(buffer.getLine(y).translateToString(true));
            return lines.join('\n');
          };
          const until = async (needle, ms = 8000) => {
            for (let i = 0; i < ms / 20; i += 1) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              if (text().includes(needle)) return true;
            }
            return false;
          };
          return { runtime, text, until };
        };

        const one = await start();
        one.runtime.write('/login\r');
        const code = await one.until('TEST-CODE');
        const signedIn = await one.until('signed in to Vercel');
        one.runtime.write('hello\r');
        const answered = await one.until('ok');
        const firstScreen = one.text();
        one.runtime.abort();

        const two = await start();
        const restored = await two.until('stored sign-in');
        two.runtime.write('again\r');
        await new Promise((resolve) => setTimeout(resolve, 300));
        const secondScreen = two.text();
        two.runtime.abort();
        return { code, signedIn, answered, restored, chats, opened, screens: firstScreen + '\n' + secondScreen };
      }, fake.issuer);
      assert.ok(result.code && result.signedIn && result.answered, result.screens);
      assert.ok(result.restored, result.screens);
      const pageErrors = await browser.page.errors();
      assert.deepEqual(result.opened, [`${fake.issuer}/oauth/device?user_code=TEST-CODE`]);
      assert.ok(fake.polls >= 2, `polls: ${fake.polls}`);
      assert.deepEqual(result.chats, [`Bearer ${fake.accessToken}`, `Bearer ${fake.accessToken}`]);
      for (const secret of [...fake.issuedTokens, fake.deviceCode]) {
        assert.ok(!result.screens.includes(secret), 'a token reached the screen');
        assert.ok(!pageErrors.join('\n').includes(secret));
      }
      // Browsers log every 400 as a console error; `authorization_pending` is one by design.
      const errors = pageErrors.filter((e) => !/status of 400|\b400\b.*Bad Request/.test(e));
      assert.deepEqual(errors, []);
    });
  });
}
