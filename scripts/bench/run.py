#!/usr/bin/env python3
"""The benchmark harness: every figure is a whole-process timing, medians of several runs after
a warm-up, with its reference run in the same script so ratios compare like with like."""
import json, os, platform, shutil, subprocess, sys, tempfile, time
import wait_indexers

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, ".bench")
# HARK_BIN times another build with the same harness (an earlier commit's, for a before/after).
HARK = os.environ.get("HARK_BIN") or os.path.join(ROOT, ".build/release/hark")
SERVER = os.path.join(ROOT, ".build/release/hark-bench-server")
LLM = os.path.join(BENCH, "venv/bin/llm")
HERE = os.path.dirname(__file__)
# BEFORE_BIN: a build to time beside HARK in the render and latency sections (the commit before a change).
BEFORE = os.environ.get("BEFORE_BIN")
SECTIONS = sys.argv[1:] or ["startup", "roundtrip", "throughput", "layouts", "history", "memory", "growth", "latency", "render", "a2a", "model",
                            "documents"]
results = {}

def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs).stdout

def hyperfine(name, commands, runs=20, warmup=3, env=None, extra=()):
    path = os.path.join(BENCH, f"{name}.json")
    subprocess.run(["hyperfine", "-N", "--style", "none", "--warmup", str(warmup), "--runs", str(runs),
                    "--export-json", path, *extra, *commands], check=True, env=env, stdout=subprocess.DEVNULL)
    data = json.load(open(path))["results"]
    return {result["command"]: result for result in data}

def median_ms(result):
    return result["median"] * 1000

def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    memory = next((line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "0")
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": round(int(memory) / 1048576, 1),
            "kernel": platform.release(), "hark": run([HARK, "version"]).strip(),
            "curl": run(["curl", "--version"]).split("\n")[0].split(" (")[0],
            "llm": run([LLM, "--version"]).strip(), "sqlite3": run(["sqlite3", "--version"]).split()[0]}

class Server:
    """hark-bench-server, or with `python=True` scripts/bench/sse_server.py (the stdlib server
    that writes one event per write + flush and closes the connection)."""
    def __init__(self, python=False):
        self.command = [sys.executable, os.path.join(HERE, "sse_server.py")] if python else [SERVER]

    def __enter__(self):
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())
        return self

    def __exit__(self, *error):
        self.process.stdin.close()
        self.process.wait(timeout=10)

def home(port, context=None):
    path = tempfile.mkdtemp(prefix="home-", dir=BENCH)
    os.makedirs(f"{path}/config/hark")
    with open(f"{path}/config/hark/config", "w") as config:
        config.write(f"[session bench]\nkind = openai\nurl = http://127.0.0.1:{port}/v1\nmodel = bench\n"
                     + (f"context = {context}\n" if context is not None else "") + "\n"
                     f"[session n8n]\nkind = webhook\nurl = http://127.0.0.1:{port}/webhook/bench/chat\n")
    os.chmod(f"{path}/config/hark/config", 0o600)
    os.makedirs(f"{path}/llm")
    with open(f"{path}/llm/extra-openai-models.yaml", "w") as models:
        models.write(f"- model_id: bench\n  model_name: bench\n  api_base: \"http://127.0.0.1:{port}/v1\"\n")
    env = dict(os.environ, XDG_CONFIG_HOME=f"{path}/config", XDG_DATA_HOME=f"{path}/data", LLM_USER_PATH=f"{path}/llm",
               NO_COLOR="1", TERM="xterm-256color")
    return path, env

def curl_chat(port, content):
    body = json.dumps({"model": "bench", "messages": [{"role": "user", "content": content}], "stream": True})
    return f"curl -sN -o /dev/null -H 'Content-Type: application/json' -d '{body}' http://127.0.0.1:{port}/v1/chat/completions"

