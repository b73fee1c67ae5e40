#!/usr/bin/env python3
"""Runs a command in a pseudo-terminal, as a person's terminal would, and times it.

  pty_run.py prompt RUNS TEXT -- CMD...   time until TEXT appears (then sends Ctrl-D); median, ms
  pty_run.py drain RUNS -- CMD...          time until the command exits, reading all output; median, s
  pty_run.py rss TEXT -- CMD...            peak and current RSS (kB) once TEXT appears
  pty_run.py stamps -- CMD...              for every " s<ns>e" the command draws (ns: the server's
                                           CLOCK_MONOTONIC when it wrote the event), the time from
                                           that write until the bytes were read here; list, ms
Prints one JSON object.
"""
import json, os, pty, re, select, signal, statistics, sys, time

def spawn(cmd):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    return pid, fd

def read_until(fd, needle, deadline):
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return None
        if not chunk:
            return None
        seen += chunk
        if needle in seen:
            return seen
        seen = seen[-4096:]
    return None

def finish(pid, fd):
    try:
        os.write(fd, b"\x04")
    except OSError:
        pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        try:
            select.select([fd], [], [], 0.1) and os.read(fd, 65536)
        except OSError:
            pass
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)

def prompt(runs, text, cmd):
    times = []
    for _ in range(runs):
        start = time.monotonic()
        pid, fd = spawn(cmd)
        if read_until(fd, text.encode(), start + 10) is None:
            raise SystemExit("prompt never appeared")
        times.append((time.monotonic() - start) * 1000)
        finish(pid, fd)
    return {"median_ms": statistics.median(times), "runs": runs, "min_ms": min(times), "max_ms": max(times)}

def drain(runs, cmd):
    times = []
    for _ in range(runs):
        start = time.monotonic()
        pid, fd = spawn(cmd)
        total = 0
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError:
                break
            if not chunk:
                break
            total += len(chunk)
        os.waitpid(pid, 0)
        os.close(fd)
        times.append(time.monotonic() - start)
    return {"median_s": statistics.median(times), "runs": runs, "bytes_out": total}

def rss(text, cmd):
    pid, fd = spawn(cmd)
    if read_until(fd, text.encode(), time.monotonic() + 10) is None:
        raise SystemExit("prompt never appeared")
    status = open(f"/proc/{pid}/status").read()
    fields = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith(("VmRSS", "VmHWM"))}
    finish(pid, fd)
    return {"rss_kb": fields.get("VmRSS"), "peak_rss_kb": fields.get("VmHWM")}

STAMP = re.compile(rb"s(\d{6,})e")

def stamps(cmd):
    """Reads as a terminal would, as soon as bytes are there; a stamp counts when its closing
    `e` has been read."""
    pid, fd = spawn(cmd)
    delays, carry = [], b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        carry += chunk
        last = 0
        for match in STAMP.finditer(carry):
            delays.append((now - int(match.group(1))) / 1e6)
            last = match.end()
        carry = carry[last:][-64:]
    os.waitpid(pid, 0)
    os.close(fd)
    return {"delays_ms": delays}

mode = sys.argv[1]
split = sys.argv.index("--")
args, cmd = sys.argv[2:split], sys.argv[split + 1:]
if mode == "prompt":
    print(json.dumps(prompt(int(args[0]), args[1], cmd)))
elif mode == "drain":
    print(json.dumps(drain(int(args[0]), cmd)))
elif mode == "stamps":
    print(json.dumps(stamps(cmd)))
elif mode == "rss":
    print(json.dumps(rss(args[0], cmd)))
