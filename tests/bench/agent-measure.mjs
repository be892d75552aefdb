// The createFxAgent streaming benchmark, runnable in Node and in a browser page alike: a fake
// fetch serves a whole SSE body of N text deltas (4 characters each) as one chunk, and we measure
//
// - ready: createFxAgent() called → resolved (the first run includes compiling fx-core.wasm);
// - first update: the fake fetch returns its Response → the first update reaches `for await`;
// - µs per delta: the Response is returned → the last update reaches `for await`, divided by N
//   (and, separately, up to `turn.result`, which includes committing the session).
//
// Prints nothing; returns rows for scripts/bench.mjs. Medians of `reps` runs after a warm-up, and
// the best run: on a loaded machine single runs vary several-fold.

const CATALOG = JSON.stringify({ object: 'list', data: [{ id: 'bench/model', type: 'language', context_window: 1000000 }] });

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The SSE body: `n` text deltas of 4 characters, a finish event and [DONE]. */
export function sseBody(n) {
  const parts = [];
  for (let i = 0; i < n; i++) {
    const delta = `${String(i % 1000).padStart(3, '0')} `;
    parts.push(`data: {"type":"text-delta","id":"t","delta":"${delta}"}\n\n`);
  }
  parts.push('data: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":10},"outputTokens":{"total":10}}}\n\n');
  parts.push('data: [DONE]\n\n');
  return new TextEncoder().encode(parts.join(''));
}

/** A fetch serving the catalog and, for the chat request, `body` in one chunk. */
function benchFetch(body, marks) {
  return async (url, init = {}) => {
    if ((init.method ?? 'GET') === 'GET') {
      return new Response(CATALOG, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    const response = new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    marks.response = performance.now();
    return response;
  };
}

async function once(fx, n, body) {
  const marks = {};
  const started = performance.now();
  const agent = await fx.createFxAgent({ fetch: benchFetch(body, marks), env: { AI_GATEWAY_API_KEY: 'bench' } });
  const ready = performance.now() - started;
  const session = await agent.createSession();
  const turn = session.prompt('stream');
  let first = 0;
  let last = 0;
  let chars = 0;
  for await (const update of turn) {
    const now = performance.now();
    if (first === 0) first = now;
    last = now;
    if (update.sessionUpdate === 'agent_message_chunk') chars += update.content.text.length;
  }
  const { stopReason } = await turn.result;
  const end = performance.now();
  await agent.close();
  if (stopReason !== 'end_turn' || chars !== 4 * n) {
    throw new Error(`bench turn went wrong: ${stopReason}, ${chars} of ${4 * n} characters`);
  }
  return {
    ready,
    firstUpdate: first - marks.response,
    streamUs: ((last - marks.response) * 1000) / n,
    totalUs: ((end - marks.response) * 1000) / n,
  };
}

/**
 * Runs every size. The first turn of the process is reported on its own (the wasm code still
 * runs in V8's baseline tier then); `warmups` turns of the largest size follow before anything
 * is measured, so the rows show the steady state.
 */
export async function runAgentBenchmarks({ deltas = [5000, 50000], reps = 9, warmups = 3 } = {}) {
  const fx = await import('../../pkg/index.js');
  // Node loads its fetch implementation (Headers, Response) lazily on first use, 100+ ms that
  // every fetch user pays once; keep it out of the agent's figures.
  new Response(new Headers().get('x'));
  const largest = Math.max(...deltas);
  const largestBody = sseBody(largest);
  const first = await once(fx, largest, largestBody);
  for (let i = 0; i < warmups; i++) await once(fx, largest, largestBody);
  const rows = [];
  for (const n of deltas) {
    const body = n === largest ? largestBody : sseBody(n);
    const runs = [];
    for (let i = 0; i < reps; i++) runs.push(await once(fx, n, body));
    rows.push({
      deltas: n,
      bodyMiB: body.length / (1024 * 1024),
      readyMs: median(runs.map((r) => r.ready)),
      firstUpdateMs: median(runs.map((r) => r.firstUpdate)),
      streamUsPerDelta: median(runs.map((r) => r.streamUs)),
      bestStreamUsPerDelta: Math.min(...runs.map((r) => r.streamUs)),
      totalUsPerDelta: median(runs.map((r) => r.totalUs)),
    });
  }
  return { first: { deltas: largest, ...first }, rows };
}

/** Formats the result as a fixed-width table with the targets. */
export function formatAgentRows({ first, rows }) {
  const head = ' deltas   body MiB   ready ms   first update ms   µs/delta (stream)   best   µs/delta (to result)';
  const lines = rows.map((r) =>
    [
      String(r.deltas).padStart(7),
      r.bodyMiB.toFixed(2).padStart(10),
      r.readyMs.toFixed(2).padStart(10),
      r.firstUpdateMs.toFixed(2).padStart(17),
      r.streamUsPerDelta.toFixed(3).padStart(19),
      r.bestStreamUsPerDelta.toFixed(3).padStart(7),
      r.totalUsPerDelta.toFixed(3).padStart(22),
    ].join(''),
  );
  return [
    head,
    ...lines,
    `first turn (${first.deltas} deltas; its createFxAgent loads and compiles fx-core.wasm when nothing did before): ready ${first.ready.toFixed(1)} ms, ` +
      `first update ${first.firstUpdate.toFixed(2)} ms, ${first.streamUs.toFixed(3)} µs/delta`,
    'medians (and the best run) after warm-up; targets: ready < 50 ms, first update < 5 ms, < 2 µs per delta at 50,000',
  ].join('\n');
}
