// examples/dev-gateway/server.mjs on a random loopback port: static files with the right MIME
// types, the demo catalog, a scripted demo turn streamed as SSE with a terminal tool call, the
// follow-ups after tool results (run through the real just-bash workspace), and proxy mode
// against a second loopback fake of the AI Gateway: the key is added upstream and never reaches
// the page. No test touches the network beyond 127.0.0.1.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { createJustBashWorkspace } from '../../examples/try/workspace.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SECRET = 'sk-dev-gateway-test-secret-0123456789';

/** Parses an SSE body into its `data:` payloads; checks the framing on the way. */
function parseSse(text) {
  assert.ok(text.endsWith('data: [DONE]\n\n'), 'the stream ends with data: [DONE]');
  const blocks = text.split('\n\n').filter(Boolean);
  return blocks.map((block) => {
    assert.match(block, /^data: /, `each event is one data: line (${block.slice(0, 40)})`);
    const payload = block.slice('data: '.length);
    return payload === '[DONE]' ? '[DONE]' : JSON.parse(payload);
  });
}

function chatRequest(prompt, tools = [{ type: 'function', name: 'terminal', inputSchema: { type: 'object' } }]) {
  return { prompt, tools, toolChoice: { type: 'auto' }, maxOutputTokens: 32000 };
}

const user = (text) => ({ role: 'user', content: [{ type: 'text', text }] });

/** Formats a workspace result the way fx's terminal tool reports a success to the model. */
function toolOutput({ stdout, stderr, exitCode }) {
  if (exitCode !== 0) {
    return JSON.stringify({ error: { type: 'tool_execution_failed', details: { exit_code: exitCode, stdout, stderr } } });
  }
  let text = 'exit_code=0\n';
  if (stdout.trim()) text += `<stdout>\n${stdout.trimEnd()}\n</stdout>\n`;
  if (stderr.trim()) text += `<stderr>\n${stderr.trimEnd()}\n</stderr>\n`;
  return text;
}

function append(prompt, events, output) {
  const text = events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('');
  const call = events.find((e) => e.type === 'tool-call');
  return [
    ...prompt,
    {
      role: 'assistant',
      content: [
        { type: 'text', text },
        { type: 'tool-call', toolCallId: call.toolCallId, toolName: 'terminal', input: JSON.parse(call.input) },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: 'terminal', output: { type: 'text', value: output } }],
    },
  ];
}

async function post(url, body, headers = {}) {
  const res = await fetch(new URL('v3/ai/language-model', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'ai-language-model-id': 'fx-demo/scripted', ...headers },
    body: JSON.stringify(body),
  });
  return { res, text: await res.text() };
}

