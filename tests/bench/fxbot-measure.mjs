// The createFxbot stream benchmark, runnable in Node and in a browser page alike: one consumer
// follows a bot reply of N text deltas (each its own network read, a macrotask apart, as a
// network delivers them) on a chat with 0 or 40 earlier turns, and we measure
//
// - `createFxbot` ready, cold (the first of the process or page: it compiles fx-bot.wasm) and warm;
// - the time from `chat.send` to the consumer's first text line and to its `turn_end`;
// - the store calls while it follows: session store loads and document store reads (`load`
//   and `list`), from the consumer's `stream()` call to its `turn_end`.
//
// Each run is a new fxbot and bot (the earlier turns are short replies), so every run follows
// the same turn of the same chat. Prints nothing; returns `{ readyColdMs, readyWarmMs, rows }` for
// scripts/bench.mjs: medians of `reps` runs after `warmups` (store calls are the same in every run).
//
// `pkg` is `{ createFxbot, memoryFxbotStore, memorySessionStore }` of the package to measure.

import { botWithTurns, followReply } from '../support/fxbot-follow.mjs';

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function once(pkg, earlier, deltas) {
  const setup = await botWithTurns(pkg, earlier);
  try {
    const run = await followReply(setup, deltas);
    const expected = deltas * 4;
    if (run.text.length !== expected || run.lines.at(-1)?.stopReason !== 'end_turn') {
      throw new Error(`bench turn went wrong: ${run.text.length} of ${expected} characters, ${JSON.stringify(run.lines.at(-1))}`);
    }
    return run;
  } finally {
    await setup.fxbot.close();
  }
}

/** `createFxbot` called -> resolved, on fresh memory stores. */
async function ready(pkg) {
  const started = performance.now();
  const fxbot = await pkg.createFxbot({ store: pkg.memoryFxbotStore(), sessionStore: pkg.memorySessionStore() });
  const ms = performance.now() - started;
  await fxbot.close();
  return ms;
}

export async function runFxbotBenchmarks(pkg, { deltas = 2000, earlier = [0, 40], reps = 5, warmups = 1 } = {}) {
  // The first createFxbot of the process or page loads and compiles fx-bot.wasm: the cold figure.
  const cold = await ready(pkg);
  const warmRuns = [];
  for (let i = 0; i < Math.max(reps, 1); i++) warmRuns.push(await ready(pkg));
  for (let i = 0; i < warmups; i++) await once(pkg, 0, deltas);
  const rows = [];
  for (const turns of earlier) {
    const runs = [];
    for (let i = 0; i < reps; i++) runs.push(await once(pkg, turns, deltas));
    rows.push({
      earlier: turns,
      deltas,
      ms: median(runs.map((r) => r.ms)),
      firstLineMs: median(runs.map((r) => r.firstLineMs)),
      sessionLoads: median(runs.map((r) => r.follow.sessionLoads)),
      docReads: median(runs.map((r) => r.follow.docReads)),
      textLines: median(runs.map((r) => r.lines.filter((l) => l.type === 'text').length)),
    });
  }
  return { readyColdMs: cold, readyWarmMs: median(warmRuns), rows };
}
