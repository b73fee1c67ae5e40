#!/usr/bin/env bash
# Sets up everything that is missing (test tools included), builds, and runs the whole suite.
# Arguments go to the test runner: scripts/test.sh --filter HistoryStoreTests
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
if ! command -v swift >/dev/null; then export PATH="/opt/swift/usr/bin:$PATH"; fi
swift build --build-tests
# The fuzz targets are compiled from lists of sources; one missing a file is found before the suite.
if [ $# -eq 0 ]; then scripts/fuzz.sh --build; fi
# The test binary runs by itself rather than under `swift test`: swift test relays the binary's
# output through a pipe and drops parts of it when there is much (one run here lost 157 of 387
# result lines, the closing "Test run with N tests" line among them), and it first runs XCTest,
# which has no tests here and closes on "Executed 0 tests". Run alone, the binary's own output is
# whole. The results also go to an xUnit file, counted again on the last line.
# Like swift test, plain output when it does not go to a terminal (the test binary colors by TERM).
if [ ! -t 1 ] || [ ! -t 2 ]; then export NO_COLOR=1; fi
results=.build/test-results.xml
rm -f "$results"
"$(swift build --show-bin-path)/harkPackageTests.xctest" --testing-library swift-testing \
  --xunit-output "$results" "$@"
# A short run of every fuzz target on its committed corpus (docs/fuzzing.md); not for a
# filtered run, which asked for some tests only.
if [ $# -eq 0 ]; then scripts/fuzz.sh --ci; fi
scripts/test-summary.sh "$results"
