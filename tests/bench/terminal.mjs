// Terminal benchmark in Node (run `npm run build` first): `node tests/bench/terminal.mjs`.
// Prints time to `interactive`, keystroke-to-echo latency, and bytes written to the terminal per
// streamed token for a 5,000-token reply, through @xterm/headless and the built package
// (tests/bench/terminal-measure.mjs; `npm run bench` runs it in Chromium too).

import xtermHeadless from '@xterm/headless';

import * as fx from '../../pkg/index.js';
import { fakeFetch, sse } from '../node/agent-support.mjs';
import { runTerminalBenchmarks } from './terminal-measure.mjs';

const { Terminal } = xtermHeadless;
const makeTerminal = (cols, rows) => new Terminal({ cols, rows, allowProposedApi: true, scrollback: 10000 });
const r = await runTerminalBenchmarks({ fx, makeTerminal, fakeFetch, sse });

console.log(`Node ${process.version}, @xterm/headless, 100×30`);
console.log(`time to interactive, first (loads fx-term.wasm): ${r.interactiveColdMs.toFixed(1)} ms`);
console.log(`time to interactive, warm (median of 5):       ${r.interactiveWarmMs.toFixed(1)} ms`);
console.log(`keystroke to echo (300 keys): median ${r.echoMedianMs.toFixed(3)} ms, p95 ${r.echoP95Ms.toFixed(3)} ms`);
console.log(`streamed reply of ${r.tokens} tokens: ${r.bytesPerToken1.toFixed(1)} bytes per token (one token per read), ${r.bytesPerToken8.toFixed(1)} (8 per read)`);
