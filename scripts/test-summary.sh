#!/usr/bin/env bash
# Prints "tests: N passed, F failed" from a Swift Testing xUnit file (--xunit-output),
# and exits non-zero if the file is missing, names no test, or counts a failure.
set -euo pipefail
file=${1:?usage: scripts/test-summary.sh RESULTS.xml}
if [ ! -s "$file" ]; then echo "test-summary: no results in $file; did the tests run?" >&2; exit 1; fi
python3 - "$file" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
count = lambda key: sum(int(s.get(key, 0)) for s in suites)
tests, failed = count("tests"), count("failures") + count("errors")
skipped = count("skipped")
line = f"tests: {tests - failed - skipped} passed, {failed} failed"
print(line + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed or tests == 0 else 0)
PY
