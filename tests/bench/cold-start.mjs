// Cold start in Chromium (run `npm run build` first): `node tests/bench/cold-start.mjs [runs]`.
// Each run opens a fresh browser context (no HTTP cache, no compiled-code cache) on the test
// harness page and measures, from the page:
//
// - agent ready: createFxAgent() called → resolved (fetches and compiles fx-core.wasm), and the
//   same counted from the `import('/pkg/index.js')` before it;
// - first update: the fake fetch returns its Response → the first update reaches `for await`;
// - terminal interactive: createFxTerminal() called → `interactive` resolved (fetches and
//   compiles fx-term.wasm, paints the first frame into a real xterm.js), and from the import;
// - the phases of each load (PHASES: glue, fetch, after the last byte) from resource timing,
//   and, in a context of its own, WebAssembly.compile of each artifact's bytes alone.
//
// Prints the median of the runs (default 7) and each run's figures. `--compare <checkout>` serves
// another checkout's built package too (its scripts/serve.mjs) and alternates the runs between
// the two, so both are measured on the same machine at the same time.

import { chromium } from 'playwright-core';

import { CHROMIUM } from '../browser/chromium.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const compareAt = args.indexOf('--compare');
const other = compareAt >= 0 ? args.splice(compareAt, 2)[1] : null;
const runs = Number(args[0] ?? 7);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/**
 * The phases of a cold load, from the page's resource timing of the artifact's .wasm: `Glue`
 * (the call → the .wasm request starts: the glue module's import and set-up), `Fetch` (request
 * → last byte; streaming compilation runs meanwhile), `After` (last byte → loaded: the rest of
 * the compile, instantiation and the core's start). A source string, evaluated in the page.
 */
const PHASES = `(prefix, entry, called, loaded) => entry === undefined ? {} : {
  [prefix + 'GlueMs']: entry.startTime - called,
  [prefix + 'FetchMs']: entry.responseEnd - entry.startTime,
  [prefix + 'AfterMs']: loaded - entry.responseEnd,
}`;

async function agentRun(page) {
  return page.evaluate(async (phasesSource) => {
    const phases = (0, eval)(phasesSource);
    const t0 = performance.now();
    const fx = await import('/pkg/index.js');
    const imported = performance.now();
    const marks = {};
    const catalog = '{"object":"list","data":[{"id":"bench/model","type":"language","context_window":1000000}]}';
    const body = 'data: {"type":"text-delta","id":"t","delta":"hi"}\n\ndata: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{}}\n\ndata: [DONE]\n\n';
    const fetch = async (url, init = {}) => {
      if ((init.method ?? 'GET') === 'GET') return new Response(catalog, { status: 200, headers: { 'content-type': 'application/json' } });
      const response = new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      marks.response = performance.now();
      return response;
    };
    const agent = await fx.createFxAgent({ fetch, env: { AI_GATEWAY_API_KEY: 'bench' } });
    const ready = performance.now();
    const session = await agent.createSession();
    let first = 0;
    for await (const update of session.prompt('hi')) {
      if (first === 0 && update.sessionUpdate === 'agent_message_chunk') first = performance.now();
    }
    await agent.close();
    const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/fx-core.wasm'));
    return {
      readyMs: ready - imported,
      readyFromImportMs: ready - t0,
      firstUpdateMs: first - marks.response,
      ...phases('core', wasm, imported, ready),
    };
  }, PHASES);
}

async function terminalRun(page) {
  return page.evaluate(async (phasesSource) => {
    const { Terminal } = await import('/node_modules/@xterm/xterm/lib/xterm.mjs');
    const host = document.createElement('div');
    document.body.append(host);
    const term = new Terminal({ cols: 100, rows: 30 });
    term.open(host);
    const t0 = performance.now();
    const fx = await import('/pkg/index.js');
    const imported = performance.now();
    const marks = {};
    const runtime = await fx.createFxTerminal({
      onEvent: (event) => {
        marks[event.type] ??= event.timestamp;
      },
      terminal: fx.xtermAdapter(term),
      env: { AI_GATEWAY_API_KEY: 'bench' },
      fetch: async () => new Response('{"data":[]}', { status: 200 }),
    });
    await runtime.interactive;
    const interactive = performance.now();
    runtime.abort();
    const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/fx-term.wasm'));
    const phases = (0, eval)(phasesSource);
    return {
      interactiveMs: interactive - imported,
      interactiveFromImportMs: interactive - t0,
      // createFxTerminal called → the core loaded and running, then → the first frame painted.
      termLoadMs: marks['runtime.ready'] - imported,
      termStartMs: interactive - marks['runtime.ready'],
      ...phases('term', wasm, imported, marks['runtime.ready']),
    };
  }, PHASES);
}

/**
 * WebAssembly.compile of each artifact's bytes, fetched first (the compile alone, neither
 * overlapped with the download as streaming compilation is nor followed by instantiation).
 */
async function compileRun(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const name of ['fx-core', 'fx-term']) {
      const bytes = await (await fetch(`/pkg/${name}.wasm`)).arrayBuffer();
      const start = performance.now();
      await WebAssembly.compile(bytes);
      out[`${name === 'fx-core' ? 'core' : 'term'}CompileMs`] = performance.now() - start;
    }
    return out;
  });
}

const servers = [{ label: 'this checkout', server: await startServer(0) }];
if (other) {
  const { resolve } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const serve = await import(pathToFileURL(resolve(other, 'scripts/serve.mjs')).href);
  servers.push({ label: other, server: await serve.startServer(0) });
}
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const results = servers.map(() => []);
  for (let i = 0; i < runs; i += 1) {
    for (const [s, { server }] of servers.entries()) {
      const row = {};
      for (const measure of [agentRun, terminalRun, compileRun]) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${server.url}tests/browser/harness.html`);
        Object.assign(row, await measure(page));
        await context.close();
      }
      results[s].push(row);
    }
  }
  console.log(`Chromium ${browser.version()}, ${runs} fresh contexts (no cache) each; median, then each run`);
  for (const [s, { label }] of servers.entries()) {
    console.log(`\n${label}`);
    for (const key of Object.keys(results[s][0])) {
      const values = results[s].map((r) => r[key]);
      console.log(`${key.padEnd(24)} ${median(values).toFixed(1).padStart(7)} ms   [${values.map((v) => v.toFixed(1)).join(', ')}]`);
    }
  }
} finally {
  await browser.close();
  for (const { server } of servers) await server.close();
}
