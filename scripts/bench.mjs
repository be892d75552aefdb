// The benchmark suite of the built package (`npm run bench` builds pkg/ first): one table, Node
// and Chromium side by side, every figure a median of at least 5 runs in this one process (the
// cold figures excepted: there is one first load per process or page).
//
// - sizes of fx-core.wasm, fx-term.wasm and fx-bot.wasm: raw, gzip -9, brotli (quality 11);
// - createFxAgent: ready cold (the first one, which compiles fx-core.wasm) and warm, first
//   update and µs per delta at 5,000 and 50,000 deltas in one read (tests/bench/agent-measure.mjs);
//   the Vercel AI SDK (`ai` + `@ai-sdk/gateway`, `streamText`) on the same fake fetch and body,
//   and the ratio (tests/bench/ai-sdk-measure.mjs);
// - openSession of a stored 2,000-turn session, the memory after it, and a commit at turn 10 and
//   2,000: the bytes handed to the store and the time from the reply's end to the result
//   (tests/bench/session-measure.mjs);
// - createFxTerminal: interactive cold and warm, keystroke echo, bytes per streamed token at 1 and
//   8 tokens per network read (tests/bench/terminal-measure.mjs; @xterm/headless in Node, xterm.js
//   in Chromium);
// - createFxbot: ready cold (compiles fx-bot.wasm) and warm; one consumer following a 2,000-delta
//   bot reply after 0 and 40 earlier turns, the time from send to its first text line and to its
//   turn_end, and the store calls meanwhile (tests/bench/fxbot-measure.mjs).
//
// Usage: node scripts/bench.mjs [--quick]   (--quick: tiny sizes, one run each: a smoke test of
// the suite, its figures mean nothing). `node scripts/bench.mjs --log` instead prints the session
// log table (readSession, export, import, append per commit on 500 to 4,000 turns), which needs
// the benchmark exports: `npm run bench:log`.

import { cpus, loadavg } from 'node:os';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import xtermHeadless from '@xterm/headless';
import { build } from 'esbuild';

import { launchChromium } from '../tests/browser/chromium.mjs';
import { startServer } from './serve.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const KiB = 1024;

const options = quick
  ? {
      agent: { deltas: [50, 500], reps: 1, warmups: 0 },
      sdk: { deltas: [50, 500], reps: 1, warmups: 0 },
      resume: { turns: 20, reps: 1 },
      commit: { sizes: [5, 20], reps: 1 },
      terminal: { tokens: 40, reps: 1, keys: 5 },
      fxbot: { deltas: 50, earlier: [0, 3], reps: 1, warmups: 0 },
    }
  : {
      agent: { deltas: [5000, 50000], reps: 7, warmups: 2 },
      sdk: { deltas: [5000, 50000], reps: 5, warmups: 1 },
      resume: { turns: 2000, reps: 7 },
      commit: { sizes: [10, 2000], reps: 7 },
      terminal: { tokens: 5000, reps: 5, keys: 300 },
      fxbot: { deltas: 2000, earlier: [0, 40], reps: 5, warmups: 1 },
    };

if (process.argv.includes('--log')) {
  const { formatRows, runBenchmarks } = await import('../tests/bench/measure.mjs');
  console.log(formatRows(await runBenchmarks()));
  process.exit(0);
}

async function sizes() {
  const out = {};
  for (const name of ['fx-core.wasm', 'fx-term.wasm', 'fx-bot.wasm']) {
    const bytes = await readFile(join(root, 'pkg', name));
    out[name] = {
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: 9 }).length,
      brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  }
  return out;
}

/**
 * Every figure in one environment (Node, or a page given `fx`, `sdk`, `makeTerminal`, `support`,
 * `fxbot`: the fx-wasm/fxbot module of that environment).
 */
