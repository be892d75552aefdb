// The package's entry in Node (the `node` condition of the exports map): the same API as
// index.js, with `file:` URLs and paths read through node:fs, so the default wasm locations next
// to this module load from disk. Browsers and bundlers targeting them get index.js, which imports
// no `node:` module.

import { readFile } from 'node:fs/promises';

import { setFileReader } from './wasm.js';

setFileReader(readFile);

export * from './index.js';
