#!/usr/bin/env python3
"""The local session's offline model (SmolLM2-135M on llama.cpp's server from xllamacpp), as
`scripts/run.sh --with-model` sets it up, timed and scored through the hark binary. Each model
request hark makes goes through a recording proxy on loopback, and `curl -sN` posts the same
body straight to the same server in the same run: the reference, the model's own time.

  local_model.py HARK forms [READS] [PROCESSES]
      In a pseudo-terminal, /form bug-report, then answers to "Which product is it about?" that
      no rule reads (no choice, no synonym), so each goes to the model: the time from Enter until
      the form says what it made of it (the next question, or the rules' answer with a notice).
      Warm: READS answers in one process, to the server the tests start
      (Tests/Fixtures/llama/serve.py), and curl posting each recorded request. Cold: the first
      read of PROCESSES new processes with `serve = smollm2` (hark starts llama.cpp's server, as
      run.sh's session does). llm_timeout = 60, so the figure is the model's whole time, not the
      budget's. Prints the times (ms), p50/p95, and what each read gave.
  local_model.py BEFORE_HARK examples AFTER_HARK [RUNS]
      The issue's two examples, in RUNS new processes of each binary, with run.sh's session
      (max_tokens 256 for AFTER, none for BEFORE, as run.sh had it): "I was using it on my phone"
      to the product question (Enter until the form answers), and `hark -s local '/ask how long
      do I have to file expenses?'` over one policy file (the whole process); curl posts each
      recorded model request. HARK_PROMPTS_BEFORE: the BEFORE tree's prompts/ folder.
  local_model.py HARK ask [QUESTIONS.tsv]
      /docs add docs/, then each question of scripts/bench/ask_questions.tsv with `hark -s local
      '/ask …'`, without a model and with SmolLM2: how often what /ask shows (the answer and the
      passages under it) holds the expected text. Prints the scores and each miss.

Nothing leaves loopback. Not run by CI.
"""
import http.client, http.server, json, os, pty, re, select, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
ANSWERS = ["the one I use on the train", "the thing on my wrist", "the version my kids use", "whatever came preinstalled",
           "the one from the store", "the new one", "the beta my team tests", "the one in the car", "the kiosk",
           "the one at work", "the one on the fridge screen", "our internal tool", "the one you sell", "the one with dark mode",
           "the one my manager uses", "the thing I open every morning", "the smart TV one", "it runs on the watch",
           "the one without login", "the classic one"]


def home(config):
    path = tempfile.mkdtemp(prefix="hark-local-model-")
    os.makedirs(f"{path}/config/hark")
    with open(f"{path}/config/hark/config", "w") as out:
        out.write(config)
    os.chmod(f"{path}/config/hark/config", 0o600)
    return dict(os.environ, XDG_CONFIG_HOME=f"{path}/config", XDG_DATA_HOME=f"{path}/data", NO_COLOR="1",
                TERM="xterm-256color", COLUMNS="200")


