#!/usr/bin/env bash
# Runs one cargo-fuzz target for N seconds: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
# (`scripts/fuzz.sh list` names the targets). The corpus grows in fuzz/corpus/TARGET (ignored by
# git), seeded from fuzz/seeds/TARGET; crashes land in fuzz/artifacts/TARGET. Needs the nightly
# toolchain and cargo-fuzz (installed when missing). Prints libFuzzer's final stats: runs,
# coverage (cov), features (ft) and the corpus size.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/fuzz"

targets() { sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^fx-wasm-fuzz$'; }

if [ "${1:-}" = "list" ]; then
  targets
  exit 0
fi
if [ $# -lt 2 ] || ! targets | grep -qx "$1" || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]; targets:" >&2
  targets | sed 's/^/  /' >&2
  exit 2
fi
target="$1"
seconds="$2"
shift 2

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

corpus="corpus/$target"
mkdir -p "$corpus"
if [ -d "seeds/$target" ]; then
  cp -n "seeds/$target"/* "$corpus"/ 2>/dev/null || true
fi

# -rss_limit_mb: the decoders must stay bounded; -max_len lets whole session directories in.
exec cargo +nightly fuzz run "$target" "$corpus" -- \
  -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -max_len=65536 "$@"