async function measureHere({ sdk, makeTerminal, support, fxbot, options }) {
  const fx = await import('../pkg/index.js');
  const { runAgentBenchmarks } = await import('../tests/bench/agent-measure.mjs');
  const { runAiSdkBenchmarks } = await import('../tests/bench/ai-sdk-measure.mjs');
  const { runCommitBenchmarks, runResumeBenchmarks } = await import('../tests/bench/session-measure.mjs');
  const { runTerminalBenchmarks } = await import('../tests/bench/terminal-measure.mjs');
  const { runFxbotBenchmarks } = await import('../tests/bench/fxbot-measure.mjs');
  // The agent first, so its first createFxAgent is the one that loads and compiles fx-core.wasm.
  const agent = await runAgentBenchmarks(options.agent);
  const ai = await runAiSdkBenchmarks(sdk, options.sdk);
  const resume = await runResumeBenchmarks(options.resume);
  const commit = await runCommitBenchmarks(options.commit);
  const terminal = await runTerminalBenchmarks({ fx, makeTerminal, ...support, ...options.terminal });
  const bots = await runFxbotBenchmarks(
    { createFxbot: fxbot.createFxbot, memoryFxbotStore: fxbot.memoryFxbotStore, memorySessionStore: fx.memorySessionStore },
    options.fxbot,
  );
  // In a browser, the same on IndexedDB, with and without `append`.
  const idb = typeof indexedDB === 'undefined'
    ? null
    : {
        resume: await runResumeBenchmarks({ ...options.resume, indexedDb: true }),
        append: await runCommitBenchmarks({ ...options.commit, indexedDb: true }),
        whole: await runCommitBenchmarks({ ...options.commit, indexedDb: true, withAppend: false }),
      };
  return { agent, ai, resume, commit, terminal, bots, idb };
}

async function inNode() {
  // Node loads its fetch implementation (Headers, Response) lazily on first use, 100+ ms that
  // every fetch user pays once; keep it out of both agents' figures.
  new Response(new Headers().get('x'));
  const [{ streamText }, { createGateway }, support, fxbot] = await Promise.all([
    import('ai'),
    import('@ai-sdk/gateway'),
    import('../tests/node/agent-support.mjs'),
    import('../pkg/fxbot/node.js'),
  ]);
  const { Terminal } = xtermHeadless;
  const makeTerminal = (cols, rows) => new Terminal({ cols, rows, allowProposedApi: true, scrollback: 10000 });
  return measureHere({ sdk: { streamText, createGateway }, makeTerminal, support: { fakeFetch: support.fakeFetch, sse: support.sse }, fxbot, options });
}

/** The AI SDK bundled for the page, where bare imports do not resolve. */
async function bundleAiSdk() {
  const dir = join(root, 'tests', 'bench', 'generated');
  await mkdir(dir, { recursive: true });
  const entry = join(dir, 'ai-sdk-entry.mjs');
  await writeFile(entry, "export { streamText } from 'ai';\nexport { createGateway } from '@ai-sdk/gateway';\n");
  await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', minify: true, outfile: join(dir, 'ai-sdk.mjs'), logLevel: 'error' });
}

