// A loopback fake of Vercel's OAuth endpoints (OpenID discovery, device authorization, token,
// revocation, teams) for tests of `/login`, `/logout` and token refresh. Point fx at it with
// `env.FX_E2E_OAUTH_ISSUER_URL = fake.issuer`; fx accepts only loopback http issuers there.
//
//   import { startFakeOAuth } from '../support/fake-oauth.mjs';
//   const fake = await startFakeOAuth({ pendingPolls: 2 });
//   ... createFxTerminal({ env: { FX_E2E_OAUTH_ISSUER_URL: fake.issuer }, ... }) ...
//   await fake.close();
//
// Every response carries permissive CORS headers and OPTIONS preflights are answered, so a page
// served from another port (a Playwright test of the try page) can call it with `fetch`.
//
// startFakeOAuth(options) → Promise<fake>. Options (all optional):
//   pendingPolls   number of device-token polls answered `authorization_pending` before the
//                  login is approved automatically (default 2, so the 3rd poll succeeds).
//                  `Infinity` waits for approve() / deny() / expire().
//   slowDownPolls  how many of those pending answers are `slow_down` instead (default 0; they
//                  come first).
//   outcome        what happens after the pending polls: 'approve' (default), 'deny', 'expire'.
//   team           one team `{ id, slug, name }` listed by GET /v2/teams (shorthand for teams).
//   teams          the teams listed by GET /v2/teams (default []).
//   userCode       the user code shown (default 'TEST-CODE').
//   interval       polling interval in seconds (default 1; fx never polls faster than 1 s).
//   expiresIn      device code lifetime in seconds (default 60).
//   tokenTtl       access token lifetime in seconds, `expires_in` (default 3600). A value under
//                  60 makes fx refresh the token before its next gateway request.
//   rotateRefresh  issue a new refresh token on each refresh grant (default true).
//   revokeStatus   HTTP status of the revocation endpoint (default 200).
//   refreshStatus  HTTP status of refresh grants (default 200; other values answer
//                  `invalid_grant`).
//   approveOnVisit a GET of the verification page (`/oauth/device`, what `openUrl` receives)
//                  approves the login, like a user clicking "Allow" (default false; the page
//                  is served either way).
//   accessToken, refreshToken   fixed token values instead of random ones (each refresh then
//                  issues `<accessToken>-<n>` for the n-th refresh), for hosts that want to recognise them.
//
// The fake (live values):
//   issuer         'http://127.0.0.1:PORT', the FX_E2E_OAUTH_ISSUER_URL value.
//   accessToken    the access token issued last (undefined before approval).
//   refreshToken   the refresh token issued last.
//   issuedTokens   every access and refresh token issued so far (for leak scans).
//   deviceCode     the device code (a secret too).
//   polls          device-token polls received.
//   refreshes      refresh grants received.
//   revoked        tokens posted to the revocation endpoint, in order.
//   requests       [{ method, path, body, form, authorization }] for every non-OPTIONS request
//                  (`body` is the raw text, `form` the parsed form fields).
//   approve(), deny(), expire()   decide a pending login (for pendingPolls: Infinity).
//   close()        stops the server (Promise).

import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  // `*` would not cover `authorization`, so the headers fx sends are named.
  'access-control-allow-headers': 'authorization, content-type, accept',
  'access-control-max-age': '600',
};

function token(kind) {
  return `fxtest_${kind}_${randomBytes(12).toString('hex')}`;
}

