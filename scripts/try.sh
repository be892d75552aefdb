#!/usr/bin/env bash
# The main job: set up (idempotently), build the package into pkg/, and run the dev gateway on
# 127.0.0.1, which serves the try page at / — fx in a browser tab. It prints the URL to open.
# `./scripts/try.sh --help` says how to call it.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: ./scripts/try.sh [--demo] [--server] [--port N]

Sets up what is missing (once), builds the package into pkg/, and serves the try page, fx in a
browser tab, on 127.0.0.1. Open the URL it prints. Ctrl+C stops it.

Options:
  --demo         every model request gets the scripted demo model (offline, no AI), whatever
                 the visitor's key or sign-in
  --server       serve the bots page against fxbot's server instead (examples/bots/server.mjs):
                 bots, chats and files in PGlite under .fxbot-data/, the scripted demo model,
                 offline; open the URL it prints (it carries the token that lets the page in)
  --port N       listen on port N (default 8787, or $PORT; 0 picks a free port)
  -h, --help     print this help and exit

Environment:
  PORT=N                   the port, when --port is not given
  AI_GATEWAY_API_KEY=...   visitors without a key of their own use this one (the page never
                           sees it); without it they sign in or paste a key, or get the demo
USAGE
}

# A port is a whole number from 0 to 65535 (refused here, before the setup and the build).
check_port() {
  if ! [[ "$1" =~ ^[0-9]{1,5}$ ]] || [ "$((10#$1))" -gt 65535 ]; then
    echo "try.sh: ${2:---port} takes a port number from 0 to 65535, got '$1' (see ./scripts/try.sh --help)" >&2
    exit 2
  fi
}

args=()
server=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --demo)
      args+=(--demo)
      ;;
    --server)
      server=1
      ;;
    --port)
      if [ $# -lt 2 ] || [ -z "$2" ]; then
        echo "try.sh: --port needs a port number (see ./scripts/try.sh --help)" >&2
        exit 2
      fi
      check_port "$2"
      args+=(--port "$2")
      shift
      ;;
    --port=*)
      check_port "${1#--port=}"
      args+=(--port "${1#--port=}")
      ;;
    *)
      echo "try.sh: unknown option '$1' (see ./scripts/try.sh --help)" >&2
      exit 2
      ;;
  esac
  shift
done
if [[ " ${args[*]:-} " != *" --port "* ]]; then
  check_port "${PORT:-8787}" PORT
  args+=(--port "${PORT:-8787}")
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

./scripts/setup.sh
npm run --silent build
if [ "$server" = 1 ]; then
  # --demo is implied: the server's bots use the scripted demo model.
  port_args=()
  for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[$i]}" = --port ]; then port_args=(--port "${args[$((i + 1))]}"); fi
  done
  exec node examples/bots/server.mjs "${port_args[@]}"
fi
exec node examples/dev-gateway/server.mjs "${args[@]}"