describe('demo mode', () => {
  let gateway;
  before(async () => {
    gateway = await startDevGateway({ port: 0, demo: true, apiKey: '', demoDelayMs: 1 });
  });
  after(() => gateway?.close());

  test('listens on 127.0.0.1 and says it is in demo mode', async () => {
    assert.match(gateway.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal(gateway.mode, 'demo');
    const status = await (await fetch(new URL('dev-gateway/status', gateway.url))).json();
    assert.deepEqual(status, {
      mode: 'demo',
      demoModel: 'fx-demo/scripted',
      serverKey: false,
      chatPath: '/v3/ai/language-model',
      oauthIssuerUrl: null,
    });
  });

  test('the try page at / with the import map inlined; the viewer and agent pages stay reachable', async () => {
    const page = await (await fetch(gateway.url)).text();
    assert.match(page, /<title>fx · try it in your browser<\/title>/);
    assert.ok(!page.includes('fx:importmap'), 'the marker is replaced');
    const map = JSON.parse(page.match(/<script type="importmap">(.*?)<\/script>/s)[1]);
    assert.deepEqual(map, JSON.parse(await readFile(join(root, 'examples', 'dev-gateway', 'importmap.json'), 'utf8')));
    for (const path of ['main.js', 'try.css', 'workspace.js', 'examples/viewer/', 'examples/agent/', 'examples/shared/zip.js']) {
      const res = await fetch(new URL(path, gateway.url));
      assert.equal(res.status, 200, path);
      await res.arrayBuffer();
    }
  });

  test('every page carries the Content-Security-Policy, which allows the inlined import map by its hash', async () => {
    const res = await fetch(gateway.url);
    const policy = res.headers.get('content-security-policy');
    const page = await res.text();
    const inline = page.match(/<script type="importmap">(.*?)<\/script>/s)[1];
    const hash = createHash('sha256').update(inline, 'utf8').digest('base64');
    assert.match(policy, /^default-src 'self'; /);
    assert.ok(policy.includes(`script-src 'self' 'wasm-unsafe-eval' 'sha256-${hash}';`), policy);
    assert.ok(policy.includes("connect-src 'self' https://vercel.com https://*.vercel.com;"), policy);
    assert.ok(policy.includes("style-src 'self'; style-src-elem 'self' 'unsafe-inline';"), policy);
    for (const path of ['examples/viewer/', 'examples/agent/', 'examples/']) {
      const other = await fetch(new URL(path, gateway.url));
      await other.arrayBuffer();
      assert.match(other.headers.get('content-security-policy') ?? '', /script-src 'self' 'wasm-unsafe-eval'/, path);
    }
    const withIssuer = await startDevGateway({ port: 0, demo: true, oauthIssuerUrl: 'http://127.0.0.1:9/' });
    try {
      const issuerPolicy = (await fetch(withIssuer.url)).headers.get('content-security-policy');
      assert.ok(issuerPolicy.includes("connect-src 'self' http://127.0.0.1:9;"), issuerPolicy);
    } finally {
      await withIssuer.close();
    }
  });

  test('a request carrying its own credential still gets the demo: nothing leaves the machine', async () => {
    const { res, text } = await post(gateway.url, chatRequest([user('hi')]), {
      authorization: 'Bearer vck_visitor',
      'ai-language-model-id': 'real/model',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-fx-dev-gateway'), 'scripted-demo');
    assert.match(text, /scripted /);
  });

  test('static files with their MIME types', async () => {
    const cases = [
      ['examples/dev-gateway/server.mjs', 'text/javascript; charset=utf-8'],
      ['examples/try/workspace.js', 'text/javascript; charset=utf-8'],
      ['vendor/sprintf-js.js', 'text/javascript; charset=utf-8'],
      ['node_modules/just-bash/dist/bundle/browser.js', 'text/javascript; charset=utf-8'],
      ['node_modules/@xterm/xterm/css/xterm.css', 'text/css; charset=utf-8'],
      ['examples/dev-gateway/importmap.json', 'application/json; charset=utf-8'],
    ];
    for (const [path, type] of cases) {
      const res = await fetch(new URL(path, gateway.url));
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), type, path);
      await res.arrayBuffer();
    }
    const index = await fetch(gateway.url);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type'), /^text\/html/);
    assert.match(await index.text(), /<title>/);
  });

  test('the built package: wasm as application/wasm, JS as text/javascript', async (t) => {
    const built = await readFile(join(root, 'pkg', 'fx-core.wasm')).catch(() => null);
    if (!built) return t.skip('pkg/ is not built (npm run build)');
    const wasm = await fetch(new URL('pkg/fx-core.wasm', gateway.url));
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    assert.equal((await wasm.arrayBuffer()).byteLength, built.length);
    const js = await fetch(new URL('pkg/index.js', gateway.url));
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    await js.text();
    return undefined;
  });

  test('every import map entry is served as JavaScript', async () => {
    const { imports } = JSON.parse(await readFile(join(root, 'examples', 'dev-gateway', 'importmap.json'), 'utf8'));
    for (const [specifier, path] of Object.entries(imports)) {
      const res = await fetch(new URL(path, gateway.url));
      assert.equal(res.status, 200, `${specifier} → ${path}`);
      assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8', specifier);
      await res.arrayBuffer();
    }
  });

  test('the session viewer’s fixtures: a JSON listing of the folder, then the files', async () => {
    const listing = await fetch(new URL('tests/fixtures/fx-sessions/', gateway.url), { headers: { accept: 'application/json' } });
    assert.equal(listing.status, 200);
    const entries = await listing.json();
    assert.ok(entries.length > 0 && entries.every((e) => typeof e.name === 'string' && typeof e.directory === 'boolean'));
    const viewer = await fetch(new URL('examples/viewer/', gateway.url));
    assert.equal(viewer.status, 200);
    assert.match(viewer.headers.get('content-type'), /^text\/html/);
    await viewer.text();
  });

  test('nothing outside the served folders: other packages, traversal, the repo root', async () => {
    for (const path of ['node_modules/typescript/package.json', 'package.json', 'Cargo.toml', 'src/lib.rs', 'tests/node/stores.test.mjs']) {
      const res = await fetch(new URL(path, gateway.url));
      assert.equal(res.status, 404, path);
      await res.text();
    }
    const raw = await new Promise((resolve, reject) => {
      const req = request(new URL('/pkg/%2e%2e/package.json', gateway.url), (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(raw, 404);
  });

  test('the catalog lists the demo model', async () => {
    const res = await fetch(new URL('coding-agent/v1/models', gateway.url));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    const catalog = await res.json();
    assert.equal(catalog.object, 'list');
    assert.equal(catalog.data[0].id, 'fx-demo/scripted');
    assert.equal(catalog.data[0].type, 'language');
    assert.ok(catalog.data[0].tags.includes('tool-use'));
  });

  test('a demo turn streams text in small deltas, then calls the terminal tool', async () => {
    const { res, text } = await post(gateway.url, chatRequest([{ role: 'system', content: 'sys' }, user('hello')]));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const events = parseSse(text);
    assert.equal(events.at(-1), '[DONE]');
    const deltas = events.filter((e) => e.type === 'text-delta');
    assert.ok(deltas.length > 5, 'several deltas');
    assert.ok(deltas.every((e) => typeof e.delta === 'string' && e.delta.length > 0 && e.delta.length < 60));
    assert.match(deltas.map((e) => e.delta).join(''), /scripted demo/);
    const call = events.find((e) => e.type === 'tool-call');
    assert.equal(call.toolName, 'terminal');
    assert.deepEqual(JSON.parse(call.input), { action: 'exec', command: 'ls -la' });
    const streamed = events.filter((e) => e.type === 'tool-input-delta' && e.id === call.toolCallId).map((e) => e.delta).join('');
    assert.equal(streamed, call.input);
    const finish = events.at(-2);
    assert.equal(finish.type, 'finish');
    assert.equal(finish.finishReason.unified, 'tool-calls');
    assert.ok(Number.isInteger(finish.usage.inputTokens.total));
  });

  test('follow-ups run the script over real workspace output, then summarise it', async () => {
    const workspace = createJustBashWorkspace();
    let prompt = [{ role: 'system', content: 'sys' }, user('what is in this project?')];
    const commands = [];
    for (let step = 0; step < 3; step += 1) {
      const events = parseSse((await post(gateway.url, chatRequest(prompt))).text);
      const call = events.find((e) => e.type === 'tool-call');
      assert.ok(call, `step ${step} calls a tool`);
      const { command } = JSON.parse(call.input);
      commands.push(command);
      const result = await workspace.exec({ command, cwd: '/workspace', signal: new AbortController().signal, timeoutMs: 30000, outputLimitBytes: 65536 });
      prompt = append(prompt, events, toolOutput(result));
    }
    assert.deepEqual(commands, ['ls -la', 'cat README.md', 'grep -n TODO -r .']);
    const events = parseSse((await post(gateway.url, chatRequest(prompt))).text);
    assert.equal(events.find((e) => e.type === 'tool-call'), undefined, 'no more tool calls');
    assert.equal(events.at(-2).finishReason.unified, 'stop');
    const summary = events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('');
    assert.match(summary, /`README\.md`/);
    assert.match(summary, /`src\/`/);
    assert.match(summary, /\*tasks\*/);
    assert.match(summary, /src\/tasks\.js:\d+`: reject empty titles/);
    assert.match(summary, /src\/format\.js:\d+`: show the number of open tasks/);
    assert.match(summary, /scripted/);
  });

  test('with --demo the reply says every reply is scripted, whatever the credential', async () => {
    const events = parseSse((await post(gateway.url, chatRequest([user('hello')], []), { referer: gateway.url })).text);
    const text = events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('');
    assert.match(text, /this server runs with `--demo`/);
    assert.doesNotMatch(text, /Sign in|paste/);
  });

  test('a long output is summarised in 20 lines, and the summary says so', async () => {
    const seq = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join('\n');
    const first = parseSse((await post(gateway.url, chatRequest([user('run seq 45')]))).text);
    const prompt = append([user('run seq 45')], first, toolOutput({ stdout: `${seq}\n`, stderr: '', exitCode: 0 }));
    const summary = parseSse((await post(gateway.url, chatRequest(prompt))).text)
      .filter((e) => e.type === 'text-delta')
      .map((e) => e.delta)
      .join('');
    assert.match(summary, /line 20\n```/);
    assert.doesNotMatch(summary, /line 21/);
    assert.match(summary, /The first 20 of its 45 lines/);
  });

  test('`run <command>` runs that command; a declined command ends the turn', async () => {
    const first = parseSse((await post(gateway.url, chatRequest([user('run wc -l src/tasks.js')]))).text);
    assert.deepEqual(JSON.parse(first.find((e) => e.type === 'tool-call').input), { action: 'exec', command: 'wc -l src/tasks.js' });
    const after = append([user('run wc -l src/tasks.js')], first, toolOutput({ stdout: '21 src/tasks.js\n', stderr: '', exitCode: 0 }));
    const done = parseSse((await post(gateway.url, chatRequest(after))).text);
    assert.match(done.filter((e) => e.type === 'text-delta').map((e) => e.delta).join(''), /21 src\/tasks\.js/);

    const start = parseSse((await post(gateway.url, chatRequest([user('hello')]))).text);
    const denied = JSON.stringify({ error: { type: 'tool_permission_denied', message: 'The user declined this command.', denied: true } });
    const refusal = parseSse((await post(gateway.url, chatRequest(append([user('hello')], start, denied)))).text);
    assert.equal(refusal.find((e) => e.type === 'tool-call'), undefined);
    assert.match(refusal.filter((e) => e.type === 'text-delta').map((e) => e.delta).join(''), /declined/);
  });

  test('without a terminal tool the demo only talks', async () => {
    const events = parseSse((await post(gateway.url, chatRequest([user('hi there')], []))).text);
    assert.equal(events.find((e) => e.type === 'tool-call'), undefined);
    const text = events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('');
    assert.match(text, /scripted demo/);
    assert.match(text, /> hi there/);
  });

  test('bad requests get JSON errors', async () => {
    const notJson = await fetch(new URL('v3/ai/language-model', gateway.url), { method: 'POST', body: '{' });
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).error.type, 'invalid_request_error');
    const noPrompt = await post(gateway.url, { tools: [] });
    assert.equal(noPrompt.res.status, 400);
    const get = await fetch(new URL('v3/ai/language-model', gateway.url));
    assert.equal(get.status, 405);
    await get.text();
    const huge = await fetch(new URL('v3/ai/language-model', gateway.url), {
      method: 'POST',
      body: new Uint8Array(32 * 1024 * 1024 + 1),
    });
    assert.equal(huge.status, 413);
    assert.equal((await huge.json()).error.type, 'invalid_request_error');
  });
});

/** A loopback fake of the AI Gateway that records what it receives. */
async function startFakeUpstream() {
  const seen = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), closed: false };
      seen.push(entry);
      res.on('close', () => {
        entry.closed = true;
      });
      if (req.url === '/coding-agent/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'upstream=1' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'real/model', type: 'language' }] }));
        return;
      }
      const model = req.headers['ai-language-model-id'];
      if (model === 'fake/unauthorized') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":{"type":"authentication_error","message":"bad key"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"text-delta","delta":"from upstream"}\n\n');
      if (model === 'fake/stall') return; // Never ends: the client hangs up.
      res.end('data: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"}}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () => new Promise((done) => { server.close(done); server.closeAllConnections(); }),
  };
}

describe('proxy mode (against a loopback fake upstream)', () => {
  let upstream;
  let gateway;
  before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startDevGateway({ port: 0, apiKey: SECRET, upstream: upstream.url });
  });
  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test('chat requests without a credential of their own are forwarded with the server key; cookies are dropped', async () => {
    const body = chatRequest([user('hi')]);
    const { res, text } = await post(gateway.url, body, {
      cookie: 'session=abc',
      'x-session-id': 'sess-1',
      'ai-language-model-id': 'real/model',
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    assert.equal(text, 'data: {"type":"text-delta","delta":"from upstream"}\n\ndata: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"}}\n\ndata: [DONE]\n\n');
    const got = upstream.seen.at(-1);
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/v3/ai/language-model');
    assert.equal(got.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(got.headers.cookie, undefined);
    assert.equal(got.headers['x-session-id'], 'sess-1');
    assert.equal(got.headers['ai-language-model-id'], 'real/model');
    assert.deepEqual(JSON.parse(got.body), body);
    const everything = `${JSON.stringify([...res.headers])}${text}`;
    assert.ok(!everything.includes(SECRET), 'the key is not in the response');
  });

  test('a visitor’s own credential (a pasted key, a sign-in token) wins over the server key', async () => {
    const { res } = await post(gateway.url, chatRequest([user('hi')]), {
      authorization: 'Bearer vck_visitor-key',
      'ai-language-model-id': 'real/model',
    });
    assert.equal(res.status, 200);
    assert.equal(upstream.seen.at(-1).headers.authorization, 'Bearer vck_visitor-key');
  });

  test('the demo model is answered here whatever the credential', async () => {
    const before = upstream.seen.length;
    const { res, text } = await post(gateway.url, chatRequest([user('hi')]), { authorization: 'Bearer vck_visitor-key' });
    assert.equal(res.status, 200);
    assert.match(text, /scripted /);
    assert.equal(upstream.seen.length, before, 'nothing went upstream');
  });

  test('the catalog is forwarded too; upstream cookies are not passed back', async () => {
    const res = await fetch(new URL('coding-agent/v1/models', gateway.url));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('set-cookie'), null);
    assert.deepEqual((await res.json()).data[0].id, 'real/model');
    assert.equal(upstream.seen.at(-1).headers.authorization, `Bearer ${SECRET}`);
    assert.equal(upstream.seen.at(-1).method, 'GET');
  });

  test('upstream errors pass through; the status endpoint and pages never show the key', async () => {
    const { res, text } = await post(gateway.url, chatRequest([user('x')]), { 'ai-language-model-id': 'fake/unauthorized' });
    assert.equal(res.status, 401);
    assert.equal(JSON.parse(text).error.type, 'authentication_error');
    const status = await (await fetch(new URL('dev-gateway/status', gateway.url))).text();
    assert.deepEqual(JSON.parse(status), {
      mode: 'proxy',
      demoModel: 'fx-demo/scripted',
      serverKey: true,
      chatPath: '/v3/ai/language-model',
      oauthIssuerUrl: null,
    });
    const page = await (await fetch(gateway.url)).text();
    for (const body of [status, page, text]) assert.ok(!body.includes(SECRET));
  });

  test('a page that hangs up aborts the upstream request', async () => {
    const controller = new AbortController();
    const res = await fetch(new URL('v3/ai/language-model', gateway.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'ai-language-model-id': 'fake/stall' },
      body: JSON.stringify(chatRequest([user('x')])),
      signal: controller.signal,
    });
    const reader = res.body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /from upstream/);
    controller.abort();
    const entry = upstream.seen.at(-1);
    for (let i = 0; i < 100 && !entry.closed; i += 1) await new Promise((r) => setTimeout(r, 20));
    assert.ok(entry.closed, 'the upstream connection was closed');
  });

  test('an unreachable upstream is a 502 that does not name the key', async () => {
    const dead = await startFakeUpstream();
    await dead.close();
    const broken = await startDevGateway({ port: 0, apiKey: SECRET, upstream: dead.url });
    try {
      const { res, text } = await post(broken.url, chatRequest([user('x')]), { 'ai-language-model-id': 'real/model' });
      assert.equal(res.status, 502);
      assert.equal(JSON.parse(text).error.type, 'dev_gateway_upstream_unreachable');
      assert.ok(!text.includes(SECRET));
    } finally {
      await broken.close();
    }
  });

  test('only https or loopback http upstreams are accepted', async () => {
    await assert.rejects(startDevGateway({ port: 0, apiKey: SECRET, upstream: 'http://example.com' }), TypeError);
    await assert.rejects(startDevGateway({ port: 0, apiKey: SECRET, upstream: 'https://user:pw@example.com' }), TypeError);
  });
});

test('the command line prints the URL and honours --port / PORT and --demo', async () => {
  const { spawn } = await import('node:child_process');
  const env = { ...process.env, PORT: '0' };
  delete env.AI_GATEWAY_API_KEY;
  delete env.FX_DEV_GATEWAY_DEMO;
  delete env.FX_E2E_OAUTH_ISSUER_URL;
  for (const [args, mode] of [[['--port', '0'], 'passthrough'], [[], 'passthrough'], [['--demo'], 'demo']]) {
    const child = spawn(process.execPath, [join(root, 'examples', 'dev-gateway', 'server.mjs'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const output = await new Promise((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          if (out.includes('\n') && /demo model/.test(out)) resolve(out);
        });
        child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const url = output.match(/http:\/\/127\.0\.0\.1:\d+\//)?.[0];
      assert.ok(url, output);
      assert.match(output, /scripted demo model/);
      const status = await (await fetch(new URL('dev-gateway/status', url))).json();
      assert.equal(status.mode, mode, args.join(' '));
    } finally {
      child.kill();
    }
  }
});

describe('passthrough mode (no server key): visitors bring their own credential', () => {
  let upstream;
  let gateway;
  before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startDevGateway({
      port: 0,
      demo: false,
      apiKey: '',
      upstream: upstream.url,
      oauthIssuerUrl: 'http://127.0.0.1:9/',
      demoDelayMs: 0,
    });
  });

  test('a scripted reply names only the controls of the client that asked', async () => {
    const closing = async (headers, tools) => {
      const events = parseSse((await post(gateway.url, chatRequest([user('hello')], tools), headers)).text);
      return events.filter((e) => e.type === 'text-delta').map((e) => e.delta).join('');
    };
    const page = await closing({ referer: `${gateway.url}` }, []);
    assert.match(page, /Sign in with Vercel or paste an AI Gateway key/);
    const agent = await closing({ referer: new URL('examples/agent/', gateway.url).href }, []);
    assert.doesNotMatch(agent, /Sign in|paste/);
    assert.match(agent, /start the dev gateway with `AI_GATEWAY_API_KEY`/);
    assert.match(agent, /No workspace was given/);
    const script = await closing({}, []);
    assert.doesNotMatch(script, /Sign in|paste|page/);
    assert.match(script, /Set `AI_GATEWAY_API_KEY`/);
  });

  after(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  test('the status names the mode and the loopback OAuth issuer for tests', async () => {
    assert.equal(gateway.mode, 'passthrough');
    const status = await (await fetch(new URL('dev-gateway/status', gateway.url))).json();
    assert.equal(status.mode, 'passthrough');
    assert.equal(status.serverKey, false);
    assert.equal(status.oauthIssuerUrl, 'http://127.0.0.1:9');
  });

  test('a request with a bearer goes upstream with it; one without gets the demo', async () => {
    const withKey = await post(gateway.url, chatRequest([user('hi')]), {
      authorization: 'Bearer vck_pasted',
      'ai-language-model-id': 'real/model',
    });
    assert.equal(withKey.res.status, 200);
    assert.equal(upstream.seen.at(-1).headers.authorization, 'Bearer vck_pasted');
    const before = upstream.seen.length;
    const without = await post(gateway.url, chatRequest([user('hi')]), { 'ai-language-model-id': 'real/model' });
    assert.equal(without.res.headers.get('x-fx-dev-gateway'), 'scripted-demo');
    const catalog = await (await fetch(new URL('coding-agent/v1/models', gateway.url))).json();
    assert.equal(catalog.data[0].id, 'fx-demo/scripted');
    assert.equal(upstream.seen.length, before, 'nothing went upstream');
  });

  test('an OAuth issuer that is not loopback http is refused at start', async () => {
    for (const bad of ['https://vercel.com', 'http://example.com:8080', 'http://127.0.0.1', 'nope']) {
      await assert.rejects(startDevGateway({ port: 0, demo: true, oauthIssuerUrl: bad }), TypeError, bad);
    }
  });
});

describe('who may call the gateway', () => {
  let gateway;
  before(async () => {
    gateway = await startDevGateway({ port: 0, demo: true, apiKey: '', demoDelayMs: 0 });
  });
  after(() => gateway?.close());

  function raw(method, path, headers) {
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, gateway.url), { method, headers }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('a request for another host name (DNS rebinding) is refused', async () => {
    const port = new URL(gateway.url).port;
    const refused = await raw('GET', '/coding-agent/v1/models', { host: `evil.example:${port}` });
    assert.equal(refused.status, 403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      assert.equal((await raw('GET', '/coding-agent/v1/models', { host })).status, 200, host);
    }
  });

  test('loopback pages on another port or name get CORS; other origins do not', async () => {
    const preflight = await raw('OPTIONS', '/v3/ai/language-model', {
      origin: 'http://localhost:8787',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,ai-language-model-id,authorization',
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'http://localhost:8787');
    assert.match(preflight.headers['access-control-allow-headers'], /ai-language-model-id/);
    const foreign = await raw('OPTIONS', '/v3/ai/language-model', { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    const get = await raw('GET', '/coding-agent/v1/models', { origin: 'https://evil.example' });
    assert.equal(get.headers['access-control-allow-origin'], undefined);
  });
});
