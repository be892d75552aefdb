#!/usr/bin/env bash
# The main job: set up (idempotently), build the package into pkg/, and run the dev gateway on
# 127.0.0.1, which serves the try page at / — fx in a browser tab. Open the printed URL.
#
#   PORT=NNNN                  another port (default 8787)
#   --demo                     every model request gets the scripted demo model (offline)
#   AI_GATEWAY_API_KEY=...     visitors without a key of their own use this one (the page never
#                              sees it); without it they sign in or paste a key, or get the demo
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

./scripts/setup.sh
npm run --silent build
exec node examples/dev-gateway/server.mjs --port "${PORT:-8787}" "$@"
