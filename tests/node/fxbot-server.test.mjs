// fxbot's server (issue 23): createFxbotServer's handler, listen() on a loopback port and
// connectFxbot. The event stream (every line once, in order, across a reconnect after each
// event; a heartbeat while a turn is silent; a client that goes away does not stop the turn) and
// the security rules (no route without authorize, a refused request changes nothing, a 30 MiB
// body refused before it is read whole, an HTML library file served so it cannot run script,
// no provider key in any response). The model is a fake fetch on a loopback URL (never dialled).

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';

import { memorySessionStore } from '../../pkg/node.js';
import { createFxbot, memoryFxbotStore } from '../../pkg/fxbot/node.js';
import { connectFxbot } from '../../pkg/fxbot/client.js';
import { createFxbotServer, DEFAULT_MAX_BODY_BYTES, listen } from '../../pkg/fxbot/server-node.js';
import { CHAT_URL } from '../support/fxbot-follow.mjs';

const TOKEN = 'Bearer good';
const SECRET = 'sk-test-SECRET-0123456789';
const authorize = (request) => request.headers.get('authorization') === TOKEN;
const auth = { authorization: TOKEN };
const enc = (s) => new TextEncoder().encode(s);
const b64 = (s) => Buffer.from(s).toString('base64');

/**
 * A model fetch whose replies the test drives: each chat request takes the next script, a list
 * of steps `{ text }` (one delta) or `{ waitFor: promise }`; it then finishes.
 */
function scriptedModel() {
  const scripts = [];
  let requests = 0;
  const fetch = async (url, init) => {
    if (!String(url).startsWith(CHAT_URL)) return globalThis.fetch(url, init);
    requests += 1;
    const steps = scripts.shift() ?? [{ text: 'ok' }];
    const body = new ReadableStream({
      async start(controller) {
        for (const step of steps) {
          if (step.waitFor) await step.waitFor;
          else controller.enqueue(enc(`data: ${JSON.stringify({ type: 'text-delta', id: 't', delta: step.text })}\n\n`));
        }
        controller.enqueue(
          enc(
            'data: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":3},"outputTokens":{"total":3}}}\n\ndata: [DONE]\n\n',
          ),
        );
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, scripts, requests: () => requests };
}

async function setup({ heartbeatMs = 15_000, maxBodyBytes } = {}) {
  const model = scriptedModel();
  const store = memoryFxbotStore();
  const sessionStore = memorySessionStore();
  const fxbot = await createFxbot({ store, sessionStore, fetch: model.fetch, env: { FX_GATEWAY_CHAT_URL: CHAT_URL } });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: SECRET, model: 'test/model' });
  await fxbot.settings.update({ defaultProvider: provider.id });
  const bot = await fxbot.bots.create({ name: 'Ada' });
  const seen = [];
  const handler = createFxbotServer(fxbot, {
    authorize: (request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return authorize(request);
    },
    heartbeatMs,
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
  });
  const served = await listen(handler, { port: 0 });
  return {
    model,
    store,
    sessionStore,
    fxbot,
    provider,
    bot,
    handler,
    seen,
    url: served.url,
    api: (path) => `${served.url}/api${path}`,
    async close() {
      await fxbot.close();
      await served.close();
    },
  };
}

/** Reads SSE events from a fetch Response body; `onEvent` returns true to stop. */
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'eof';
      buffer += decoder.decode(value, { stream: true });
      let at;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = { id: null, event: 'message', data: '', comment: null };
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) event.comment = line.slice(1).trim();
          else if (line.startsWith('id: ')) event.id = line.slice(4);
          else if (line.startsWith('event: ')) event.event = line.slice(7);
          else if (line.startsWith('data: ')) event.data += line.slice(6);
        }
        if (await onEvent(event)) return 'stopped';
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

test('createFxbotServer refuses to start without authorize', async () => {
  const fxbot = await createFxbot({ store: memoryFxbotStore(), sessionStore: memorySessionStore() });
  assert.throws(() => createFxbotServer(fxbot), /authorize/);
  assert.throws(() => createFxbotServer(fxbot, {}), /authorize/);
  assert.throws(() => createFxbotServer(fxbot, { authorize: true }), /authorize/);
  assert.ok(DEFAULT_MAX_BODY_BYTES > 22 * 1024 * 1024 && DEFAULT_MAX_BODY_BYTES < 30 * 1024 * 1024, `${DEFAULT_MAX_BODY_BYTES}`);
  await fxbot.close();
});

