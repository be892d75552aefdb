// A remote MCP server for tests (fxbot DESIGN §9.3, §15.2): Streamable HTTP on 127.0.0.1 with the
// CORS headers a browser needs (it allows the client's headers and exposes Mcp-Session-Id and
// WWW-Authenticate). It keeps real state: the versions it speaks, the sessions it gave (a request
// of a forgotten session gets 404), its tools, every request it saw with its headers, and the
// client's answers to a request of its own (`asks: true` sends one before each streamed answer).
//
// With `oauth: true` it is also its own authorization server: protected-resource metadata,
// RFC 8414 metadata, dynamic client registration, an authorize page (an Approve link, or an
// immediate redirect with `autoApprove`), and a token endpoint that verifies PKCE S256, the
// redirect URI and the resource, refuses a replayed code, and refreshes. The MCP endpoint then
// wants a bearer it issued (401 with `WWW-Authenticate: Bearer resource_metadata=…` otherwise).

import { createHash } from 'node:crypto';
import http from 'node:http';

export const DEFAULT_TOOLS = [
  {
    name: 'search',
    title: 'Search issues',
    description: 'Finds issues by words.',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'close_issue',
    description: 'Closes an issue.',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } } },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
];

const CORS_HEADERS = {
  'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-api-key',
  'access-control-expose-headers': 'Mcp-Session-Id, WWW-Authenticate',
  'access-control-max-age': '600',
};

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the server. Options: `versions` it speaks (newest first), `tools`, `sse` (answer
 * requests as an event stream), `asks` (send a request of its own first, on the stream).
 * Resolves `{ url, state, forgetSessions(), close() }`.
 */
