#!/usr/bin/env bash
# Sets up everything that is missing, builds a release hark and starts it. With no arguments
# it opens the shell on the built-in, offline `local` session; arguments go to hark.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --release
exec .build/release/hark "$@"
