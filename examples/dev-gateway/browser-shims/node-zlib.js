// Stand-in for node:zlib in the browser: just-bash imports it for gzip/gunzip/zcat, which are
// then unavailable in the tab (every other command works).
function unavailable() {
  throw new Error('gzip is not available in the browser workspace');
}

export const constants = { Z_BEST_COMPRESSION: 9, Z_BEST_SPEED: 1, Z_DEFAULT_COMPRESSION: -1 };
export const gzipSync = unavailable;
export const gunzipSync = unavailable;
export const deflateSync = unavailable;
export const inflateSync = unavailable;
export default { constants, gzipSync, gunzipSync, deflateSync, inflateSync };
