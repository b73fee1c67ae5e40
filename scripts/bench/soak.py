#!/usr/bin/env python3
"""Soak: one interactive hark in a pseudo-terminal while REPLIES replies (1,000 by default) come
in from five sessions on three loopback servers, some sent to the background with Ctrl-Z and
some stopped with Ctrl-C, as a person would. Every 100 replies (once the backgrounded ones have
ended) it samples hark's resident memory, open file descriptors and threads from /proc.

  soak.py [REPLIES]        prints the samples as JSON; exits 1 if, after the last reply, RSS or
                           descriptors are more than 10 % above what they were after 100, or
                           there are more threads

HARK_BIN runs another build. The sessions: `bench` and `n8n` (hark-bench-server: OpenAI SSE and
n8n NDJSON), `py` (sse_server.py, llama.cpp's layout, one write per event; its slow `stamp=`
replies are the ones backgrounded and stopped), `oai` and `olla` (layouts_server.py: OpenAI's
layout with 1 KiB events, Ollama's with its escapes). `context = 0`, so no request grows with
its thread."""
import json, os, pty, re, select, sqlite3, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.dirname(__file__)
HARK = os.environ.get("HARK_BIN") or os.path.join(ROOT, ".build/release/hark")
PROMPT = b"local \xe2\x80\xba "
MESSAGES = {"bench": "bytes=3000", "n8n": "bytes=3000", "py": "hi", "oai": "openai prose chunked 5000",
            "olla": "ollama token chunked 5000"}
SESSIONS = list(MESSAGES)
SLOW = "stamp=60,10"  # 60 events 10 ms apart


def start(command):
    # The servers' complaints about the replies stopped mid-stream (a closed socket) are not news.
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return process, int(process.stdout.readline())


class Screen:
    """What the pty shows, read as it comes; `wait` consumes through the text it waits for."""
    RETURNED = "\u21a9".encode()  # ↩: a backgrounded reply announces its end whenever it comes

    def __init__(self, fd):
        self.fd, self.pending, self.returned, self.carry = fd, b"", 0, b""

    def read(self, seconds):
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if ready:
            chunk = os.read(self.fd, 1 << 16)
            seen = self.carry + chunk
            self.returned += seen.count(self.RETURNED)
            self.carry = seen[-(len(self.RETURNED) - 1):]
            self.pending += chunk

    def wait(self, text, seconds=60):
        deadline = time.monotonic() + seconds
        while text not in self.pending:
            if time.monotonic() > deadline:
                raise SystemExit(f"waited {seconds} s for {text!r}; the screen ends with {self.pending[-400:]!r}")
            self.read(1)
        self.pending = self.pending[self.pending.index(text) + len(text):]


