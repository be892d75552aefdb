// A remote MCP server for tests (fxbot DESIGN §9.3, §15.2): Streamable HTTP on 127.0.0.1 with the
// CORS headers a browser needs (it allows the client's headers and exposes Mcp-Session-Id and
// WWW-Authenticate). It keeps real state: the versions it speaks, the sessions it gave (a request
// of a forgotten session gets 404), its tools, every request it saw with its headers, and the
// client's answers to a request of its own (`asks: true` sends one before each streamed answer).

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
export async function startFakeMcp({ versions = ['2025-11-25', '2025-06-18', '2025-03-26'], tools = DEFAULT_TOOLS, sse = false, asks = false } = {}) {
  const state = { versions, tools, sse, asks, seen: [], sessions: new Set(), next: 0, calls: [], answers: [] };
  const server = http.createServer(async (req, res) => {
    const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', ...CORS_HEADERS };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
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
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    state,
    forgetSessions: () => state.sessions.clear(),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