async function inChromium() {
  await bundleAiSdk();
  const server = await startServer(0);
  const { context, close } = await launchChromium({ extraArgs: ['--enable-precise-memory-info'] });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${server.url}tests/browser/harness.html`);
    const version = context.browser()?.version() ?? '';
    const figures = await page.evaluate(
      async ({ source, options }) => {
        const measureHere = (0, eval)(`(${source})`);
        const sdk = await import('/tests/bench/generated/ai-sdk.mjs');
        const support = await import('/tests/node/agent-support.mjs');
        const fxbot = await import('/pkg/fxbot/index.js');
        const { Terminal } = await import('/node_modules/@xterm/xterm/lib/xterm.mjs');
        const host = document.createElement('div');
        host.style.cssText = 'width: 1000px; height: 600px';
        document.body.append(host);
        const makeTerminal = (cols, rows) => {
          host.replaceChildren();
          const term = new Terminal({ cols, rows, scrollback: 10000 });
          term.open(host);
          return term;
        };
        return measureHere({ sdk, makeTerminal, support: { fakeFetch: support.fakeFetch, sse: support.sse }, fxbot, options });
      },
      { source: measureHere.toString().replaceAll("'../pkg/", "'/pkg/").replaceAll("'../tests/", "'/tests/"), options },
    );
    if (errors.length > 0) throw new Error(`the page logged errors: ${errors.join('; ')}`);
    return { version, figures };
  } finally {
    await close();
    await server.close();
  }
}

const f = (value, digits = 1) => (value === null || value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits));
const kib = (bytes) => `${(bytes / KiB).toFixed(1)} KiB`;

/** One table: a row per figure, a column per environment. */
function table(sized, node, chromium) {
  const rows = [];
  const row = (label, pick) => rows.push([label, pick(node), pick(chromium)]);
  const both = (label, value) => rows.push([label, value, value]);
  for (const [name, s] of Object.entries(sized)) {
    both(`${name} raw / gzip -9 / brotli`, `${kib(s.raw)} / ${kib(s.gzip)} / ${kib(s.brotli)}`);
  }
  row('agent ready, cold (compiles fx-core.wasm), ms', (m) => f(m.agent.first.ready));
  row('agent ready, warm, ms', (m) => f(m.agent.rows[0].readyMs, 2));
  for (const [i, r] of node.agent.rows.entries()) {
    const n = r.deltas.toLocaleString('en-US');
    row(`first update at ${n} deltas, ms: fx-wasm`, (m) => f(m.agent.rows[i].firstUpdateMs, 2));
    row(`first update at ${n} deltas, ms: AI SDK`, (m) => f(m.ai[i].firstUpdateMs, 2));
    row(`first update at ${n} deltas: AI SDK / fx-wasm`, (m) => `${f(m.ai[i].firstUpdateMs / m.agent.rows[i].firstUpdateMs)}×`);
    row(`µs per delta at ${n}: fx-wasm`, (m) => f(m.agent.rows[i].streamUsPerDelta, 2));
    row(`µs per delta at ${n}: AI SDK`, (m) => f(m.ai[i].streamUsPerDelta, 2));
    row(`µs per delta at ${n}: AI SDK / fx-wasm`, (m) => `${f(m.ai[i].streamUsPerDelta / m.agent.rows[i].streamUsPerDelta)}×`);
  }
  const turns = node.resume.turns.toLocaleString('en-US');
  row(`resume: openSession of ${turns} turns (${f(node.resume.logMiB, 2)} MiB), ms`, (m) => f(m.resume.resumeMs));
  row(`memory after the resume: JS heap / wasm memory, MiB`, (m) => `${f(m.resume.heapMiB)} / ${f(m.resume.wasmMiB)}`);
  for (const [i, c] of node.commit.entries()) {
    const at = c.turns.toLocaleString('en-US');
    row(`commit at turn ${at}: bytes handed to the store (${c.methods})`, (m) => String(m.commit[i].bytes));
    row(`commit at turn ${at}: reply end → result, ms`, (m) => f(m.commit[i].commitMs, 2));
  }
  row(`resume from indexedDbSessionStore, ms`, (m) => (m.idb ? f(m.idb.resume.resumeMs) : '–'));
  for (const [i, c] of node.commit.entries()) {
    const at = c.turns.toLocaleString('en-US');
    for (const [kind, label] of [['append', 'with append'], ['whole', 'whole (no append)']]) {
      row(`indexedDbSessionStore commit at turn ${at}, ${label}: bytes / store ms / reply end → result ms`, (m) =>
        m.idb ? `${m.idb[kind][i].bytes} / ${f(m.idb[kind][i].storeMs, 1)} / ${f(m.idb[kind][i].commitMs, 1)}` : '–',
      );
    }
  }
  row('terminal interactive, cold (loads fx-term.wasm), ms', (m) => f(m.terminal.interactiveColdMs));
  row('terminal interactive, warm, ms', (m) => f(m.terminal.interactiveWarmMs, 2));
  row('keystroke echo, median / p95, ms', (m) => `${f(m.terminal.echoMedianMs, 3)} / ${f(m.terminal.echoP95Ms, 3)}`);
  row('bytes per token, 1 token per read', (m) => f(m.terminal.bytesPerToken1));
  row('bytes per token, 8 tokens per read', (m) => f(m.terminal.bytesPerToken8));
  row('createFxbot ready, cold (compiles fx-bot.wasm), ms', (m) => f(m.bots.readyColdMs));
  row('createFxbot ready, warm, ms', (m) => f(m.bots.readyWarmMs, 2));
  const deltas = node.bots.rows[0].deltas.toLocaleString('en-US');
  const earlier = node.bots.rows.map((b) => b.earlier).join(' / ');
  row(`bot send → first stream line, after ${earlier} earlier turns, ms`, (m) =>
    m.bots.rows.map((b) => f(b.firstLineMs, 2)).join(' / '),
  );
  row(`follow a ${deltas}-delta bot reply, after ${earlier} earlier turns: ms (session loads + document reads)`, (m) =>
    m.bots.rows.map((b) => `${f(b.ms)} (${b.sessionLoads}+${b.docReads})`).join(' / '),
  );
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c].length), c === 0 ? 6 : 8));
  const line = (cells) => `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(' | ')} |`;
  return [
    line(['figure', 'Node', 'Chromium']),
    `|${widths.map((w, c) => (c === 0 ? `-${'-'.repeat(w)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

const started = performance.now();
const sized = await sizes();
const node = await inNode();
const chromium = await inChromium();
console.log(
  `Node ${process.version}, Chromium ${chromium.version}; ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; ` +
    `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}${quick ? '; --quick: tiny sizes, one run each' : ''}`,
);
console.log(table(sized, node, chromium.figures));
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
