#!/usr/bin/env python3
"""Compares builds (or any commands) run by turns: `compare.py RUNS LABEL=COMMAND…` runs each
command once per round, RUNS rounds, and prints per label the median and least wall time, CPU
time (user + system, the process and every thread of it) and minor page faults. Interleaving
puts each build under the same load; between runs it waits for the `hark index` a one-shot run
leaves behind (wait_indexers.py), so no run shares the cores with the one before. Commands run
in a shell with this environment (point XDG_CONFIG_HOME/XDG_DATA_HOME at a bench home first)."""
import os, resource, statistics, subprocess, sys, time
import wait_indexers

def main():
    rounds, specs = int(sys.argv[1]), [arg.split("=", 1) for arg in sys.argv[2:]]
    data_home = os.environ.get("XDG_DATA_HOME", "")
    seen = {label: ([], [], []) for label, _ in specs}
    for _ in range(rounds):
        for label, command in specs:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.monotonic()
            subprocess.run(command, shell=True, stdout=subprocess.DEVNULL)
            wall = time.monotonic() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            walls, cpus, faults = seen[label]
            walls.append(wall * 1000)
            cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
            faults.append(after.ru_minflt - before.ru_minflt)
            if data_home:
                wait_indexers.wait(data_home)
    for label, (walls, cpus, faults) in seen.items():
        print(f"{label:12s} wall p50 {statistics.median(walls):7.1f} ms  min {min(walls):7.1f}   "
              f"cpu p50 {statistics.median(cpus):6.1f} ms  min {min(cpus):6.1f}   faults {statistics.median(faults):6.0f}")

if __name__ == "__main__":
    main()
