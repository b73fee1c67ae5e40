#!/usr/bin/env python3
"""Reads hyperfine --export-json files and prints {name: {p50_ms, p99_ms, median_ms, runs}}."""
import json, statistics, sys

def percentile(values, fraction):
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

out = {}
for path in sys.argv[1:]:
    for result in json.load(open(path))["results"]:
        times = [t * 1000 for t in result["times"]]
        out[result["command"]] = {"p50_ms": percentile(times, 0.5), "p99_ms": percentile(times, 0.99),
                                  "median_ms": statistics.median(times), "runs": len(times)}
print(json.dumps(out, indent=1))
