// Soak test (opt-in, not part of scripts/test.sh): one agent through many turns with random
// faults, checking after each turn that no recorded turn is lost and, at the end, that memory
// stayed flat.
//
//   npm run build && node --expose-gc tests/soak/agent-soak.mjs [--turns 10000] [--seed 1]
//
// Faults, drawn per turn from a seeded generator:
//   model    a cut stream (retried, or the turn fails once text reached the user), a 500, a
//            network error, a reply that stalls until the turn is cancelled, a tool call
//   store    a failing commit or append, a revision conflict (the agent forks), a slow call,
//            a call slower than the adapter deadline whose write lands late
//   agent    abort() (a new agent then opens the session from the store, with what
//            `session.unsaved` reported written back, as a host would)
// Invariant after each turn: the session the agent holds, read from the store (after a failed
// commit: at the next turn that stored), lists every turn the agent recorded, in order. A new
// session starts every `--per-session` turns; the old one is checked once more and removed, so
// the figures measure the agent and not the store.

import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

import { createFxAgent, memorySessionStore, readSession } from '../../pkg/index.js';

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const TURNS = Number(args.get('turns') ?? 10000);
const SEED = Number(args.get('seed') ?? 1);
const PER_SESSION = Number(args.get('per-session') ?? 100);
const ADAPTER_TIMEOUT_MS = 200;

// mulberry32: a small seeded generator, so a failing run can be repeated.
let state = SEED >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (table) => {
  let r = random();
  for (const [p, value] of table) {
    if (r < p) return value;
    r -= p;
  }
  return table.at(-1)[1];
};
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const faults = new Map();
const count = (name) => faults.set(name, (faults.get(name) ?? 0) + 1);

// ---- The model: a fake AI Gateway behind `fetch` ----------------------------------------------

const encoder = new TextEncoder();
const CATALOG = { object: 'list', data: [{ id: 'soak/model', type: 'language', released: 2, tags: ['tool-use'], context_window: 1000000 }] };
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
const finish = (unified = 'stop') => ({ type: 'finish', finishReason: { unified, raw: unified }, usage: { inputTokens: { total: 10 }, outputTokens: { total: 3 } } });

/** What the next model request answers: set per turn, consumed per request. */
let replies = [];
let onStall = null;
let requests = 0;