export async function startFakeMcp({
  versions = ['2025-11-25', '2025-06-18', '2025-03-26'],
  tools = DEFAULT_TOOLS,
  sse = false,
  asks = false,
  oauth = false,
  autoApprove = false,
} = {}) {
  const state = {
    versions, tools, sse, asks, seen: [], sessions: new Set(), next: 0, calls: [], answers: [],
    oauth, autoApprove, clients: new Map(), requests: new Map(), codes: new Map(), access: new Set(),
    refresh: new Set(), tokenCalls: [], authorizeQueries: [],
  };
  let base = '';
  const issue = () => {
    const n = ++state.next;
    const access = `at-${n}-${Math.random().toString(36).slice(2)}`;
    const refresh = `rt-${n}-${Math.random().toString(36).slice(2)}`;
    state.access.add(access);
    state.refresh.add(refresh);
    return { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh };
  };
  const server = http.createServer(async (req, res) => {
    const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', ...CORS_HEADERS };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const url = new URL(req.url, base);
    const sendJson = (status, body) => {
      res.writeHead(status, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (state.oauth && url.pathname !== '/mcp') {
      if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
        sendJson(200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['issues:read'] });
        return;
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        sendJson(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          code_challenge_methods_supported: ['S256'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
        });
        return;
      }
      if (url.pathname === '/register' && req.method === 'POST') {
        const body = JSON.parse(await readBody(req));
        const clientId = `client-${state.clients.size + 1}`;
        state.clients.set(clientId, body);
        sendJson(201, { client_id: clientId, ...body });
        return;
      }
      if (url.pathname === '/authorize') {
        const q = Object.fromEntries(url.searchParams);
        state.authorizeQueries.push(q);
        const client = state.clients.get(q.client_id);
        const ok = client && client.redirect_uris.includes(q.redirect_uri) && q.code_challenge_method === 'S256'
          && q.code_challenge && q.state && q.resource === `${base}/mcp` && q.response_type === 'code';
        if (!ok) {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end('bad authorization request');
          return;
        }
        const id = `req-${state.requests.size + 1}`;
        state.requests.set(id, q);
        if (state.autoApprove) {
          res.writeHead(302, { location: `/approve?request=${id}` });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><title>Sign in to fake-mcp</title><h1>Allow fxbot to use fake-mcp?</h1><a id="approve" href="/approve?request=${id}">Approve</a>`);
        return;
      }
      if (url.pathname === '/approve') {
        const q = state.requests.get(url.searchParams.get('request'));
        if (!q) {
          res.writeHead(400);
          res.end();
          return;
        }
        const code = `code-${Math.random().toString(36).slice(2)}`;
        state.codes.set(code, { ...q, used: false });
        const target = new URL(q.redirect_uri);
        target.searchParams.set('code', code);
        target.searchParams.set('state', q.state);
        res.writeHead(302, { location: target.href });
        res.end();
        return;
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
        state.tokenCalls.push(form);
        if (form.grant_type === 'authorization_code') {
          const grant = state.codes.get(form.code);
          if (!grant || grant.used) {
            sendJson(400, { error: 'invalid_grant', error_description: 'code unknown or used' });
            return;
          }
          grant.used = true;
          const challenge = createHash('sha256').update(form.code_verifier ?? '').digest('base64url');
          if (challenge !== grant.code_challenge || form.redirect_uri !== grant.redirect_uri
            || form.client_id !== grant.client_id || form.resource !== `${base}/mcp`) {
            sendJson(400, { error: 'invalid_grant', error_description: 'PKCE, redirect, client or resource mismatch' });
            return;
          }
          sendJson(200, issue());
          return;
        }
        if (form.grant_type === 'refresh_token' && state.refresh.has(form.refresh_token)) {
          state.refresh.delete(form.refresh_token);
          sendJson(200, issue());
          return;
        }
        sendJson(400, { error: 'invalid_grant' });
        return;
      }
      res.writeHead(404, cors);
      res.end();
      return;
    }
    if (state.oauth) {
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!state.access.has(bearer)) {
        res.writeHead(401, {
          ...cors,
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'unauthorized' } }));
        return;
      }
    }
    if (req.method !== 'POST') {
      res.writeHead(405, cors);
      res.end();
      return;
    }
    const text = await readBody(req);
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      res.writeHead(400, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
      return;
    }
    const method = message.method ?? 'answer';
    state.seen.push({ method, headers: { ...req.headers }, body: message });
    const json = (status, body, extra = {}) => {
      res.writeHead(status, { ...cors, 'content-type': 'application/json', ...extra });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    if (method === 'initialize') {
      const asked = message.params?.protocolVersion;
      if (!state.versions.includes(asked)) {
        json(400, { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `unsupported protocol version ${asked}` } });
        return;
      }
      const session = `session-${++state.next}`;
      state.sessions.add(session);
      json(
        200,
        { jsonrpc: '2.0', id: message.id, result: { protocolVersion: asked, capabilities: { tools: {} }, serverInfo: { name: 'fake-mcp', version: '1.0.0' } } },
        { 'mcp-session-id': session },
      );
      return;
    }
    const session = req.headers['mcp-session-id'];
    if (!session || !state.sessions.has(session)) {
      json(404, { jsonrpc: '2.0', id: message.id ?? null, error: { code: -32001, message: 'session not found' } });
      return;
    }
    if (method === 'answer') {
      state.answers.push(message);
      res.writeHead(202, cors);
      res.end();
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202, cors);
      res.end();
      return;
    }
    let result;
    if (method === 'tools/list') {
      result = { tools: state.tools };
    } else if (method === 'tools/call') {
      const { name, arguments: args } = message.params ?? {};
      state.calls.push({ name, arguments: args, headers: { ...req.headers } });
      const tool = state.tools.find((t) => t.name === name);
      result = tool
        ? { content: [{ type: 'text', text: `${name} found 2 issues for ${JSON.stringify(args)}` }] }
        : { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
    } else {
      json(200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${method}` } });
      return;
    }
    const answer = { jsonrpc: '2.0', id: message.id, result };
    if (!state.sse) {
      json(200, answer);
      return;
    }
    res.writeHead(200, { ...cors, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (state.asks) {
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} })}\n\n`);
    }
    const data = JSON.stringify(answer);
    // Split across writes, as a network would.
    const half = Math.floor(data.length / 2);
    res.write(`event: message\ndata: ${data.slice(0, half)}`);
    setTimeout(() => {
      res.end(`${data.slice(half)}\n\n`);
    }, 5);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    base,
    state,
    forgetSessions: () => state.sessions.clear(),
    /** Every access token stops working (a refresh gets a new one). */
    revokeAccess: () => state.access.clear(),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