class Terminal:
    def __init__(self, command, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(command[0], command, env)
        self.seen = b""

    def until(self, pattern, seconds=300):
        """Reads until `pattern` (a regex on the text since the last call) shows; the match."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = re.search(pattern, self.seen.decode("utf-8", "replace"))
            if found:
                self.seen = b""
                return found
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                self.seen += os.read(self.fd, 65536)
        raise SystemExit(f"no {pattern!r} within {seconds} s; the screen said: {self.seen[-2000:]!r}")

    def type(self, line):
        os.write(self.fd, line.encode() + b"\r")

    def close(self):
        os.write(self.fd, b"\x04")
        os.waitpid(self.pid, 0)


def percentile(values, fraction):
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class Recorder:
    """A loopback proxy in front of the llama.cpp server that keeps each model request's path and
    body, so curl can post the same bytes; the reply is passed on as it comes (re-chunked)."""

    def __init__(self, upstream):
        self.bodies = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_):
                pass

            def do_GET(self):
                self.forward(None)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.endswith("/completions") or self.path.endswith("/responses"):
                    recorder.bodies.append((self.path, body))
                self.forward(body)

            def forward(self, body):
                connection = http.client.HTTPConnection("127.0.0.1", upstream, timeout=900)
                skip = ("host", "connection", "content-length", "transfer-encoding", "keep-alive")
                connection.request(self.command, self.path, body=body,
                                   headers={k: v for k, v in self.headers.items() if k.lower() not in skip})
                answer = connection.getresponse()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in skip:
                        self.send_header(key, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    while piece := answer.read1(65536):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # hark gave up (llm_timeout); llama.cpp stops with the closed stream
                finally:
                    connection.close()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self):
        bodies, self.bodies = self.bodies, []
        return bodies


class Llama:
    """llama.cpp's server as the tests start it (one thread, temperature 0), with the recording
    proxy in front; the prompt cache on, as `serve = smollm2` (llama.cpp's default) has it,
    unless `prompt_cache=False`."""

    def __init__(self, prompt_cache=True):
        self.flags = ["--prompt-cache"] if prompt_cache else []

    def __enter__(self):
        python = os.path.join(ROOT, ".local/venv/bin/python")
        self.process = subprocess.Popen([python, os.path.join(ROOT, "Tests/Fixtures/llama/serve.py")] + self.flags,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.process.stdout.readline().split()[1])
        self.recorder = Recorder(self.port)
        return self

    def __exit__(self, *_):
        self.recorder.server.shutdown()
        self.process.stdin.close()
        self.process.wait(timeout=60)

    def curl(self, recorded):
        """Milliseconds for `curl -sN` to post each recorded request straight to the server."""
        times = []
        for path, body in recorded:
            with tempfile.NamedTemporaryFile(suffix=".json") as file:
                file.write(body)
                file.flush()
                started = time.monotonic()
                subprocess.run(["curl", "-sN", "-o", "/dev/null", "-H", "Content-Type: application/json",
                                "--data-binary", f"@{file.name}", f"http://127.0.0.1:{self.port}{path}"], check=True)
                times.append((time.monotonic() - started) * 1000)
        return times


def session(url=None, max_tokens=None, extra=""):
    """The config run.sh --with-model makes (a `serve` session), or the same pointed at a server."""
    where = f"url = {url}\nmodel = smollm2\n" if url else "serve = smollm2\n"
    cap = f"max_tokens = {max_tokens}\n" if max_tokens else ""
    return f"[session local]\nkind = local\nllm = smollm2\n{extra}\n[session smollm2]\nkind = openai\n{where}{cap}"


# What follows an answer to the product question: the next question, or the rules' reading after a notice.
READ = r"(Noted Product: [^\n.]+\.|» [^\n]+)"


def to_product(hark, env):
    terminal = Terminal([hark], env)
    terminal.until(r"›")
    terminal.type("/form bug-report")
    terminal.until(r"What went wrong")
    terminal.type("Export to PDF crashes")
    terminal.until(r"Which product")
    return terminal


def answer_product(terminal, answer):
    """Milliseconds from Enter until the form reads the answer, and what it made of it."""
    started = time.monotonic()
    terminal.type(answer)
    outcome = terminal.until(READ, 900).group(1)
    elapsed = (time.monotonic() - started) * 1000
    while outcome.startswith("Noted"):  # back to the product question; after a notice it is still open
        terminal.type("back")  # the model may have filled the questions after it too: back past each
        if "Which product" in terminal.until(r"\d+/\d+ ([A-Z][^\r\n]+)").group(1):
            break
    return elapsed, outcome


def summary(values):
    return {"n": len(values), "p50": round(percentile(values, 0.5), 1), "p95": round(percentile(values, 0.95), 1)}


def forms(hark, reads=20, processes=3):
    answers = ANSWERS * 10
    warm, outcomes = [], []
    with Llama() as llama:
        env = home(session(f"http://127.0.0.1:{llama.recorder.port}/v1", 256, "llm_timeout = 60\n"))
        terminal = to_product(hark, env)
        answer_product(terminal, "the first one, not counted")  # the model's pages into memory
        llama.recorder.take()
        for answer in answers[:reads]:
            elapsed, outcome = answer_product(terminal, answer)
            warm.append(elapsed)
            outcomes.append(outcome)
        terminal.close()
        recorded = llama.recorder.take()
        curl = llama.curl(recorded)
        sizes = sorted({json.loads(body).get("max_tokens") for _, body in recorded})
    cold = []
    env = dict(home(session(max_tokens=256, extra="llm_timeout = 60\n")), HARK_VENV=os.path.join(ROOT, ".local/venv"))
    for answer in answers[:processes]:
        terminal = to_product(hark, env)
        elapsed, outcome = answer_product(terminal, answer)
        cold.append(elapsed)
        outcomes.append(outcome)
        terminal.close()
    hark_warm, curl_warm = summary(warm), summary(curl)
    return {"warm_ms": [round(x) for x in warm], "warm": hark_warm, "curl_same_requests_ms": [round(x) for x in curl],
            "curl": curl_warm, "hark_over_curl_p50": round(hark_warm["p50"] / curl_warm["p50"], 2),
            "max_tokens_sent": sizes, "cold_ms": [round(x) for x in cold], "cold_median_ms": round(statistics.median(cold)),
            "outcomes": {o: outcomes.count(o) for o in sorted(set(outcomes))}}


POLICY = "# Travel policy\n\nExpense claims must be filed within 30 days of the trip's end, with receipts.\n"


def median_or_none(values):
    return round(statistics.median(values)) if values else None


def example_runs(hark, env, llama, runs):
    form, form_outcomes, ask, ask_shown = [], [], [], []
    for _ in range(runs):
        terminal = to_product(hark, env)
        elapsed, outcome = answer_product(terminal, "I was using it on my phone")
        terminal.close()
        form.append(elapsed)
        form_outcomes.append(outcome)
    form_requests = llama.recorder.take()
    for _ in range(runs):
        started = time.monotonic()
        shown = subprocess.run([hark, "-s", "local", "/ask how long do I have to file expenses?"], env=env,
                               capture_output=True, text=True, timeout=900).stdout
        ask.append((time.monotonic() - started) * 1000)
        ask_shown.append(shown)
    ask_requests = llama.recorder.take()
    return {"phone_form_ms": [round(x) for x in form], "phone_form_median_ms": round(statistics.median(form)),
            "phone_outcomes": sorted(set(form_outcomes)), "phone_model_requests": len(form_requests),
            "phone_curl_median_ms": median_or_none(llama.curl(form_requests)),
            "ask_ms": [round(x) for x in ask], "ask_median_ms": round(statistics.median(ask)),
            "ask_shows_30_days": sum("30 days" in shown for shown in ask_shown), "ask_model_requests": len(ask_requests),
            "ask_curl_median_ms": median_or_none(llama.curl(ask_requests)), "ask_last_shown": ask_shown[-1]}


def examples(before, after, runs=3):
    results = {}
    with Llama() as llama:
        url = f"http://127.0.0.1:{llama.recorder.port}/v1"
        for label, hark, cap, prompts in (("before", before, None, os.environ.get("HARK_PROMPTS_BEFORE")),
                                          ("after", after, 256, None)):
            env = home(session(url, cap))
            if prompts:
                env["HARK_PROMPTS"] = prompts
            folder = tempfile.mkdtemp(prefix="hark-policy-")
            with open(f"{folder}/policy.md", "w") as out:
                out.write(POLICY)
            subprocess.run([hark, "-s", "local", f"/docs add {folder}/policy.md"], env=env, check=True, capture_output=True)
            llama.recorder.take()
            results[label] = example_runs(hark, env, llama, runs)
    return results


def ask(hark, questions_path):
    rows = [line.rstrip("\n").split("\t") for line in open(questions_path) if line.strip() and not line.startswith("#")]
    scores = {}
    with Llama() as llama:
        for label, config in (("rules", "[session local]\nkind = local\n"),
                              ("smollm2", session(f"http://127.0.0.1:{llama.port}/v1", 256))):
            env = home(config)
            subprocess.run([hark, "-s", "local", f"/docs add {ROOT}/docs"], env=env, check=True, capture_output=True)
            hits, misses, marked, times = 0, [], 0, []
            for question, expected in rows:
                started = time.monotonic()
                shown = subprocess.run([hark, "-s", "local", f"/ask {question}"], env=env, capture_output=True,
                                       text=True, timeout=900).stdout
                times.append(time.monotonic() - started)
                marked += "· not found in your documents" in shown
                if expected.lower() in shown.lower():
                    hits += 1
                else:
                    misses.append(question)
            scores[label] = {"questions": len(rows), "found": hits, "share": round(hits / len(rows), 3),
                             "marked_not_found": marked, "median_s": round(statistics.median(times), 3), "misses": misses}
    return scores


def main():
    hark, section = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    load = os.getloadavg()[0]
    if section == "forms":
        result = forms(hark, *(int(x) for x in rest))
    elif section == "examples":
        result = examples(hark, rest[0], *(int(x) for x in rest[1:]))
    else:
        result = ask(hark, rest[0] if rest else os.path.join(HERE, "ask_questions.tsv"))
    print(json.dumps({"load_at_start": load, "load_at_end": os.getloadavg()[0], section: result}, indent=1))


main()
