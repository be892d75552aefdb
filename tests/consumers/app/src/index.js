// The consumer app's browser entry: xterm.js in the page, then the checks; the result lands in
// `window.__fxConsumer` (or `window.__fxConsumerError`) for the test to read.

import { Terminal } from '@xterm/xterm';

import { runChecks } from './check.js';

const term = new Terminal({ cols: 80, rows: 24 });
term.open(document.getElementById('terminal'));

runChecks(term).then(
  (result) => {
    const wasm = performance
      .getEntriesByType('resource')
      .map((entry) => entry.name)
      .filter((name) => /\.wasm(\?|$)/.test(name));
    window.__fxConsumer = { ...result, wasm };
  },
  (error) => {
    window.__fxConsumerError = `${error?.name}: ${error?.message}\n${error?.stack ?? ''}`;
  },
);
