// The terminal benchmark, runnable in Node (through @xterm/headless) and in a browser page
// (through xterm.js): time to `interactive` (the first one loads fx-term.wasm), keystroke to
// echo, and bytes written to the terminal per streamed token when each token arrives in its own
// network read and when 8 arrive together. `makeTerminal(cols, rows)` gives an xterm.js
// `Terminal` (headless or on a page); `fx` is the package; `fakeFetch` and `sse` come from
// tests/node/agent-support.mjs. Prints nothing; returns figures for scripts/bench.mjs.

const env = { AI_GATEWAY_API_KEY: 'bench-key' };

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function p95(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
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

export async function runTerminalBenchmarks({ fx, makeTerminal, fakeFetch, sse, tokens = 5000, reps = 5, keys = 300 }) {
  const instrumented = (cols = 100, rows = 30) => {
    const term = makeTerminal(cols, rows);
    const base = fx.xtermAdapter(term);
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
  };

  const interactive = async () => {
    const { term, adapter } = instrumented();
    const start = performance.now();
    const runtime = await fx.createFxTerminal({ terminal: adapter, env, fetch: fakeFetch([]).fetch });
    await runtime.interactive;
    const ms = performance.now() - start;
    runtime.abort();
    term.dispose?.();
    return ms;
  };

  const echo = async () => {
    const { term, adapter, stats } = instrumented();
    const runtime = await fx.createFxTerminal({ terminal: adapter, env, fetch: fakeFetch([]).fetch });
    await runtime.interactive;
    const latencies = [];
    for (let i = 0; i < keys; i += 1) {
      const ch = String.fromCharCode(97 + (i % 26));
      const start = performance.now();
      let echoed = null;
      stats.onWrite = () => {
        echoed ??= performance.now();
      };
      runtime.write(ch);
      if (echoed === null) await new Promise((resolve) => setTimeout(resolve, 0));
      latencies.push((echoed ?? performance.now()) - start);
      if (i % 60 === 59) runtime.write('\x15');
    }
    runtime.abort();
    term.dispose?.();
    return latencies;
  };

  const streamed = async (perRead) => {
    const deltas = replyDeltas(tokens);
    const events = [
      ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })),
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: {} },
    ];
    const single = sse(events).split(/(?<=\n\n)/);
    const chunks = [];
    for (let i = 0; i < single.length; i += perRead) chunks.push(single.slice(i, i + perRead).join(''));
    // Each read a macrotask apart, as a network delivers them.
    const net = fakeFetch([
      {
        stream: async (controller) => {
          const encoder = new TextEncoder();
          for (const chunk of chunks) {
            controller.enqueue(encoder.encode(chunk));
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          controller.close();
        },
      },
    ]);
    const { term, adapter, stats } = instrumented();
    const runtime = await fx.createFxTerminal({ terminal: adapter, env, fetch: net.fetch });
    await runtime.interactive;
    runtime.write('go');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = stats.bytes;
    const start = performance.now();
    runtime.write('\r');
    const deadline = Date.now() + 120000;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const buffer = term.buffer.active;
      let done = false;
      for (let y = 0; y < buffer.length && !done; y += 1) {
        if (/^\s+\d+s \(↑/.test(buffer.getLine(y)?.translateToString(true) ?? '')) done = true;
      }
      if (done || Date.now() > deadline) break;
    }
    const elapsed = performance.now() - start;
    runtime.abort();
    term.dispose?.();
    return { bytesPerToken: (stats.bytes - before) / tokens, elapsed };
  };

  const cold = await interactive();
  const warm = [];
  for (let i = 0; i < reps; i += 1) warm.push(await interactive());
  const latencies = await echo();
  const one = await streamed(1);
  const eight = await streamed(8);
  return {
    interactiveColdMs: cold,
    interactiveWarmMs: median(warm),
    echoMedianMs: median(latencies),
    echoP95Ms: p95(latencies),
    bytesPerToken1: one.bytesPerToken,
    bytesPerToken8: eight.bytesPerToken,
    tokens,
  };
}
