// The session benchmarks of the agent, runnable in Node and in a browser page alike:
//
// - resume: `openSession` of a stored session of N generated turns (tests/bench/session-gen.mjs)
//   until it resolves with its history, ready for the next prompt; and the JS heap and wasm
//   memory after it;
// - commit: a text turn on a stored session of N turns, with a store that records the bytes
//   handed to it per call: bytes per turn, and the time from `prompt()` to `turn.result`
//   (which includes the commit) and of the store calls alone.
//
// Prints nothing; returns rows for scripts/bench.mjs. Medians of `reps` runs after a warm-up.

const CATALOG = JSON.stringify({ object: 'list', data: [{ id: 'moonshotai/kimi-k3', type: 'language', context_window: 1000000 }] });
const SSE =
  'data: {"type":"text-delta","id":"t","delta":"Done."}\n\n' +
  'data: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":10},"outputTokens":{"total":2}}}\n\n' +
  'data: [DONE]\n\n';
const MiB = 1024 * 1024;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function fakeFetch(url, init = {}) {
  if ((init.method ?? 'GET') === 'GET') {
    return new Response(CATALOG, { status: 200, headers: { 'content-type': 'application/json' } });
  }
  return new Response(SSE, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** `inner` with the bytes and time of every write recorded. */
function recording(inner) {
  const writes = [];
  const timed = (method) => async (id, bytes, expected) => {
    const start = performance.now();
    const result = await inner[method](id, bytes, expected);
    writes.push({ method, bytes: bytes.byteLength, ms: performance.now() - start });
    return result;
  };
  return {
    writes,
    store: {
      load: (id) => inner.load(id),
      list: () => inner.list(),
      remove: (id) => inner.remove(id),
      commit: timed('commit'),
      ...(typeof inner.append === 'function' ? { append: timed('append') } : {}),
    },
  };
}

/**
 * A store holding the generated session of `turns` turns; returns it and the session id.
 * `indexedDb`: in `indexedDbSessionStore` (a fresh database), else in `memorySessionStore`.
 */
async function storedSession(fx, turns, indexedDb = false) {
  const { generateSession } = await import('./session-gen.mjs');
  const bytes = generateSession(turns);
  const store = indexedDb ? fx.indexedDbSessionStore({ name: `bench.${turns}.${Math.random()}` }) : fx.memorySessionStore();
  const id = (await fx.readSession(bytes)).id;
  await store.commit(id, bytes, undefined);
  return { store, id, bytes };
}

function memory() {
  const heap = globalThis.performance?.memory?.usedJSHeapSize ?? globalThis.process?.memoryUsage?.().heapUsed;
  return heap === undefined ? null : heap / MiB;
}

/** openSession of a stored `turns`-turn session: ms until it resolves. */
export async function runResumeBenchmarks({ turns = 2000, reps = 7, indexedDb = false } = {}) {
  const fx = await import('../../pkg/index.js');
  const { store, id, bytes } = await storedSession(fx, turns, indexedDb);
  const agent = await fx.createFxAgent({ fetch: fakeFetch, env: { AI_GATEWAY_API_KEY: 'bench' }, sessionStore: store });
  const runs = [];
  let history = 0;
  for (let i = 0; i <= reps; i++) {
    const start = performance.now();
    const session = await agent.openSession(id);
    const ms = performance.now() - start;
    history = session.history.length;
    if (i > 0) runs.push(ms);
  }
  const glue = await import('../../pkg/fx-core.js');
  const wasm = (await glue.default()).memory.buffer.byteLength / MiB;
  const heap = memory();
  await agent.close();
  return { turns, logMiB: bytes.length / MiB, history, resumeMs: median(runs), bestMs: Math.min(...runs), heapMiB: heap, wasmMiB: wasm };
}

/** A text turn on a stored session of each size: bytes handed to the store and times. */
export async function runCommitBenchmarks({ sizes = [10, 2000], reps = 7, withAppend = true, indexedDb = false } = {}) {
  const fx = await import('../../pkg/index.js');
  const rows = [];
  for (const turns of sizes) {
    const { store: inner, id } = await storedSession(fx, turns, indexedDb);
    const rec = recording(
      withAppend
        ? inner
        : { load: (i) => inner.load(i), commit: (i, b, r) => inner.commit(i, b, r), list: () => inner.list(), remove: (i) => inner.remove(i) },
    );
    const agent = await fx.createFxAgent({ fetch: fakeFetch, env: { AI_GATEWAY_API_KEY: 'bench' }, sessionStore: rec.store });
    const session = await agent.openSession(id);
    const runs = [];
    for (let i = 0; i <= reps; i++) {
      rec.writes.length = 0;
      const start = performance.now();
      const turn = session.prompt(`step ${i}`);
      let last = 0;
      for await (const _ of turn) last = performance.now();
      await turn.result;
      const end = performance.now();
      const ms = end - start;
      if (i > 0) {
        runs.push({
          ms,
          // From the reply's last update to the result: appending the turn and committing it.
          commitMs: end - last,
          bytes: rec.writes.reduce((n, w) => n + w.bytes, 0),
          storeMs: rec.writes.reduce((n, w) => n + w.ms, 0),
          methods: rec.writes.map((w) => w.method).join('+'),
        });
      }
    }
    await agent.close();
    await inner.close?.();
    rows.push({
      turns,
      methods: runs.at(-1).methods,
      bytes: median(runs.map((r) => r.bytes)),
      turnMs: median(runs.map((r) => r.ms)),
      commitMs: median(runs.map((r) => r.commitMs)),
      storeMs: median(runs.map((r) => r.storeMs)),
    });
  }
  return rows;
}