def startup():
    found = hyperfine("startup", [f"{HARK} version", f"{LLM} --version", "/bin/true"], runs=30)
    hark, llm = median_ms(found[f"{HARK} version"]), median_ms(found[f"{LLM} --version"])
    with Server() as server:
        _, env = home(server.port)
        subprocess.run([HARK, "version"], env=env, check=True, capture_output=True)
        prompt = json.loads(run([sys.executable, f"{HERE}/pty_run.py", "prompt", "20", "›", "--", "env",
                                 *[f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "TERM", "NO_COLOR"))], HARK]))
    results["startup"] = {"hark_version_ms": hark, "llm_version_ms": llm, "true_ms": median_ms(found["/bin/true"]),
                          "first_prompt_ms": prompt["median_ms"], "ratio_llm_over_hark": llm / hark}

def load():
    return round(os.getloadavg()[0], 2)

def roundtrip():
    with Server() as server:
        _, env = home(server.port)
        commands = [f"{HARK} -s bench --new-thread hi", curl_chat(server.port, "hi"), f"{LLM} -m bench hi"]
        found = hyperfine("roundtrip", commands, runs=30, env=env)
        hark, curl, llm = (median_ms(found[c]) for c in commands)
        results["roundtrip"] = {"hark_ms": hark, "curl_ms": curl, "llm_ms": llm, "hark_over_curl": hark / curl}
    # The same against the stdlib Python server (one write per event, Connection: close),
    # hark and curl interleaved run by run, 60 runs each.
    with Server(python=True) as server:
        _, env = home(server.port)
        commands = [f"{HARK} -s bench --new-thread hi", curl_chat(server.port, "hi")]
        found = hyperfine("roundtrip-python", commands, runs=60, warmup=5, env=env)
        hark, curl = (median_ms(found[c]) for c in commands)
        results["roundtrip"].update({"python_hark_ms": hark, "python_curl_ms": curl, "python_hark_over_curl": hark / curl,
                                     "python_hark_user_ms": found[commands[0]]["user"] * 1000,
                                     "python_curl_user_ms": found[commands[1]]["user"] * 1000})

def throughput():
    size = 50_000_000
    with Server() as server:
        _, env = home(server.port)
        n8n_body = json.dumps({"action": "sendMessage", "sessionId": "b", "chatInput": f"bytes={size}"})
        commands = [f"{HARK} -s bench --new-thread bytes={size}", curl_chat(server.port, f"bytes={size}"),
                    f"{HARK} -s n8n --new-thread bytes={size}",
                    f"curl -sN -o /dev/null -H 'Content-Type: application/json' -d '{n8n_body}' http://127.0.0.1:{server.port}/webhook/bench/chat"]
        # Each run starts with no indexer of an earlier run still working (see wait_indexers.py).
        settle = f"{sys.executable} {HERE}/wait_indexers.py {env['XDG_DATA_HOME']}"
        found = hyperfine("throughput", commands, runs=5, warmup=1, env=env, extra=["--output", "null", "--prepare", settle])
        mb = size / 1e6
        sse_hark, sse_curl, nd_hark, nd_curl = (found[c]["median"] for c in commands)
        # A one-shot run leaves a long reply's indexing to `hark index` in the background: the
        # time until the reply is also in the search index, that indexer waited for each run.
        until_indexed = sorted(until_indexed_s([HARK, "-s", "bench", "--new-thread", f"bytes={size}"], env)
                               for _ in range(5))[2]
        rendered = json.loads(run([sys.executable, f"{HERE}/pty_run.py", "drain", "3", "--", "env",
                                   *[f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "TERM"))],
                                   HARK, "-s", "bench", "--new-thread", f"bytes={size}"]))
        results["throughput"] = {
            "sse_hark_mb_s": mb / sse_hark, "sse_curl_mb_s": mb / sse_curl, "sse_ratio": sse_curl / sse_hark,
            "ndjson_hark_mb_s": mb / nd_hark, "ndjson_curl_mb_s": mb / nd_curl, "ndjson_ratio": nd_curl / nd_hark,
            "pty_markdown_mb_s": mb / rendered["median_s"], "sse_hark_until_indexed_ms": until_indexed * 1000,
            "sse_hark_ms": sse_hark * 1000, "sse_curl_ms": sse_curl * 1000}