export async function startFakeOAuth(options = {}) {
  const {
    pendingPolls = 2,
    slowDownPolls = 0,
    outcome = 'approve',
    userCode = 'TEST-CODE',
    interval = 1,
    expiresIn = 60,
    tokenTtl = 3600,
    rotateRefresh = true,
    revokeStatus = 200,
    refreshStatus = 200,
    approveOnVisit = false,
  } = options;
  const teams = options.teams ?? (options.team ? [options.team] : []);
  const state = {
    polls: 0,
    refreshes: 0,
    revoked: [],
    requests: [],
    issuedTokens: [],
    accessToken: undefined,
    refreshToken: undefined,
    decision: null,
    deviceCode: token('device'),
    granted: false,
  };
  let issuer = '';

  const issue = () => {
    state.accessToken = options.accessToken
      ? state.refreshes === 0
        ? options.accessToken
        : `${options.accessToken}-${state.refreshes}`
      : token('access');
    state.issuedTokens.push(state.accessToken);
    return state.accessToken;
  };

  const send = (res, status, body) => {
    res.writeHead(status, { ...CORS, 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  const deviceToken = (res, form) => {
    state.polls += 1;
    if (form.device_code !== state.deviceCode) return send(res, 400, { error: 'invalid_grant' });
    if (state.granted) return send(res, 400, { error: 'invalid_grant' });
    let decision = state.decision;
    if (!decision && state.polls > pendingPolls) decision = outcome;
    if (decision === 'deny') return send(res, 400, { error: 'access_denied' });
    if (decision === 'expire') return send(res, 400, { error: 'expired_token' });
    if (decision === 'approve') {
      state.granted = true;
      const access = issue();
      state.refreshToken = options.refreshToken ?? token('refresh');
      state.issuedTokens.push(state.refreshToken);
      return send(res, 200, {
        access_token: access,
        refresh_token: state.refreshToken,
        expires_in: tokenTtl,
        scope: 'openid offline_access',
        token_type: 'Bearer',
      });
    }
    return send(res, 400, { error: state.polls <= slowDownPolls ? 'slow_down' : 'authorization_pending' });
  };

  const refreshGrant = (res, form) => {
    state.refreshes += 1;
    if (refreshStatus !== 200 || !state.refreshToken || form.refresh_token !== state.refreshToken) {
      return send(res, refreshStatus === 200 ? 400 : refreshStatus, { error: 'invalid_grant' });
    }
    const access = issue();
    const body = { access_token: access, expires_in: tokenTtl, scope: 'openid offline_access', token_type: 'Bearer' };
    if (rotateRefresh) {
      state.refreshToken = token('refresh');
      state.issuedTokens.push(state.refreshToken);
      body.refresh_token = state.refreshToken;
    }
    return send(res, 200, body);
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS);
        res.end();
        return;
      }
      const path = new URL(req.url, issuer).pathname;
      const form = Object.fromEntries(new URLSearchParams(raw));
      const authorization = req.headers.authorization ?? null;
      state.requests.push({ method: req.method, path, body: raw, form, authorization });
      if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
        return send(res, 200, {
          issuer,
          device_authorization_endpoint: `${issuer}/login/oauth/device-authorization`,
          token_endpoint: `${issuer}/login/oauth/token`,
          revocation_endpoint: `${issuer}/login/oauth/revoke`,
        });
      }
      if (req.method === 'POST' && path === '/login/oauth/device-authorization') {
        return send(res, 200, {
          device_code: state.deviceCode,
          user_code: userCode,
          verification_uri: `${issuer}/oauth/device`,
          verification_uri_complete: `${issuer}/oauth/device?user_code=${encodeURIComponent(userCode)}`,
          expires_in: expiresIn,
          interval,
        });
      }
      if (req.method === 'POST' && path === '/login/oauth/token') {
        if (form.grant_type === 'urn:ietf:params:oauth:grant-type:device_code') return deviceToken(res, form);
        if (form.grant_type === 'refresh_token') return refreshGrant(res, form);
        return send(res, 400, { error: 'unsupported_grant_type' });
      }
      if (req.method === 'POST' && path === '/login/oauth/revoke') {
        if (form.token) state.revoked.push(form.token);
        return send(res, revokeStatus, revokeStatus === 200 ? {} : { error: 'server_error' });
      }
      if (req.method === 'GET' && path === '/oauth/device') {
        if (approveOnVisit && !state.decision) state.decision = 'approve';
        res.writeHead(200, { ...CORS, 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><title>fx test sign-in</title><p>Code ${userCode}: ${approveOnVisit ? 'approved' : 'waiting'}.</p>`);
        return undefined;
      }
      if (req.method === 'GET' && path === '/v2/teams') {
        if (!state.accessToken || authorization !== `Bearer ${state.accessToken}`) {
          return send(res, 403, { error: { code: 'forbidden' } });
        }
        return send(res, 200, { teams });
      }
      return send(res, 404, { error: 'not_found' });
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  issuer = `http://127.0.0.1:${server.address().port}`;

  return {
    issuer,
    get accessToken() {
      return state.accessToken;
    },
    get refreshToken() {
      return state.refreshToken;
    },
    get issuedTokens() {
      return state.issuedTokens;
    },
    get deviceCode() {
      return state.deviceCode;
    },
    get polls() {
      return state.polls;
    },
    get refreshes() {
      return state.refreshes;
    },
    revoked: state.revoked,
    requests: state.requests,
    approve() {
      state.decision = 'approve';
    },
    deny() {
      state.decision = 'deny';
    },
    expire() {
      state.decision = 'expire';
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
