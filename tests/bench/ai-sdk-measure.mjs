// The Vercel AI SDK on the same fake fetch and the same SSE body as tests/bench/agent-measure.mjs:
// `streamText` with `@ai-sdk/gateway` (the AI Gateway's own protocol, which fx speaks too), and
// `for await` over its `textStream`. Runnable in Node (`ai` imported) and in a browser page (a
// bundle of both built by scripts/bench.mjs). `sdk` is `{ streamText, createGateway }`.
//
// - first update: the fake fetch returns its Response → the first text chunk reaches `for await`;
// - µs per delta: the Response is returned → the last text chunk, divided by N.
//
// Prints nothing; returns rows for scripts/bench.mjs. Medians of `reps` runs after warm-ups.

import { sseBody } from './agent-measure.mjs';

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function once(sdk, n, body) {
  const marks = {};
  const fetch = async () => {
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
  const gateway = sdk.createGateway({ apiKey: 'bench', fetch });
  const result = sdk.streamText({ model: gateway('bench/model'), prompt: 'stream' });
  let first = 0;
  let last = 0;
  let chars = 0;
  for await (const text of result.textStream) {
    const now = performance.now();
    if (first === 0) first = now;
    last = now;
    chars += text.length;
  }
  const finish = await result.finishReason;
  if (finish !== 'stop' || chars !== 4 * n) throw new Error(`AI SDK bench went wrong: ${finish}, ${chars} of ${4 * n} characters`);
  return { firstUpdate: first - marks.response, streamUs: ((last - marks.response) * 1000) / n };
}

export async function runAiSdkBenchmarks(sdk, { deltas = [5000, 50000], reps = 9, warmups = 3 } = {}) {
  const largest = Math.max(...deltas);
  const largestBody = sseBody(largest);
  for (let i = 0; i < warmups; i++) await once(sdk, largest, largestBody);
  const rows = [];
  for (const n of deltas) {
    const body = n === largest ? largestBody : sseBody(n);
    const runs = [];
    for (let i = 0; i < reps; i++) runs.push(await once(sdk, n, body));
    rows.push({ deltas: n, firstUpdateMs: median(runs.map((r) => r.firstUpdate)), streamUsPerDelta: median(runs.map((r) => r.streamUs)) });
  }
  return rows;
}
