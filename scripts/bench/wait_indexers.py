#!/usr/bin/env python3
"""Waits until no `hark index` works on the history under DATA_HOME (XDG_DATA_HOME): a one-shot
run leaves a long reply's indexing to one in the background. Used as hyperfine's --prepare, so
a timed run does not share the cores with the indexer the run before it started."""
import os, select, sys

def background_indexers(data_home):
    """The `hark index` processes working on the history under data_home."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                arguments = f.read().split(b"\0")
            with open(f"/proc/{entry}/environ", "rb") as f:
                environment = f.read().split(b"\0")
        except OSError:
            continue
        if arguments[1:2] == [b"index"] and f"XDG_DATA_HOME={data_home}".encode() in environment:
            found.append(int(entry))
    return found

def wait(data_home, seconds=60):
    """Waits for each through a pidfd (readable when it has ended), not by polling."""
    for pid in background_indexers(data_home):
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        select.select([fd], [], [], seconds)
        os.close(fd)

if __name__ == "__main__":
    wait(sys.argv[1])