async function fetch(url, init = {}) {
  if ((init.method ?? 'GET') === 'GET') return new Response(JSON.stringify(CATALOG), { status: 200 });
  requests += 1;
  const reply = replies.shift() ?? { kind: 'text' };
  const body = (start) => new Response(new ReadableStream({ start }), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  switch (reply.kind) {
    case 'network':
      throw new TypeError('fetch failed');
    case 'status':
      return new Response('{"error":{"message":"upstream failed","type":"internal_error"}}', { status: 500 });
    case 'cut':
      // Headers and maybe some text, then the connection drops.
      return body((c) => {
        if (reply.text) c.enqueue(encoder.encode(sse([{ type: 'text-delta', id: 't', delta: 'partial ' }]).replace('data: [DONE]\n\n', '')));
        c.error(new TypeError('terminated'));
      });
    case 'stall':
      return body((c) => {
        c.enqueue(encoder.encode(`data: ${JSON.stringify({ type: 'text-delta', id: 't', delta: 'thinking…' })}\n\n`));
        init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
        onStall?.();
      });
    case 'tool':
      return body((c) => {
        const call = { type: 'tool-call', toolCallId: `c${requests}`, toolName: 'terminal', input: JSON.stringify({ action: 'exec', command: 'echo soak' }) };
        c.enqueue(encoder.encode(sse([{ type: 'text-delta', id: 't', delta: 'Running. ' }, call, finish('tool-calls')])));
        c.close();
      });
    default:
      return body((c) => {
        c.enqueue(encoder.encode(sse([{ type: 'text-delta', id: 't', delta: `reply ${requests}` }, finish()])));
        c.close();
      });
  }
}

const workspace = {
  info: { version: 1, root: '/workspace', cwd: '/workspace', home: '/home/soak', gitAvailable: false, ephemeral: true },
  permission: 'allow-sandboxed',
  async exec() {
    if (random() < 0.1) throw new Error('workspace down');
    return { stdout: 'soak\n', stderr: '', exitCode: 0 };
  },
};

// ---- The session store: memorySessionStore with faults -----------------------------------------

const inner = memorySessionStore();
/** The store fault of the current turn: applied to its first commit or append. */
let storeFault = null;
const conflict = () => Object.assign(new Error('revision conflict (injected)'), { code: 'FX_SESSION_REVISION_CONFLICT' });
const write = (method) => async (id, bytes, expected) => {
  const fault = storeFault;
  storeFault = null;
  if (fault === 'fail') throw new Error(`sessionStore.${method} failed (injected)`);
  if (fault === 'conflict') throw conflict();
  if (fault === 'slow') await delay(5 + random() * 20);
  if (fault === 'late') {
    // Slower than the deadline: the agent gives up on this call, and the write lands later.
    const copy = bytes.slice();
    await delay(ADAPTER_TIMEOUT_MS + 50);
    return inner[method](id, copy, expected);
  }
  return inner[method](id, bytes, expected);
};
const sessionStore = {
  load: (id) => inner.load(id),
  list: () => inner.list(),
  remove: (id) => inner.remove(id),
  commit: write('commit'),
  append: write('append'),
};

// ---- The run -------------------------------------------------------------------------------------

const unsaved = new Map();
const onEvent = (event) => {
  if (event.type === 'session.unsaved') unsaved.set(event.sessionId, event.bytes);
};
const open = () => createFxAgent({ fetch, env: { AI_GATEWAY_API_KEY: 'soak-key' }, workspace, sessionStore, onEvent, adapterTimeoutMs: ADAPTER_TIMEOUT_MS });

const storedPrompts = async (id) => {
  const record = await inner.load(id);
  if (!record) return [];
  const view = await readSession(record.bytes);
  return view.turns.filter((t) => t.user).map((t) => t.user.text ?? JSON.stringify(t.user));
};

let agent = await open();
let session = await agent.createSession();
/** The prompts of the turns the agent recorded in the current session, in order. */
let expected = [];
/** Set when a commit failed: the store may lag until a turn stores again. */
let lagging = false;
const outcome = new Map();
let lost = 0;
let checks = 0;
let forks = 0;
let aborts = 0;

const gc = globalThis.gc ?? (() => {});
const memory = async () => {
  gc();
  await delay(0);
  gc();
  const glue = await import('../../pkg/fx-core.js');
  return { heapMiB: process.memoryUsage().heapUsed / 2 ** 20, wasmMiB: (await glue.default()).memory.buffer.byteLength / 2 ** 20 };
};
let start = null;
const began = performance.now();

async function verify(where) {
  checks += 1;
  const stored = await storedPrompts(session.id);
  const missing = expected.filter((p) => !stored.includes(p));
  if (missing.length > 0 || stored.length !== expected.length) {
    lost += missing.length;
    assert.fail(
      `${where}: session ${session.id} stores ${stored.length} turns, the agent recorded ${expected.length}; missing ${JSON.stringify(missing.slice(0, 5))}, stored ${JSON.stringify(stored.slice(-5))}`,
    );
  }
}

for (let turn = 1; turn <= TURNS; turn += 1) {
  if (turn === 101) start = await memory();
  const prompt = `soak turn ${turn}`;
  const model = pick([
    [0.6, 'text'],
    [0.1, 'tool'],
    [0.08, 'cut'],
    [0.04, 'cut-text'],
    [0.06, 'status'],
    [0.06, 'network'],
    [0.06, 'stall'],
  ]);
  replies = model === 'tool' ? [{ kind: 'tool' }, { kind: 'text' }] : model === 'cut-text' ? [{ kind: 'cut', text: true }] : [{ kind: model }];
  if (model !== 'text') count(`model: ${model}`);
  storeFault = pick([
    [0.8, null],
    [0.06, 'fail'],
    [0.04, 'conflict'],
    [0.08, 'slow'],
    [0.02, 'late'],
  ]);
  if (storeFault) count(`store: ${storeFault}`);
  const before = session.id;

  const running = session.prompt(prompt);
  let cancelled = false;
  if (model === 'stall') {
    onStall = () => {
      onStall = null;
      cancelled = true;
      running.cancel();
    };
  }
  if (random() < 0.002) {
    // abort() in the middle of the turn, then a new agent on the same stores, as after a crash.
    count('agent: abort');
    aborts += 1;
    await delay(random() * 5);
    agent.abort();
    await running.result.catch(() => {});
    await delay(ADAPTER_TIMEOUT_MS + 100); // late writes land
    const id = session.id;
    const kept = unsaved.get(id);
    unsaved.delete(id);
    if (kept) {
      // The host keeps what the agent could not store.
      const current = await inner.load(id);
      await inner.commit(id, kept, current?.revision);
    }
    agent = await open();
    session = await agent.openSession(id);
    const stored = await storedPrompts(id);
    // The aborted turn may or may not have been recorded; every turn before it must be.
    const earlier = expected.filter((p) => !stored.includes(p));
    if (earlier.length > 0) {
      lost += earlier.length;
      assert.fail(`after abort(): session ${id} lost ${JSON.stringify(earlier)}`);
    }
    expected = stored;
    lagging = false;
    continue;
  }

  let result;
  try {
    result = { ok: await running.result };
  } catch (error) {
    result = { error };
  }
  onStall = null;
  if (session.id !== before) forks += 1;
  const code = result.ok ? `stop: ${result.ok.stopReason}` : `error: ${result.error.code ?? result.error.message}`;
  outcome.set(code, (outcome.get(code) ?? 0) + 1);
  expected.push(prompt);
  const storeFailed = !result.ok && ['FX_SESSION_STORE_FAILED', 'FX_ADAPTER_TIMEOUT'].includes(result.error.code);
  if (cancelled && result.ok) assert.equal(result.ok.stopReason, 'cancelled');
  if (storeFailed) {
    // The session keeps the turn; the next commit that succeeds stores it.
    lagging = true;
  } else {
    await verify(lagging ? `turn ${turn} (after a failed commit)` : `turn ${turn}`);
    lagging = false;
  }

  if (turn % PER_SESSION === 0) {
    await session.close();
    const kept = unsaved.get(session.id);
    if (kept) {
      unsaved.delete(session.id);
      const current = await inner.load(session.id);
      await inner.commit(session.id, kept, current?.revision);
    }
    await delay(ADAPTER_TIMEOUT_MS + 100);
    await verify(`end of session at turn ${turn}`);
    for (const { id } of await inner.list()) await inner.remove(id);
    session = await agent.createSession();
    expected = [];
    lagging = false;
  }
  if (turn % 1000 === 0) {
    const m = await memory();
    console.log(`turn ${turn}: ${((performance.now() - began) / 1000).toFixed(0)} s, heap ${m.heapMiB.toFixed(1)} MiB, wasm ${m.wasmMiB.toFixed(1)} MiB, ${requests} model requests`);
  }
}

await agent.close();
const end = await memory();
console.log(`\n${TURNS} turns (seed ${SEED}), ${requests} model requests, ${checks} checks, ${forks} forks, ${aborts} aborts, turns lost: ${lost}`);
console.log('faults injected:');
for (const [name, n] of [...faults].sort()) console.log(`  ${name.padEnd(20)} ${n}`);
console.log('turn outcomes:');
for (const [name, n] of [...outcome].sort()) console.log(`  ${name.padEnd(36)} ${n}`);
if (start) {
  console.log(`memory after turn 100: heap ${start.heapMiB.toFixed(1)} MiB, wasm ${start.wasmMiB.toFixed(1)} MiB`);
  console.log(`memory at the end:     heap ${end.heapMiB.toFixed(1)} MiB, wasm ${end.wasmMiB.toFixed(1)} MiB`);
  // Flat: what a leak of a few hundred bytes a turn would pass over 10,000 turns.
  assert.ok(end.heapMiB - start.heapMiB < 2, 'the JS heap grew by 2 MiB or more');
  assert.ok(end.wasmMiB - start.wasmMiB < 1, 'wasm memory grew by 1 MiB or more');
}
assert.equal(lost, 0);
