#!/usr/bin/env bash
# The main job: set up (idempotently), build the package into pkg/, and serve examples/ on
# 127.0.0.1. Open the printed URL; the session viewer shows the recorded fx sessions.
# PORT=NNNN picks another port (default 8787).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

./scripts/setup.sh
npm run --silent build
exec node scripts/serve.mjs "${PORT:-8787}"
