// The consumer app in Node: the package imported by name, the checks on a headless xterm.js.

import xtermHeadless from '@xterm/headless';

import { runChecks } from './src/check.js';

const term = new xtermHeadless.Terminal({ cols: 80, rows: 24, allowProposedApi: true });
console.log(JSON.stringify(await runChecks(term)));
