#!/usr/bin/env bash
# Sets up everything that is missing (test tools included), builds, and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
if ! command -v swift >/dev/null; then export PATH="/opt/swift/usr/bin:$PATH"; fi
swift build --build-tests
swift test --skip-build "$@"
# A short run of every fuzz target on its committed corpus (docs/fuzzing.md); not for a
# filtered run, which asked for some tests only.
if [ $# -eq 0 ]; then scripts/fuzz.sh --ci; fi
