// The error codes the JS layer raises itself, and the one helper that builds those errors. The
// wasm core's codes are listed in src/code.rs (and raised by src/host/error.rs); js/index.d.ts
// documents both lists as `FxErrorCode`, js/fxbot/client.d.ts the `FXBOT_*` ones, and
// tests/error_codes.rs holds the lists and the docs equal.

/** Each code JS raises, with the error that carries it: its `name`, or `TypeError`. */
export const JS_ERROR_CODES = Object.freeze({
  // A wasm artifact could not be fetched, read or compiled (js/wasm.js).
  FX_WASM_LOAD_FAILED: 'FxError',
  // An adapter call abandoned because the agent stopped (js/host.js), or a call after close.
  FX_AGENT_CLOSED: 'FxError',
  // An adapter call that did not answer within adapterTimeoutMs (js/host.js).
  FX_ADAPTER_TIMEOUT: 'FxError',
  // An adapter result of the wrong shape (js/host.js).
  FX_ADAPTER_INVALID: 'TypeError',
  // The ready-made stores (js/memory-stores.js, js/stores/, js/fxbot/stores.js).
  FX_SESSION_REVISION_CONFLICT: 'FxStoreError',
  FX_OAUTH_SESSION_REVISION_CONFLICT: 'FxStoreError',
  FX_STORE_UNAVAILABLE: 'FxStoreError',
  FX_STORE_FAILED: 'FxStoreError',
  FXBOT_STORE_REVISION_CONFLICT: 'FxStoreError',
});

/**
 * The error for `code` (one of {@link JS_ERROR_CODES}): a `TypeError` or an `Error` with the
 * code's name, its `message`, its `code` and, when given, its `cause`.
 */
export function codedError(code, message, cause) {
  const kind = JS_ERROR_CODES[code];
  if (kind === undefined) throw new TypeError(`codedError: ${code} is not one of the JS error codes`);
  const options = cause === undefined ? undefined : { cause };
  const error = kind === 'TypeError' ? new TypeError(message, options) : new Error(message, options);
  if (kind !== 'TypeError') error.name = kind;
  error.code = code;
  return error;
}
