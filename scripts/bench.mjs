// Benchmarks of the built package (run `npm run build` first): session load, export and import
// on generated sessions of 500 to 4,000 turns, in Node and in Chromium. Prints figures (median of
// 5 runs after a warm-up) and the wasm memory high-water mark; load time per MiB shows whether
// loading stays linear. The native Rust benchmarks are `cargo bench`.

import { formatRows, runBenchmarks } from '../tests/bench/measure.mjs';
import { openBrowser } from '../tests/browser/chromium.mjs';

console.log(`Node ${process.version}`);
console.log(formatRows(await runBenchmarks()));

const browser = await openBrowser();
try {
  await browser.page.goto(`${browser.url}tests/browser/harness.html`);
  const version = browser.page.context().browser()?.version() ?? 'Chromium';
  const rows = await browser.page.evaluate(async () => {
    const bench = await import('/tests/bench/measure.mjs');
    return bench.runBenchmarks();
  });
  console.log(`\nChromium ${version}`);
  console.log(formatRows(rows));
} finally {
  await browser.close();
}
