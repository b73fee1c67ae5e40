#!/usr/bin/env bash
# Sets up everything that is missing (test tools included), builds, and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
if ! command -v swift >/dev/null; then export PATH="/opt/swift/usr/bin:$PATH"; fi
swift build --build-tests
# The results also go to an xUnit file: swift test's own summary line is sometimes lost when its
# output is relayed through a pipe, and XCTest, which has no tests here, closes on "Executed 0
# tests". The count printed last is read from the file, so a reader of the log sees what ran.
results=.build/test-results.xml
rm -f "${results%.xml}"*.xml
swift test --skip-build --xunit-output "$results" "$@"
# A short run of every fuzz target on its committed corpus (docs/fuzzing.md); not for a
# filtered run, which asked for some tests only.
if [ $# -eq 0 ]; then scripts/fuzz.sh --ci; fi
scripts/test-summary.sh "${results%.xml}-swift-testing.xml"
