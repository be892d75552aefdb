// fx-bot.wasm (the bots engine) and its wasm-bindgen glue, loaded once per page. The default
// location is the literal `new URL('../fx-bot.wasm', import.meta.url)` so that bundlers see the
// file and emit it with the bundle.

import { loadArtifact } from '../wasm.js';

const BOT = {
  name: 'fx-bot',
  glue: () => import('../fx-bot.js'),
  location: () => new URL('../fx-bot.wasm', import.meta.url),
};

/** Loads fx-bot once per page from `source` (see `loadArtifact`); resolves to its glue. */
export function loadBot(source) {
  return loadArtifact(BOT, source);
}
