// The session benchmarks, runnable in Node and in a browser page alike: readSession,
// exportNativeSession and importNativeSession on generated sessions of growing size, with the
// wasm memory high-water mark. Prints nothing; returns rows for scripts/bench.mjs.

const MiB = 1024 * 1024;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function time(reps, fn) {
  await fn(); // warm-up
  const runs = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    await fn();
    runs.push(performance.now() - start);
  }
  return median(runs);
}

/** Runs every size; `turns` lists the session sizes in turns. */
export async function runBenchmarks({ turns = [500, 1000, 2000, 4000], reps = 5 } = {}) {
  const fx = await import('../../pkg/index.js');
  const glue = await import('../../pkg/fx-core.js');
  if (typeof glue.benchAppendTurns !== 'function') {
    throw new Error('pkg/fx-core.wasm has no benchmark exports: run `npm run bench` (it builds with --bench)');
  }
  const { generateSession } = await import('./session-gen.mjs');
  const rows = [];
  for (const n of turns) {
    const bytes = generateSession(n);
    const files = await fx.exportNativeSession(bytes);
    const read = await time(reps, () => fx.readSession(bytes));
    const exported = await time(reps, () => fx.exportNativeSession(bytes));
    const imported = await time(reps, () => fx.importNativeSession(files));
    // Per-commit append cost: load + 100 appended turns, minus load alone.
    const appendedOnce = glue.benchAppendTurns(bytes, 100);
    if (appendedOnce.length <= bytes.length) throw new Error('benchAppendTurns appended nothing');
    const loadAndAppend = await time(reps, () => glue.benchAppendTurns(bytes, 100));
    const loadOnly = await time(reps, () => glue.benchAppendTurns(bytes, 0));
    const appendUs = ((loadAndAppend - loadOnly) / 100) * 1000;
    const { memory } = await glue.default();
    rows.push({
      turns: n,
      logMiB: bytes.length / MiB,
      readMs: read,
      readMsPerMiB: read / (bytes.length / MiB),
      exportMs: exported,
      importMs: imported,
      appendUs,
      wasmMemoryMiB: memory.buffer.byteLength / MiB,
    });
  }
  return rows;
}

/** Formats rows as a fixed-width table. */
export function formatRows(rows) {
  const head = 'turns   log MiB   readSession ms   ms/MiB   export ms   import ms   append µs/commit   wasm memory MiB';
  const lines = rows.map((r) =>
    [
      String(r.turns).padStart(5),
      r.logMiB.toFixed(2).padStart(9),
      r.readMs.toFixed(1).padStart(16),
      r.readMsPerMiB.toFixed(1).padStart(8),
      r.exportMs.toFixed(1).padStart(11),
      r.importMs.toFixed(1).padStart(11),
      r.appendUs.toFixed(0).padStart(19),
      r.wasmMemoryMiB.toFixed(1).padStart(17),
    ].join(''),
  );
  return [head, ...lines].join('\n');
}