def until_indexed_s(command, env):
    """Seconds from starting a one-shot run until it has ended and so has the background
    indexer it started (waited for through a pidfd, not polled)."""
    wait_indexers.wait(env["XDG_DATA_HOME"])
    started = time.monotonic()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wait_indexers.wait(env["XDG_DATA_HOME"])
    return time.monotonic() - started

def history():
    count = 1_000_000
    with Server() as server:
        path, env = home(server.port)
        subprocess.run([HARK, "-s", "bench", "hi"], env=env, check=True, capture_output=True)  # creates the schema
        database = f"{path}/data/hark/history.db"
        started = time.monotonic()
        run([sys.executable, f"{HERE}/make_history.py", database, str(count)])
        fill_s = time.monotonic() - started
        query = "xylophone"
        fts = '"xylophone"'
        sql = ("SELECT m.id, m.thread_id, m.session, m.role, m.text, m.status, m.created_at, m.backend_id, "
               "m.prompt_tokens, m.completion_tokens, m.total_tokens, m.error, m.model, t.title, "
               "snippet(messages_fts, 0, char(1), char(2), '…', 12) FROM messages_fts "
               "JOIN messages m ON m.id = messages_fts.rowid JOIN threads t ON t.id = m.thread_id "
               f"WHERE messages_fts MATCH '{fts}' ORDER BY messages_fts.rowid DESC LIMIT 20")
        commands = [f"{HARK} search {query}", f"sqlite3 {database} \"{sql}\""]
        hyperfine("search", commands, runs=100, env=env, extra=["--output", "null", "-i"])
        percentiles = json.loads(run([sys.executable, f"{HERE}/percentiles.py", os.path.join(BENCH, "search.json")]))
        hark, cli = percentiles[commands[0]], percentiles[commands[1]]
        # Inserts while streaming: the parts a 50 MB reply writes, per second of the reply.
        before = int(run(["sqlite3", database, "SELECT coalesce(max(id), 0) FROM messages"]))
        # The server makes a reply of a new size once; that is not hark's time.
        subprocess.run(curl_chat(server.port, "bytes=50000000"), shell=True, check=True)
        streams = []
        for _ in range(3):
            started = time.monotonic()
            subprocess.run([HARK, "-s", "bench", "--new-thread", "bytes=50000000"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
            streams.append(time.monotonic() - started)
        stream_s = sorted(streams)[1]
        # Each in a new thread: continuing the thread above would send its 2.6 MB reply along
        # as context every time, and time the request's size rather than the history's.
        one_shots = 50
        started = time.monotonic()
        for index in range(one_shots):
            subprocess.run([HARK, "-s", "bench", "--new-thread", f"one-shot {index}"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        per_message_ms = (time.monotonic() - started) / one_shots * 1000
        results["history"] = {"messages": count, "fill_s": fill_s, "search_p50_ms": hark["p50_ms"],
                              "search_p99_ms": hark["p99_ms"], "sqlite3_p50_ms": cli["p50_ms"], "sqlite3_p99_ms": cli["p99_ms"],
                              "p50_ratio": hark["p50_ms"] / cli["p50_ms"], "stream_50mb_into_1m_db_s": stream_s,
                              "one_shot_message_ms": per_message_ms, "first_new_id": before + 1}

class Agent:
    """The A2A test agents (Tests/Fixtures/a2a/agent.py), served by the official SDK."""
    def __enter__(self):
        python = os.path.join(ROOT, ".local/venv/bin/python")
        self.process = subprocess.Popen([python, os.path.join(ROOT, "Tests/Fixtures/a2a/agent.py")],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.process.stdout.readline().split()[1])
        return self

    def __exit__(self, *error):
        self.process.terminate()
        self.process.wait(timeout=10)

def a2a():
    with Agent() as agent:
        path, env = home(0)
        with open(f"{path}/config/hark/config", "a") as config:
            config.write(f"\n[session agent]\nkind = a2a\nurl = http://127.0.0.1:{agent.port}/echo\n")
        # The first message fetches the agent card, which hark then keeps (five minutes, or the
        # card's Cache-Control) as a client keeps a discovery document; the runs time messages.
        subprocess.run([HARK, "-s", "agent", "hi"], env=env, check=True, capture_output=True)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
                           "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}})
        curl = (f"curl -sN -o /dev/null -H 'Content-Type: application/json' -H 'Accept: text/event-stream' "
                f"-H 'A2A-Version: 1.0' -d '{body}' http://127.0.0.1:{agent.port}/echo/")
        commands = [f"{HARK} -s agent --new-thread hi", curl]
        found = hyperfine("a2a", commands, runs=30, env=env)
        hark, reference = (median_ms(found[c]) for c in commands)
        # And with the card fetched first, as the first message of a session (or after five minutes).
        cold = hyperfine("a2a-card", commands[:1], runs=20, env=env,
                         extra=["--prepare", f"rm -f {path}/data/hark/a2a/agent.json"])
        results["a2a"] = {"hark_ms": hark, "curl_ms": reference, "hark_over_curl": hark / reference,
                          "hark_with_card_fetch_ms": median_ms(cold[commands[0]])}

def memory():
    with Server() as server:
        _, env = home(server.port)
        subprocess.run([HARK, "version"], env=env, check=True, capture_output=True)
        idle = json.loads(run([sys.executable, f"{HERE}/pty_run.py", "rss", "›", "--", "env",
                               *[f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "TERM", "NO_COLOR"))], HARK]))
        def peak_kb(size):
            message = size if isinstance(size, str) else f"bytes={size}"
            return peak_rss(env, "-s", "bench", "--new-thread", message)[0]
        # The server makes each reply once before it is timed.
        for size in ("line=30000000", "bytes=200000000"):
            subprocess.run(curl_chat(server.port, size), shell=True, check=True)
        results["memory"] = {"idle_rss_kb": idle["rss_kb"], "idle_peak_kb": idle["peak_rss_kb"],
                             "reply_10mb_peak_kb": peak_kb(10_000_000), "reply_100mb_peak_kb": peak_kb(100_000_000),
                             "reply_200mb_peak_kb": peak_kb(200_000_000), "line_30mb_peak_kb": peak_kb("line=30000000")}

def peak_rss(env, *arguments):
    """Peak RSS (kB) of one hark run, its stdout thrown away; and the bytes it printed."""
    timed = subprocess.run(["/usr/bin/time", "-f", "%M", HARK, *arguments], env=env, check=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return int(timed.stderr.decode().strip().splitlines()[-1]), len(timed.stdout)

def growth():
    """Cost that must not grow with the history: three replies of 100 MB of text in one thread
    (`text=N`: 16 KB per event), and after
    each a one-line message in the same thread (peak RSS), through a kind that sends no history
    (n8n) and one that sends the last two messages (openai, context = 2); then `hark search`
    and `--json` with those replies stored."""
    size = 100_000_000
    with Server() as server:
        path, env = home(server.port, context=2)
        subprocess.run(curl_chat(server.port, f"text={size}"), shell=True, check=True, stdout=subprocess.DEVNULL)
        figures = {}
        for session in ("n8n", "bench"):
            peaks = [peak_rss(env, "-s", session, "--new-thread", "hello")[0]]
            for _ in range(3):
                subprocess.run([HARK, "-s", session, f"text={size}"], env=env, check=True, stdout=subprocess.DEVNULL)
                peaks.append(peak_rss(env, "-s", session, "hello")[0])
            figures[f"{session}_one_line_peak_kb"] = peaks
        # Few runs: before this round one search took about a minute.
        search = hyperfine("search-large", [f"{HARK} search fox", f"{HARK} search --json fox"],
                           runs=int(os.environ.get("SEARCH_RUNS", "10")), warmup=1, env=env, extra=["--output", "null"])
        figures["search_ms"] = median_ms(search[f"{HARK} search fox"])
        figures["search_json_ms"] = median_ms(search[f"{HARK} search --json fox"])
        figures["search_peak_kb"], figures["search_json_bytes"] = peak_rss(env, "search", "--json", "fox")
        figures["stored_bytes"] = os.path.getsize(f"{path}/data/hark/history.db")
        results["growth"] = figures

def latency():
    """From a server's write of an event to the bytes on a pseudo-terminal, for hark and llm in
    the same run: the Python server stamps each event with CLOCK_MONOTONIC; pty_run.py reads the
    stamps as they are drawn. 300 events 4 ms apart per run, three runs each, interleaved (and
    BEFORE_BIN's, when given)."""
    with Server(python=True) as server:
        _, env = home(server.port)
        env = dict(env)
        env.pop("NO_COLOR", None)
        pass_env = [f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "TERM", "LLM_"))]
        delays = {"hark": [], "llm": []}
        commands = [("hark", [HARK, "-s", "bench", "--new-thread", "stamp=300"]), ("llm", [LLM, "-m", "bench", "stamp=300"])]
        if BEFORE:
            delays["before"] = []
            commands.append(("before", [BEFORE, "-s", "bench", "--new-thread", "stamp=300"]))
        for _ in range(3):
            for name, command in commands:
                out = json.loads(run([sys.executable, f"{HERE}/pty_run.py", "stamps", "--", "env", "-u", "NO_COLOR",
                                      *pass_env, *command]))
                delays[name] += out["delays_ms"]
        figures = {}
        for name, values in delays.items():
            ordered = sorted(values)
            pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
            figures[name] = {"events": len(values), "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": ordered[-1]}
        results["latency"] = figures

def layouts():
    # 50 MB in the chunk layouts of other servers, spaced and back to back (scripts/bench/layouts.py).
    results["layouts"] = json.loads(run([sys.executable, f"{HERE}/layouts.py", os.environ.get("LAYOUT_ROUNDS", "7")]))

def render():
    """What drawing a reply costs, in an 80-column pseudo-terminal with colours on: a Markdown reply
    (paragraphs, lists, a quote, a table, code) in 16 KB events (the renderer's throughput, MB of
    text a second) and in token-sized events, and the 50 MB words reply of `throughput`; each the
    median of three whole runs, hark and BEFORE_BIN interleaved in the same run."""
    size = 50_000_000
    builds = [("hark", HARK)] + ([("before", BEFORE)] if BEFORE else [])
    figures = {}
    with Server() as server:
        _, env = home(server.port)
        pass_env = [f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "TERM"))]
        for kind in ("mdtext", "code", "markdown", "bytes"):
            for name, binary in builds:
                drained = json.loads(run([sys.executable, f"{HERE}/pty_run.py", "drain", "3", "--", "env", "-u", "NO_COLOR",
                                          *pass_env, binary, "-s", "bench", "--new-thread", f"{kind}={size}"]))
                text = reply_bytes(env)
                figures[f"{name}_{kind}"] = {"seconds": drained["median_s"], "sse_mb_s": size / 1e6 / drained["median_s"],
                                             "text_mb": text / 1e6, "text_mb_s": text / 1e6 / drained["median_s"]}
    results["render"] = figures

