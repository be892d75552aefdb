// "Sign in with Vercel" on the try page in Chromium: the button runs /login in the terminal,
// fx runs the device flow against the loopback fake of Vercel's OAuth endpoints
// (tests/support/fake-oauth.mjs, handed to the page through the dev gateway's
// FX_E2E_OAUTH_ISSUER_URL status), opens the verification page, stores the sign-in in
// IndexedDB, and the next model requests carry its token; a reload keeps the sign-in, and
// "Sign out" runs /logout, which revokes the tokens. The dev gateway runs with --demo, so no
// request leaves the machine; no token may show on screen or in the console.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startFakeOAuth } from '../support/fake-oauth.mjs';
import { loadTry, openTry, screen, screenshot, type, waitForIdle, waitForScreen } from './try-support.mjs';

let fake;
let t;
let page;
const consoleLines = [];

before(async () => {
  fake = await startFakeOAuth({ pendingPolls: 1 });
  t = await openTry({ gateway: { oauthIssuerUrl: fake.issuer } });
  page = await t.newPage();
  page.on('console', (msg) => consoleLines.push(msg.text()));
});

after(async () => {
  await t?.close();
  await fake?.close();
});

function secrets() {
  return [...fake.issuedTokens, fake.deviceCode].filter(Boolean);
}

async function assertNoSecrets() {
  const shown = await screen(page);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
  for (const secret of secrets()) {
    assert.ok(!shown.includes(secret), 'no token on screen');
    assert.ok(!consoleLines.join('\n').includes(secret), 'no token in the console');
    assert.ok(!stored.includes(secret), 'no token in Web Storage');
  }
}

test('Sign in with Vercel runs the device flow; requests then carry the sign-in token', async () => {
  await loadTry(page, t.url);
  assert.equal(await page.evaluate(() => document.getElementById('way-in').dataset.state), 'none');
  const popup = page.context().waitForEvent('page');
  const startsBefore = await page.evaluate(() => window.__fxTry.starts);

  await page.click('#sign-in');
  await waitForScreen(page, 'TEST-CODE');
  await screenshot(page, 'try-login.png');
  const opened = await popup;
  assert.equal(opened.url(), `${fake.issuer}/oauth/device?user_code=TEST-CODE`, 'openUrl opened the verification page');
  await opened.close();
  await waitForScreen(page, 'signed in to Vercel', { timeout: 20_000 });
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'signed-in');
  // The page restarts fx on the same session so the model follows the new way in.
  await page.waitForFunction((n) => window.__fxTry.starts > n && window.__fxTry.runtime?.sessionId, startsBefore, { timeout: 10_000 });

  const chat = new URL('v3/ai/language-model', t.url).href;
  const seen = [];
  page.on('request', (request) => {
    if (request.url() === chat) seen.push(request.headers().authorization ?? null);
  });
  await type(page, 'run echo signed-in\r');
  await waitForScreen(page, /Ran echo signed-in · exit 0/);
  await waitForIdle(page);
  assert.ok(seen.length > 0);
  assert.ok(seen.every((auth) => auth === `Bearer ${fake.accessToken}`), 'every request carries the sign-in token');
  await assertNoSecrets();
});

test('a reload keeps the sign-in; Sign out runs /logout and revokes the tokens', async () => {
  await page.reload();
  await loadTry(page, t.url);
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'signed-in');
  await page.click('#sign-out');
  await waitForScreen(page, 'Signed out');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'none');
  for (let i = 0; i < 100 && fake.revoked.length < 2; i += 1) await new Promise((r) => setTimeout(r, 50));
  assert.ok(fake.revoked.includes(fake.accessToken) && fake.revoked.includes(fake.refreshToken), 'both tokens revoked');
  assert.equal(await page.evaluate(async () => (await import('/pkg/index.js')).indexedDbOAuthSessionStore({ name: 'fx.try.oauth' }).load()), null);
  await assertNoSecrets();
  // The only errors Chromium logs are the token endpoint's 400 `authorization_pending` answers
  // (the device flow polls until the visitor approves).
  const token = `${fake.issuer}/login/oauth/token`;
  assert.deepEqual(
    t.errors.filter((e) => !(e.includes('status of 400') && e.includes(token))),
    [],
  );
});