def newest_reply(database):
    """The id of the newest reply in the history and whether it is still being written."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
            row = connection.execute("SELECT id, writer_pid IS NOT NULL FROM messages WHERE role = 'assistant' "
                                     "ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.OperationalError:
        return 0, False
    return (row[0], bool(row[1])) if row else (0, False)


def wait_for_reply_after(screen, database, before, seconds=60):
    """Waits for a reply newer than `before` to be stored whole, then for the prompt drawn
    after it. A prompt alone is not enough: the shell draws one below a streaming reply for
    typing ahead, and a line typed there goes to the background. (A benchmark's wait: the
    100 ms of quiet is a guess that the shell draws its prompt within it, fine for measuring
    memory, not for a test.)"""
    deadline = time.monotonic() + seconds
    while True:
        newest, writing = newest_reply(database)
        if newest > before and not writing:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"waited {seconds} s for a reply after #{before}")
        screen.read(0.005)
    # Then the prompt, last on the screen with nothing after it for 100 ms: the one drawn for
    # typing ahead had the reply's text after it.
    while True:
        if screen.pending.endswith(PROMPT) and not select.select([screen.fd], [], [], 0.1)[0]:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"waited {seconds} s for the prompt; the screen ends with {screen.pending[-400:]!r}")
        screen.read(0.1)
    screen.pending = b""


def sample(pid):
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status").read().splitlines())
    kilobytes = lambda field: int(status[field].split()[0])
    # Resident memory, and of it what is the program's own (heap, stacks) and what is files
    # mapped (the executable's pages as code runs, SQLite's shared WAL index).
    return {"rss_kb": kilobytes("VmRSS"), "anon_kb": kilobytes("RssAnon"), "file_kb": kilobytes("RssFile"),
            "threads": int(status["Threads"]), "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def main():
    replies = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    bench, bench_port = start([os.environ.get("BENCH_SERVER_BIN") or os.path.join(ROOT, ".build/release/hark-bench-server")])
    python, python_port = start([sys.executable, os.path.join(HERE, "sse_server.py")])
    layouts, layouts_port = start([sys.executable, os.path.join(HERE, "layouts_server.py")])
    home = tempfile.mkdtemp(prefix="soak-")
    os.makedirs(f"{home}/config/hark")
    with open(f"{home}/config/hark/config", "w") as config:
        for name, port, path in (("bench", bench_port, "v1"), ("py", python_port, "v1"), ("oai", layouts_port, "v1"),
                                 ("olla", layouts_port, "v1")):
            config.write(f"[session {name}]\nkind = openai\nurl = http://127.0.0.1:{port}/{path}\nmodel = m\ncontext = 0\n\n")
        config.write(f"[session n8n]\nkind = webhook\nurl = http://127.0.0.1:{bench_port}/webhook/bench/chat\n")
    os.chmod(f"{home}/config/hark/config", 0o600)
    env = dict(os.environ, XDG_CONFIG_HOME=f"{home}/config", XDG_DATA_HOME=f"{home}/data", NO_COLOR="1",
               TERM="xterm-256color")
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(HARK, [HARK], env)
    database = f"{home}/data/hark/history.db"
    screen = Screen(fd)
    screen.wait(PROMPT)
    samples, backgrounded, stopped = [], 0, 0
    started = time.monotonic()
    for turn in range(1, replies + 1):
        if turn % 10 in (3, 7):
            # A slow reply: sent to the background (3) or stopped (7) once its first event shows.
            os.write(fd, f"@py {SLOW}\r".encode())
            screen.wait(b"py \xe2\x80\xba")
            # Its events are " s<stamp>e", with the cursor moves of the line to type between them.
            screen.wait(b" s")
            screen.wait(b"e")
            if turn % 10 == 3:
                os.write(fd, b"\x1a")
                screen.wait(b"in the background")
                backgrounded += 1
            else:
                os.write(fd, b"\x03")
                screen.wait(b"(stopped;")
                stopped += 1
            screen.wait(PROMPT)
        else:
            session = SESSIONS[turn % len(SESSIONS)]
            before, _ = newest_reply(database)
            os.write(fd, f"@{session} {MESSAGES[session]}\r".encode())
            screen.wait(f"{session} \u203a".encode())
            wait_for_reply_after(screen, database, before)
        if turn % 100 == 0:
            # Samples with every backgrounded reply ended, so each shows the shell at rest.
            deadline = time.monotonic() + 60
            while screen.returned < backgrounded and time.monotonic() < deadline:
                screen.read(1)
            samples.append({"replies": turn, "backgrounded": backgrounded, "stopped": stopped,
                            "seconds": round(time.monotonic() - started, 1), **sample(pid)})
            print(json.dumps(samples[-1]), file=sys.stderr)
    os.write(fd, b"\x04")
    os.waitpid(pid, 0)
    for process in (bench, python, layouts):
        process.stdin.close()
        process.wait(timeout=10)
    subprocess.run(["rm", "-rf", home])
    first, last = samples[0], samples[-1]
    verdict = {"rss_growth": last["rss_kb"] / first["rss_kb"] - 1, "fds_growth": last["fds"] / first["fds"] - 1,
               "thread_growth": last["threads"] - first["threads"]}
    print(json.dumps({"samples": samples, **verdict}, indent=1))
    ok = verdict["rss_growth"] <= 0.10 and verdict["fds_growth"] <= 0.10 and verdict["thread_growth"] <= 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
