// Terminal benchmark (run `npm run build` first): `node tests/bench/terminal.mjs`.
// Prints time to `interactive`, keystroke-to-echo latency, and bytes written to the terminal per
// streamed token for a 5,000-token reply (all chunks at once, one or 8 tokens a chunk, or one
// token a chunk a macrotask apart), through @xterm/headless and the built package.

import xtermHeadless from '@xterm/headless';

import { createFxTerminal, xtermAdapter } from '../../pkg/index.js';
import { fakeFetch, sse } from '../node/agent-support.mjs';

const { Terminal } = xtermHeadless;
const env = { AI_GATEWAY_API_KEY: 'bench-key' };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const p95 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
};

function instrumented(cols = 100, rows = 30) {
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 10000 });
  const base = xtermAdapter(term);
  const stats = { bytes: 0, writes: 0, onWrite: null };
  const adapter = {
    write(bytes) {
      stats.bytes += bytes.byteLength;
      stats.writes += 1;
      base.write(bytes);
      stats.onWrite?.(bytes);
    },
    onData: base.onData,
    onKeyData: base.onKeyData,
    onResize: base.onResize,
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
  };
  return { term, adapter, stats };
}

async function timeToInteractive(runs) {
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const { adapter } = instrumented();
    const start = performance.now();
    const runtime = await createFxTerminal({ terminal: adapter, env, fetch: fakeFetch([]).fetch });
    await runtime.interactive;
    times.push(performance.now() - start);
    runtime.abort();
  }
  return times;
}

async function keystrokeEcho(count) {
  const { adapter, stats } = instrumented();
  const runtime = await createFxTerminal({ terminal: adapter, env, fetch: fakeFetch([]).fetch });
  await runtime.interactive;
  const latencies = [];
  const bytes = [];
  for (let i = 0; i < count; i += 1) {
    const ch = String.fromCharCode(97 + (i % 26));
    const before = stats.bytes;
    const start = performance.now();
    let echoed = null;
    stats.onWrite = () => {
      echoed ??= performance.now();
    };
    runtime.write(ch);
    if (echoed === null) await new Promise((resolve) => setTimeout(resolve, 0));
    latencies.push((echoed ?? performance.now()) - start);
    bytes.push(stats.bytes - before);
    if (i % 60 === 59) runtime.write('\x15');
  }
  runtime.abort();
  return { latencies, bytes };
}

function replyDeltas(tokens) {
  const words = ['stream', 'render', 'token', 'wasm', 'terminal', 'quick', 'frame', 'diff'];
  const deltas = [];
  for (let i = 0; i < tokens; i += 1) {
    let delta = `${words[i % words.length]} `;
    if (i % 40 === 39) delta = `${words[i % words.length]}.\n\n`;
    else if (i % 9 === 8) delta = `**${words[i % words.length]}** `;
    deltas.push(delta);
  }
  return deltas;
}

/** The body's start: one chunk enqueued per macrotask (each token its own read, a task apart). */
function paced(chunks) {
  return (controller) => {
    let i = 0;
    const next = () => {
      if (i === chunks.length) {
        controller.close();
        return;
      }
      controller.enqueue(new TextEncoder().encode(chunks[i]));
      i += 1;
      setTimeout(next, 0);
    };
    setTimeout(next, 0);
  };
}

async function streamedReply(tokens, perChunk = 1, { apart = false } = {}) {
  const deltas = replyDeltas(tokens);
  const events = [
    ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })),
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: {} },
  ];
  // One SSE event per chunk, so every token arrives as its own read.
  const single = sse(events).split(/(?<=\n\n)/);
  const chunks = [];
  for (let i = 0; i < single.length; i += perChunk) chunks.push(single.slice(i, i + perChunk).join(''));
  const net = fakeFetch([apart ? { stream: paced(chunks) } : { chunks }]);
  const { term, adapter, stats } = instrumented();
  const runtime = await createFxTerminal({ terminal: adapter, env, fetch: net.fetch });
  await runtime.interactive;
  runtime.write('go');
  const before = stats.bytes;
  const writesBefore = stats.writes;
  const start = performance.now();
  runtime.write('\r');
  const deadline = Date.now() + 60000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const buffer = term.buffer.active;
    let done = false;
    for (let y = 0; y < buffer.length; y += 1) {
      if (/^\s+\d+s \(↑/.test(buffer.getLine(y)?.translateToString(true) ?? '')) done = true;
    }
    if (done || Date.now() > deadline) break;
  }
  const elapsed = performance.now() - start;
  runtime.abort();
  return { bytes: stats.bytes - before, writes: stats.writes - writesBefore, elapsed };
}

const first = performance.now();
const cold = await createFxTerminal({ terminal: instrumented().adapter, env, fetch: fakeFetch([]).fetch });
await cold.interactive;
const coldMs = performance.now() - first;
cold.abort();

const tti = await timeToInteractive(5);
const echo = await keystrokeEcho(300);
const tokens = 5000;
const stream = await streamedReply(tokens);
const batched = await streamedReply(tokens, 8);
const apart = await streamedReply(tokens, 1, { apart: true });

console.log(`Node ${process.version}, @xterm/headless, 100×30`);
console.log(`time to interactive, first (loads fx-term.wasm): ${coldMs.toFixed(1)} ms`);
console.log(`time to interactive, warm (median of 5):       ${median(tti).toFixed(1)} ms`);
console.log(
  `keystroke to echo (300 keys): median ${median(echo.latencies).toFixed(3)} ms, p95 ${p95(echo.latencies).toFixed(3)} ms, ` +
    `${median(echo.bytes)} bytes per keystroke (median)`,
);
console.log(
  `streamed reply of ${tokens} tokens: ${stream.bytes} bytes in ${stream.writes} writes, ` +
    `${(stream.bytes / tokens).toFixed(1)} bytes per token, ${stream.elapsed.toFixed(0)} ms end to end (one token per network chunk)`,
);
console.log(
  `streamed reply of ${tokens} tokens, 8 per network chunk: ${batched.bytes} bytes in ${batched.writes} writes, ` +
    `${(batched.bytes / tokens).toFixed(1)} bytes per token, ${batched.elapsed.toFixed(0)} ms end to end`,
);
console.log(
  `streamed reply of ${tokens} tokens, one per network chunk a macrotask apart: ${apart.bytes} bytes in ${apart.writes} writes, ` +
    `${(apart.bytes / tokens).toFixed(1)} bytes per token, ${apart.elapsed.toFixed(0)} ms end to end`,
);
