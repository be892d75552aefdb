// Benchmarks of the built package, in Node and in Chromium (`npm run bench` first builds pkg/ with
// fx-core's benchmark exports, `node scripts/build.mjs --bench`):
// - session load, export and import on generated sessions of 500 to 4,000 turns (median of 5 runs
//   after a warm-up) and the wasm memory high-water mark; load time per MiB shows whether loading
//   stays linear;
// - createFxAgent streaming 5,000 and 50,000 text deltas served at once by a fake fetch: time to
//   agent ready, to the first update, and µs per delta (tests/bench/agent-measure.mjs).
// The native Rust benchmarks are `cargo bench`.

import { loadavg } from 'node:os';

import { formatAgentRows, runAgentBenchmarks } from '../tests/bench/agent-measure.mjs';
import { formatRows, runBenchmarks } from '../tests/bench/measure.mjs';
import { openBrowser } from '../tests/browser/chromium.mjs';

console.log(`Node ${process.version}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
// The agent first, so its first createFxAgent is the one that loads and compiles fx-core.wasm.
console.log('createFxAgent streaming (Node)');
console.log(formatAgentRows(await runAgentBenchmarks()));
console.log('');
console.log(formatRows(await runBenchmarks()));

const browser = await openBrowser();
try {
  await browser.page.goto(`${browser.url}tests/browser/harness.html`);
  const version = browser.page.context().browser()?.version() ?? 'Chromium';
  const agentRows = await browser.page.evaluate(async () => {
    const bench = await import('/tests/bench/agent-measure.mjs');
    return bench.runAgentBenchmarks();
  });
  console.log(`\nChromium ${version}`);
  console.log('createFxAgent streaming (Chromium)');
  console.log(formatAgentRows(agentRows));
  const rows = await browser.page.evaluate(async () => {
    const bench = await import('/tests/bench/measure.mjs');
    return bench.runBenchmarks();
  });
  console.log('');
  console.log(formatRows(rows));
} finally {
  await browser.close();
}
