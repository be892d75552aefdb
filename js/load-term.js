// fx-term.wasm (the agent plus the interactive terminal) and its wasm-bindgen glue. The default
// location is the literal `new URL('./fx-term.wasm', import.meta.url)` so that bundlers (Vite,
// webpack 5, Parcel) see the file and emit it with the bundle.

import { loadArtifact } from './wasm.js';

const TERM = {
  name: 'fx-term',
  glue: () => import('./fx-term.js'),
  location: () => new URL('./fx-term.wasm', import.meta.url),
};

/** Loads fx-term once per page from `source` (see `loadArtifact`); resolves to its glue. */
export function loadTerm(source) {
  return loadArtifact(TERM, source);
}
