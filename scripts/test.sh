#!/usr/bin/env bash
# Every test of fx-wasm, in five layers: (a) Rust checks and native tests, (b) wasm-bindgen-test
# under Node, (c) node:test suites against the built pkg/, (d) consumer apps of the packed
# package (Vite, webpack, Rollup, esbuild, an import map, Node), (e) the browser suites in
# Chromium, Firefox and WebKit. Runs every layer, exits non-zero if anything failed, and ends
# with node's test summary.
#
#   FX_ENGINES=chromium          the browser layer in fewer engines (default: all three)
#   FX_NATIVE=/path/to/fx        the fx CLI the session tests compare with (default: the oracle
#                                build beside the project, ../shared/tools/fx-cli/fx, when it is
#                                there; without one those comparisons say they were skipped)
#
# Nothing may hang the run: a node:test file fails after FILE_TIMEOUT_MS (node 20 applies
# --test-timeout to each file as a whole), a file's process is ended once its tests are done
# (--test-force-exit), the browser driver gives up on a page script or WebDriver command that does
# not answer (tests/browser/engines.mjs), and each layer as a whole is stopped after its limit.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

"$root/scripts/setup.sh" || exit 1

if [ -z "${FX_NATIVE:-}" ] && [ -x "$root/../shared/tools/fx-cli/fx" ]; then
  export FX_NATIVE="$root/../shared/tools/fx-cli/fx"
fi
echo "fx CLI oracle (FX_NATIVE): ${FX_NATIVE:-none, the CLI comparisons are skipped}"

failed=()
FILE_TIMEOUT_MS=900000
# node --test with the per-file deadline, stopped as a whole after $1 seconds.
node_tests() {
  local limit="$1"
  shift
  timeout --kill-after=20 "$limit" node --test --test-force-exit --test-timeout="$FILE_TIMEOUT_MS" "$@"
  local rc=$?
  stopped "$rc" "$limit" "node --test"
}
# Says so when `timeout` stopped a command; passes its status on.
stopped() {
  if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
    echo "$3 did not finish within $2 s and was stopped"
  fi
  return "$1"
}
# A cargo command, stopped after $1 seconds.
cargo_within() {
  local limit="$1"
  shift
  timeout --kill-after=20 "$limit" cargo "$@"
  stopped $? "$limit" "cargo $1"
}
layer() { printf '\n==== layer %s\n' "$1"; }
step() {
  local name="$1"
  shift
  local start=$SECONDS
  printf -- '---- %s\n' "$name"
  if "$@"; then
    printf -- '---- ok: %s (%ss)\n' "$name" "$((SECONDS - start))"
  else
    failed+=("$name")
    printf -- '---- FAILED: %s (%ss)\n' "$name" "$((SECONDS - start))"
  fi
}

# JavaScript bindings (wasm_bindgen, wasm_bindgen_futures, js_sys, web_sys) belong in src/host/
# and src/api/ only (and the wasm tests); a comment may name them.
bindings_stay_in_host_and_api() {
  local stray
  stray="$(grep -rnE '\b(js_sys|web_sys|wasm_bindgen[a-z_]*)\b' src tests --include='*.rs' |
    grep -vE '^[^:]+:[0-9]+:\s*//' |
    grep -vE '^src/(host|api)/|^tests/wasm[^/]*\.rs:' || true)"
  if [ -n "$stray" ]; then
    echo "JS bindings used outside src/host/ and src/api/:"
    echo "$stray"
    return 1
  fi
}

layer "a: Rust checks and native tests"
step "cargo fmt --check" cargo fmt --check
step "cargo clippy (native)" cargo clippy --all-targets --all-features -- -D warnings
step "cargo clippy (wasm32)" cargo clippy --target wasm32-unknown-unknown --lib --test wasm --all-features -- -D warnings
step "JS bindings only in src/host and src/api" bindings_stay_in_host_and_api
step "cargo test (native)" cargo_within 2400 test --all-features

layer "b: wasm-bindgen-test under Node"
wasm_tests() {
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    cargo_within 1500 test --target wasm32-unknown-unknown --test wasm
}
step "cargo test --target wasm32-unknown-unknown --test wasm" wasm_tests

layer "c: the built package under Node"
step "npm run build" npm run --silent build
step "node --test tests/node" node_tests 1500 tests/node/*.test.mjs
step "bench smoke (node scripts/bench.mjs --quick: tiny sizes, no figures checked)" node scripts/bench.mjs --quick

if [ ${#failed[@]} -gt 0 ]; then
  printf '\n==== failed so far: %s\n' "$(IFS=';'; echo "${failed[*]}")"
fi

layer "d: consumer apps of the packed package (Chromium, Node)"
step "node --test tests/consumers" node_tests 1200 tests/consumers/*.test.mjs

if [ ${#failed[@]} -gt 0 ]; then
  printf '\n==== failed so far: %s\n' "$(IFS=';'; echo "${failed[*]}")"
fi

layer "e: browsers (${FX_ENGINES:-chromium,firefox,webkit}: Debian's Chromium, Firefox ESR, WebKitGTK)"
# Not through step(): nothing may print after node's summary.
printf -- '---- node --test tests/browser\n'
node_tests 2100 tests/browser/*.test.mjs || failed+=("node --test tests/browser")

[ ${#failed[@]} -eq 0 ]
