#!/usr/bin/env bash
# Idempotent set-up for building and testing fx-wasm on a Debian machine: the wasm32 rustup
# target, wasm-bindgen-cli at the version Cargo.toml pins, npm dev dependencies (the bundlers of
# the consumer-app tests among them), and from Debian's packages the browsers of the browser
# tests: Chromium, Firefox ESR, and WebKitGTK's WebDriver + MiniBrowser with Xvfb. Each step is
# skipped when already done. Never downloads a browser or a prebuilt toolchain.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { printf '[setup] %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# 1. Rust target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli, exactly the version the crate pins (the CLI and the crate must agree).
want="$(sed -n 's/^wasm-bindgen *= *"=\([^"]*\)".*/\1/p' Cargo.toml | head -n1)"
if [ -z "$want" ]; then
  echo "[setup] Cargo.toml does not pin wasm-bindgen with \"=x.y.z\"" >&2
  exit 1
fi
have="$(wasm-bindgen --version 2>/dev/null || true)"
if [ "$have" != "wasm-bindgen $want" ]; then
  say "installing wasm-bindgen-cli $want (found: ${have:-none}); this compiles for a few minutes"
  cargo install wasm-bindgen-cli --version "$want"
fi

# 3. npm dev dependencies, re-installed when package-lock.json changes.
stamp="node_modules/.fx-lock-sha256"
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  say "installing npm dev dependencies (npm ci)"
  npm ci --no-audit --no-fund
  echo "$lock_sum" >"$stamp"
fi

# 4. The browsers, from Debian's packages: each package is installed only when its program is
#    missing, all in one apt-get run.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] || missing+=(webkit2gtk-driver)
[ -x /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser ] || missing+=(libwebkit2gtk-4.1-0)
command -v Xvfb >/dev/null || missing+=(xvfb)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing from Debian's packages: ${missing[*]}"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

say "ready"
