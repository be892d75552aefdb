// The try page's cold boot in Chromium (run `npm run build` first): `node tests/bench/try-cold.mjs [runs]`.
// Each run opens the page in a fresh browser context (no HTTP cache, no compiled-code cache) on
// the dev gateway in demo mode and measures, from the page's own clock (navigation start = 0):
// when fx-term.wasm's request starts and its last byte arrives (resource timing), and when
// `window.__fxTry.ready` resolves (the terminal interactive). Prints medians and each run, and
// how many times fx-term.wasm was requested (1 when a preload and the loader share the fetch).

import { chromium } from 'playwright-core';

import { CHROMIUM } from '../browser/chromium.mjs';
import { startDevGateway } from '../../examples/dev-gateway/server.mjs';

const runs = Number(process.argv[2] ?? 7);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const gateway = await startDevGateway({ port: 0, demo: true, demoDelayMs: 4 });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const rows = [];
  for (let i = 0; i < runs; i += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    let wasmRequests = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/fx-term.wasm')) wasmRequests += 1;
    });
    await page.goto(gateway.url);
    await page.waitForFunction(() => window.__fxTry?.ready);
    const row = await page.evaluate(async () => {
      await window.__fxTry.ready;
      const ready = performance.now();
      const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/fx-term.wasm'));
      return { wasmStartMs: wasm?.startTime ?? NaN, wasmEndMs: wasm?.responseEnd ?? NaN, interactiveMs: ready };
    });
    rows.push({ ...row, wasmRequests });
    await context.close();
  }
  console.log(`Chromium ${browser.version()}, try page (demo), ${runs} fresh contexts; median, then each run`);
  for (const key of Object.keys(rows[0])) {
    const values = rows.map((r) => r[key]);
    console.log(`${key.padEnd(16)} ${median(values).toFixed(1).padStart(7)}   [${values.map((v) => v.toFixed(1)).join(', ')}]`);
  }
} finally {
  await browser.close();
  await gateway.close();
}