test('no route answers without authorize, and a refused request changes nothing', async () => {
  const s = await setup();
  const item = await s.fxbot.library.add({ name: 'a.txt', type: 'text/plain', data: b64('alpha') });
  await s.fxbot.chat.send(s.bot.id, { text: 'hi', messageId: 'm0' });
  const snapshot = async () => {
    const docs = await s.store.list('');
    const sessions = await s.sessionStore.list();
    return JSON.stringify({ docs, sessions: sessions.map((x) => x.id), requests: s.model.requests() });
  };
  // Let the turn finish, so nothing changes on its own while the refused requests run.
  for await (const line of s.fxbot.chat.stream(s.bot.id, 0)) if (line.type === 'turn_end') break;
  const before = await snapshot();
  const id = s.bot.id;
  const routes = [
    ['GET', '/bots'],
    ['POST', '/bots', { name: 'Eve' }],
    ['GET', `/bots/${id}`],
    ['PATCH', `/bots/${id}`, { name: 'Mallory' }],
    ['DELETE', `/bots/${id}`],
    ['POST', `/bots/${id}/send`, { text: 'x', messageId: 'evil' }],
    ['GET', `/bots/${id}/stream?cursor=0`],
    ['GET', `/bots/${id}/turns`],
    ['POST', `/bots/${id}/stop`],
    ['GET', `/bots/${id}/earlier`],
    ['POST', `/bots/${id}/release`],
    ['POST', '/release'],
    ['GET', '/providers/kinds'],
    ['GET', '/providers'],
    ['POST', '/providers', { kind: 'gateway', apiKey: 'k2' }],
    ['GET', `/providers/${s.provider.id}`],
    ['DELETE', `/providers/${s.provider.id}`],
    ['POST', '/sign-ins', { kind: 'vercel' }],
    ['GET', '/sign-ins/x'],
    ['POST', '/sign-ins/x/wait'],
    ['DELETE', '/sign-ins/x'],
    ['GET', '/settings'],
    ['PATCH', '/settings', { defaultProvider: '' }],
    ['GET', '/library'],
    ['POST', '/library', { name: 'b.txt', type: 'text/plain', data: b64('beta') }],
    ['GET', `/library/${item.id}`],
    ['DELETE', `/library/${item.id}`],
    ['GET', `/library/${item.id}/file`],
    ['GET', '/nothing/here'],
    ['GET', '/'],
  ];
  for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
    for (const [method, path, body] of routes) {
      const response = await fetch(path === '/' ? `${s.url}/` : s.api(path), {
        method,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      assert.equal(response.status, 401, `${method} ${path}`);
      const answer = await response.json();
      assert.deepEqual(Object.keys(answer.error).sort(), ['code', 'message', 'status']);
      assert.equal(answer.error.status, 401);
      assert.equal(answer.error.code, 'HTTP_UNAUTHORIZED');
    }
  }
  assert.equal(s.seen.length, routes.length * 2, 'authorize saw every request');
  assert.equal(await snapshot(), before, 'nothing stored changed and no model request ran');
  // A throwing authorize is a refusal too.
  const throwing = createFxbotServer(s.fxbot, {
    authorize: () => {
      throw new Error('boom');
    },
  });
  const refused = await throwing(new Request(s.api('/bots'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
  assert.equal(refused.status, 401);
  assert.equal(await snapshot(), before);
  // The same routes answer with the token.
  const ok = await fetch(s.api(`/library/${item.id}`), { headers: auth });
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).name, 'a.txt');
  await s.close();
});

test('a 30 MiB body is refused (413) before it is read whole', async () => {
  const s = await setup();
  const total = 30 * 1024 * 1024;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  // Through the handler: a streamed body without Content-Length, counted as it is pulled.
  let pulled = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (pulled >= total) {
        controller.close();
        return;
      }
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const response = await s.handler(
    new Request(s.api(`/bots/${s.bot.id}/send`), { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body, duplex: 'half' }),
  );
  assert.equal(response.status, 413);
  assert.equal((await response.json()).error.code, 'HTTP_PAYLOAD_TOO_LARGE');
  assert.ok(pulled <= DEFAULT_MAX_BODY_BYTES + 2 * chunk.byteLength, `read ${pulled} bytes of ${total}`);
  assert.ok(pulled < total);
  // Over HTTP with a declared length: refused at once, the connection closed, nothing read past the headers.
  const status = await new Promise((resolve, reject) => {
    const url = new URL(s.api(`/bots/${s.bot.id}/send`));
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-length': String(total) } },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', (error) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? null : reject(error)));
    req.write(chunk);
  });
  assert.equal(status, 413);
  // A small maxBodyBytes applies to every body.
  const tiny = createFxbotServer(s.fxbot, { authorize, maxBodyBytes: 100 });
  const big = await tiny(
    new Request(s.api('/bots'), { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(200) }) }),
  );
  assert.equal(big.status, 413);
  assert.equal((await s.fxbot.bots.list()).length, 1, 'the refused create created nothing');
  await s.close();
});

