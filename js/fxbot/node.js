// `fx-wasm/fxbot` in Node (the `node` condition): the same API as index.js, with `file:` URLs
// read through node:fs so the default fx-bot.wasm next to the package loads from disk.

import { readFile } from 'node:fs/promises';

import { setFileReader } from '../wasm.js';

setFileReader(readFile);

export * from './index.js';
