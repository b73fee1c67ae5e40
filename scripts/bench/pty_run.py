#!/usr/bin/env python3
"""Runs a command in a pseudo-terminal, as a person's terminal would, and times it.

  pty_run.py prompt RUNS TEXT -- CMD...   time until TEXT appears (then sends Ctrl-D); median, ms
  pty_run.py drain RUNS -- CMD...          time until the command exits, reading all output; median, s
  pty_run.py rss TEXT -- CMD...            peak and current RSS (kB) once TEXT appears
  pty_run.py firsttoken RUNS WARM PROMPT MESSAGE -- CMD...
                                           RUNS times: start CMD, wait for PROMPT, type MESSAGE ({n}
                                           numbers the turns) and
                                           Enter, time until the reply's first character shows
                                           (cold), then WARM times more in the same process
                                           (warm); medians, ms
  pty_run.py stamps -- CMD...              for every " s<ns>e" the command draws (ns: the server's
                                           CLOCK_MONOTONIC when it wrote the event), the time from
                                           that write until the bytes were read here; list, ms
Prints one JSON object.
"""
import fcntl, json, os, pty, re, select, signal, statistics, struct, sys, termios, time

def spawn(cmd):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    # An 80-column window, as hark cuts its lines to the width.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
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

class Screen:
    """What a pty has shown, read as it comes; `wait` consumes up to and including a text, so
    what came after it in the same read is still there for the next wait."""
    def __init__(self, fd):
        self.fd, self.pending = fd, b""

    def wait(self, text, seconds):
        needle, deadline = text.encode(), time.monotonic() + seconds
        while needle not in self.pending:
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if time.monotonic() > deadline:
                return False
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                self.pending = self.pending[-4096:] + chunk
        self.pending = self.pending[self.pending.index(needle) + len(needle):]
        return True

CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

def reply_began(shown):
    """Whether what the shell drew after Enter holds a reply's first character: anything
    visible but the status lines (`· starting llama.cpp's server…`) and the spinner (`⠙ 0.2s`),
    each drawn on a line of its own or over itself after a carriage return."""
    text = CSI.sub("", shown.decode("utf-8", "ignore"))
    for part in re.split(r"[\r\n]", text):
        part = part.strip()
        if part and not part.startswith("·") and not "\u2800" <= part[0] <= "\u28ff":
            return True
    return False

def firsttoken(runs, warm, prompt_text, message, cmd):
    cold_times, warm_times = [], []
    for _ in range(runs):
        pid, fd = spawn(cmd)
        screen = Screen(fd)
        for turn in range(1 + warm):
            if not screen.wait(prompt_text, 60):
                raise SystemExit("prompt never appeared")
            # `{n}` numbers the turns: each prompt differs, as in a conversation, so the server's
            # prompt cache holds only what they share.
            typed = message.replace("{n}", str(turn + 1))
            os.write(fd, typed.encode())
            # The line is echoed as it is typed; the clock starts at Enter.
            if not screen.wait(typed[-8:], 10):
                raise SystemExit("the message was not echoed")
            start = time.monotonic()
            os.write(fd, b"\r")
            shown = b""
            while not reply_began(shown):
                ready, _, _ = select.select([fd], [], [], 0.5)
                if time.monotonic() > start + 300:
                    raise SystemExit("no reply after 5 minutes")
                if ready:
                    shown += os.read(fd, 65536)
            (cold_times if turn == 0 else warm_times).append((time.monotonic() - start) * 1000)
            screen.pending = shown
        finish(pid, fd)
    return {"cold_median_ms": statistics.median(cold_times), "cold_ms": cold_times,
            "warm_median_ms": statistics.median(warm_times), "warm_runs": len(warm_times),
            "warm_min_ms": min(warm_times), "warm_max_ms": max(warm_times)}

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
elif mode == "firsttoken":
    print(json.dumps(firsttoken(int(args[0]), int(args[1]), args[2], args[3], cmd)))
elif mode == "stamps":
    print(json.dumps(stamps(cmd)))
elif mode == "rss":
    print(json.dumps(rss(args[0], cmd)))