test('library files: HTML is an attachment, nosniff and sandboxed; an image is inline', async () => {
  const s = await setup();
  const html = await s.fxbot.library.add({ name: 'page.html', type: 'text/html', data: b64('<script>alert(document.cookie)</script>') });
  const response = await fetch(s.api(`/library/${html.id}/file`), { headers: auth });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type'), /^text\/html/);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  const csp = response.headers.get('content-security-policy');
  assert.match(csp, /(^|;\s*)sandbox(;|$)/);
  assert.match(csp, /default-src 'none'/);
  assert.match(response.headers.get('content-disposition'), /^attachment; filename="page.html"/);
  assert.equal(await response.text(), '<script>alert(document.cookie)</script>');
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const image = await s.fxbot.library.add({ name: 'dot ü.png', type: 'image/png', data: Buffer.from(png).toString('base64') });
  const shown = await fetch(s.api(`/library/${image.id}/file`), { headers: auth });
  assert.equal(shown.headers.get('content-type'), 'image/png');
  assert.equal(shown.headers.get('x-content-type-options'), 'nosniff');
  assert.match(shown.headers.get('content-disposition'), /^inline; .*filename\*=UTF-8''dot%20%C3%BC\.png/);
  assert.deepEqual(new Uint8Array(await shown.arrayBuffer()), png);
  // The client reads the same bytes, name and type as the fxbot does.
  const client = await connectFxbot({ url: s.url, headers: auth });
  assert.deepEqual(await client.library.read(image.id), await s.fxbot.library.read(image.id));
  const missing = await fetch(s.api('/library/000000000000/file'), { headers: auth });
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, 'FXBOT_NOT_FOUND');
  await client.close();
  await s.close();
});

