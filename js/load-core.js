// fx-core.wasm (the headless agent and the session functions) and its wasm-bindgen glue. The
// default location is the literal `new URL('./fx-core.wasm', import.meta.url)` so that bundlers
// (Vite, webpack 5, Parcel) see the file and emit it with the bundle.

import { loadArtifact } from './wasm.js';

const CORE = {
  name: 'fx-core',
  glue: () => import('./fx-core.js'),
  location: () => new URL('./fx-core.wasm', import.meta.url),
};

/** Loads fx-core once per page from `source` (see `loadArtifact`); resolves to its glue. */
export function loadCore(source) {
  return loadArtifact(CORE, source);
}