def reply_bytes(env):
    """The length of the newest reply in the bench home's history, in bytes: `length` (a long
    reply's text is kept in parts, so the row's own text is only its first part)."""
    database = os.path.join(env["XDG_DATA_HOME"], "hark", "history.db")
    return int(run(["sqlite3", database, "SELECT coalesce(length, length(CAST(text AS BLOB))) FROM messages WHERE role = 'assistant' "
                                         "ORDER BY id DESC LIMIT 1"]).strip() or 0)

def documents():
    # The documents figures, measured by their own script (scripts/bench/documents.py).
    results["documents"] = json.loads(run([sys.executable, f"{HERE}/documents.py", HARK,
                                           os.path.join(ROOT, ".build/release/hark-bench-reader"), BENCH]))

os.makedirs(BENCH, exist_ok=True)
class LlamaServer:
    """llama.cpp's real server (xllamacpp) with SmolLM2-135M-Instruct, as the tests run it
    (Tests/Fixtures/llama/serve.py: one thread, temperature 0, fixed seed); stops when its
    stdin closes."""
    def __enter__(self):
        python = os.path.join(ROOT, ".local/venv/bin/python")
        self.process = subprocess.Popen([python, os.path.join(ROOT, "Tests/Fixtures/llama/serve.py")],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("ready "):
            raise SystemExit("llama.cpp's server did not start; scripts/setup.sh --with-model installs it")
        self.port = int(line.split()[1])
        return self

    def __exit__(self, *error):
        self.process.stdin.close()
        self.process.wait(timeout=30)

MODEL_MESSAGE = "What is the capital of France?"
MODEL_TOKENS = 8

def model():
    """A small real model: the one-shot round trip against llama.cpp's server (hark, curl -N and
    llm asking the same thing of the same server), and Enter → first token in the shell with a
    `serve = smollm2` session, cold (hark starts the server) and warm (it runs)."""
    with LlamaServer() as llama:
        path, env = home(llama.port)
        with open(f"{path}/config/hark/config", "a") as config:
            config.write(f"\n[session llama]\nkind = openai\nurl = http://127.0.0.1:{llama.port}/v1\nmodel = smollm2\n"
                         f"max_tokens = {MODEL_TOKENS}\n\n[session served]\nkind = openai\nserve = smollm2\nserve_threads = 1\n"
                         f"temperature = 0\ncontext = 0\nmax_tokens = {MODEL_TOKENS}\n")
        with open(f"{path}/llm/extra-openai-models.yaml", "a") as models:
            models.write(f"- model_id: smollm2\n  model_name: smollm2\n  api_base: \"http://127.0.0.1:{llama.port}/v1\"\n")
        # The same request from each: hark asks for usage, so curl does too, and llm 0.36 sends
        # stream_options.include_usage whenever it streams (default_plugins/openai_models.py).
        body = json.dumps({"model": "smollm2", "messages": [{"role": "user", "content": MODEL_MESSAGE}],
                           "max_tokens": MODEL_TOKENS, "stream": True, "stream_options": {"include_usage": True}})
        curl = (f"curl -sN -o /dev/null -H 'Content-Type: application/json' -d '{body}' "
                f"http://127.0.0.1:{llama.port}/v1/chat/completions")
        hark = f"{HARK} -s llama --new-thread '{MODEL_MESSAGE}'"
        llm = f"{LLM} -m smollm2 -o max_tokens {MODEL_TOKENS} '{MODEL_MESSAGE}'"
        said = {name: run(["sh", "-c", command], env=env).strip() for name, command in (("hark", hark), ("llm", llm))}
        if said["hark"] != said["llm"]:
            raise SystemExit(f"hark and llm were answered differently: {said}")
        found = hyperfine("model-roundtrip", [hark, curl, llm], runs=15, warmup=2, env=env)
        hark_ms, curl_ms, llm_ms = (median_ms(found[c]) for c in (hark, curl, llm))
        reply = said["hark"]
    shown = json.loads(run([sys.executable, f"{HERE}/pty_run.py", "firsttoken", "5", "3", "›", "Question {n}: " + MODEL_MESSAGE, "--",
                            "env", *[f"{k}={v}" for k, v in env.items() if k.startswith(("XDG_", "TERM", "NO_COLOR"))],
                            HARK, "-s", "served"]))
    results["model"] = {"reply": reply, "max_tokens": MODEL_TOKENS, "hark_ms": hark_ms, "curl_ms": curl_ms, "llm_ms": llm_ms,
                        "hark_over_curl": hark_ms / curl_ms, "llm_over_hark": llm_ms / hark_ms,
                        "first_token_cold_ms": shown["cold_median_ms"], "first_token_cold_all_ms": shown["cold_ms"],
                        "first_token_warm_ms": shown["warm_median_ms"], "first_token_warm_runs": shown["warm_runs"]}

results["machine"] = machine()
results["load"] = {}
for section in SECTIONS:
    print(f"== {section} (load {load()})", file=sys.stderr)
    results["load"][section] = load()
    globals()[section]()
    with open(os.path.join(BENCH, "results.json"), "w") as out:  # what is done so far
        json.dump(results, out, indent=1)
with open(os.path.join(BENCH, "results.json"), "w") as out:
    json.dump(results, out, indent=1)
print(json.dumps(results, indent=1))
for leftover in os.listdir(BENCH):
    if leftover.startswith("home-"):
        shutil.rmtree(os.path.join(BENCH, leftover), ignore_errors=True)