test('every SSE line arrives once, in order, when the client drops after each event and reconnects with Last-Event-ID', async () => {
  const s = await setup();
  const deltas = Array.from({ length: 12 }, (_, i) => ({ text: `d${i} ` }));
  s.model.scripts.push(deltas, [{ text: 'second' }]);
  await s.fxbot.chat.send(s.bot.id, { text: 'one', messageId: 'm1' });
  const expected = [];
  for await (const line of s.fxbot.chat.stream(s.bot.id, 0)) {
    expected.push(line);
    if (line.type === 'turn_end') break;
  }
  assert.ok(expected.length >= 14);
  // Raw HTTP: one event per connection, the next one asked for with Last-Event-ID.
  const got = [];
  let lastId = null;
  for (let connections = 0; got.length < expected.length; connections++) {
    assert.ok(connections < expected.length + 5, 'too many connections');
    const response = await fetch(s.api(`/bots/${s.bot.id}/stream?cursor=0`), {
      headers: { ...auth, accept: 'text/event-stream', ...(lastId === null ? {} : { 'last-event-id': lastId }) },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type'), /^text\/event-stream/);
    await readEvents(response, (event) => {
      if (event.comment !== null || event.event !== 'message') return false;
      const line = JSON.parse(event.data);
      assert.equal(event.id, String(line.cursor), 'the event id is the cursor');
      got.push(line);
      lastId = event.id;
      return true;
    });
  }
  assert.deepEqual(got, expected);
  // connectFxbot over a fetch that cuts every response after its first event: the client
  // reconnects with Last-Event-ID and yields the same lines, then follows the next turn.
  let cuts = 0;
  const cutting = async (url, init) => {
    const response = await fetch(url, init);
    if (!String(url).includes('/stream')) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    // Where the first event with an id ends in `buffer` (-1 before it is whole).
    const firstEventEnd = () => {
      for (let pos = 0, i; (i = buffer.indexOf('\n\n', pos)) >= 0; pos = i + 2) {
        if (/^id: /m.test(buffer.slice(pos, i))) return i + 2;
      }
      return -1;
    };
    const body = new ReadableStream({
      async pull(controller) {
        for (;;) {
          const end = firstEventEnd();
          if (end >= 0) {
            controller.enqueue(enc(buffer.slice(0, end)));
            cuts += 1;
            reader.cancel().catch(() => {});
            controller.error(new TypeError('connection reset'));
            return;
          }
          const { done, value } = await reader.read();
          if (done) {
            if (buffer) controller.enqueue(enc(buffer));
            controller.close();
            return;
          }
          buffer += decoder.decode(value, { stream: true });
          // Whole blocks before any id event (comments) pass at once.
          const whole = buffer.lastIndexOf('\n\n');
          if (whole >= 0 && firstEventEnd() < 0) {
            controller.enqueue(enc(buffer.slice(0, whole + 2)));
            buffer = buffer.slice(whole + 2);
          }
        }
      },
      cancel() {
        reader.cancel().catch(() => {});
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const client = await connectFxbot({ url: s.url, headers: auth, fetch: cutting, reconnectDelayMs: 1 });
  const viaClient = [];
  for await (const line of client.chat.stream(s.bot.id, 0)) {
    viaClient.push(line);
    if (line.type === 'turn_end' && line.turn === 1) await client.chat.send(s.bot.id, { text: 'two', messageId: 'm2' });
    if (line.type === 'turn_end' && line.turn === 2) break;
  }
  assert.deepEqual(viaClient.slice(0, expected.length), expected);
  assert.deepEqual(viaClient.filter((l) => l.type === 'turn_start').map((l) => l.messageId), ['m1', 'm2']);
  const cursors = viaClient.map((l) => l.cursor);
  assert.deepEqual(cursors, [...new Set(cursors)].sort((a, b) => a - b), 'no line twice, in cursor order');
  assert.ok(cuts >= viaClient.length - 1, `the client was cut ${cuts} times`);
  await client.close();
  await s.close();
});

test('a heartbeat arrives while a turn is silent, and a client that goes away does not stop the turn', async () => {
  const s = await setup({ heartbeatMs: 40 });
  let release;
  const silence = new Promise((resolve) => {
    release = resolve;
  });
  s.model.scripts.push([{ text: 'before ' }, { waitFor: silence }, { text: 'after' }]);
  const sent = await s.fxbot.chat.send(s.bot.id, { text: 'slow', messageId: 'slow' });
  const response = await fetch(s.api(`/bots/${s.bot.id}/stream?cursor=${sent.cursor}`), { headers: auth });
  const events = [];
  await readEvents(response, (event) => {
    events.push(event);
    // Stop (drop the connection) at the second heartbeat after the first text line.
    const textAt = events.findIndex((e) => e.data.includes('"type":"text"'));
    return textAt >= 0 && events.slice(textAt).filter((e) => e.comment === 'hb').length >= 2;
  });
  const textAt = events.findIndex((e) => e.data.includes('"type":"text"'));
  assert.ok(textAt >= 0, 'the first delta came');
  assert.ok(events.slice(textAt).some((e) => e.comment === 'hb'), 'a heartbeat came while the turn was silent');
  // The client went away; the turn goes on and ends once the model speaks again.
  release();
  const lines = [];
  for await (const line of s.fxbot.chat.stream(s.bot.id, sent.cursor)) {
    lines.push(line);
    if (line.type === 'turn_end') break;
  }
  assert.equal(lines.at(-1).stopReason, 'end_turn');
  assert.equal(lines.filter((l) => l.type === 'text').map((l) => l.text).join(''), 'before after');
  const [turn] = await s.fxbot.chat.turns(s.bot.id);
  assert.equal(turn.status, 'done');
  await s.close();
});

test('no provider key in any response', async () => {
  const s = await setup();
  const client = await connectFxbot({ url: s.url, headers: auth });
  const bodies = [];
  const get = async (path) => {
    const response = await fetch(s.api(path), { headers: auth });
    bodies.push(`${path} ${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`);
  };
  await client.chat.send(s.bot.id, { text: 'hi', messageId: 'k1' });
  for await (const line of client.chat.stream(s.bot.id, 0)) if (line.type === 'turn_end') break;
  const second = await client.providers.add({ kind: 'gateway', apiKey: `${SECRET}-2`, model: 'x/y' });
  const item = await client.library.add({ name: 'n.txt', type: 'text/plain', data: b64('n') });
  for (const path of [
    '/bots',
    `/bots/${s.bot.id}`,
    `/bots/${s.bot.id}/turns`,
    `/bots/${s.bot.id}/earlier`,
    `/bots/${s.bot.id}/stream?cursor=0&follow=0`,
    '/providers',
    '/providers/kinds',
    `/providers/${s.provider.id}`,
    `/providers/${second.id}`,
    '/settings',
    '/library',
    `/library/${item.id}`,
    `/library/${item.id}/file`,
  ]) {
    await get(path);
  }
  const posted = await fetch(s.api('/providers'), {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'gateway', apiKey: `${SECRET}-3` }),
  });
  bodies.push(await posted.text());
  const all = bodies.join('\n');
  assert.ok(all.includes('"hasKey":true'), 'the providers were listed');
  assert.ok(!all.includes(SECRET), 'a provider key appeared in a response');
  assert.ok(!all.includes('SECRET'), 'part of a provider key appeared in a response');
  await client.close();
  await s.close();
});

test('the client gives the server errors as FxbotErrors; JSON and method rules', async () => {
  const s = await setup();
  const client = await connectFxbot({ url: s.url, headers: auth });
  await assert.rejects(client.bots.get('nope'), (e) => e.name === 'FxbotError' && e.status === 400 && e.code === 'FXBOT_BAD_REQUEST');
  await assert.rejects(client.bots.get('0123456789ab'), (e) => e.status === 404 && e.code === 'FXBOT_NOT_FOUND');
  const wrong = await connectFxbot({ url: s.url, headers: { authorization: 'Bearer no' } }).catch((e) => e);
  assert.equal(wrong.code, 'HTTP_UNAUTHORIZED');
  assert.equal(wrong.status, 401);
  const notJson = await fetch(s.api('/bots'), { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{' });
  assert.equal(notJson.status, 400);
  assert.equal((await notJson.json()).error.code, 'FXBOT_BAD_REQUEST');
  const method = await fetch(s.api('/settings'), { method: 'DELETE', headers: auth });
  assert.equal(method.status, 405);
  const bad = await fetch(s.api(`/bots/${s.bot.id}/stream?cursor=1.5`), { headers: auth });
  assert.equal(bad.status, 400);
  await client.close();
  await assert.rejects(client.bots.list(), (e) => e.status === 409 && e.code === 'FXBOT_CLOSED');
  await s.close();
});

test('what a browser build imports has no node: import (listen lives in server-node.js)', async () => {
  const { readFile } = await import('node:fs/promises');
  for (const file of ['server.js', 'client.js', 'postgres.js', 'index.js', 'stores.js']) {
    const text = await readFile(new URL(`../../js/fxbot/${file}`, import.meta.url), 'utf8');
    assert.doesNotMatch(text, /from\s+['"]node:|import\(\s*['"]node:/, file);
  }
  const node = await readFile(new URL('../../js/fxbot/server-node.js', import.meta.url), 'utf8');
  assert.match(node, /from 'node:http'/);
});
