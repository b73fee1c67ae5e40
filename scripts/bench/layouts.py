#!/usr/bin/env python3
"""50 MB replies in the chunk layouts of servers we did not write (layouts_server.py), hark
against curl in the same rounds: `layouts.py [ROUNDS] [CASE…]`, a case being "LAYOUT PIECE
FRAMING" (default: all of CASES). HARK_BIN times another build.

Each round times, per case: curl, then hark with no `hark index` of an earlier run still working
(spaced), then hark again at once, while the `hark index` the spaced run left is still indexing
(back to back). Medians over the rounds; the ratio is curl's time over hark's, so 0.5 means hark
takes twice curl's time. curl runs twice, with `-N` as the harness runs it (it then writes each
piece libcurl hands it at once: a write(2) per HTTP chunk, which for a server that sends every
event as its own chunk is most of its time) and without; the faster of the two is the reference.
Prints the figures as JSON on stdout and as a table on stderr."""
import json, os, resource, statistics, subprocess, sys, tempfile, time
import wait_indexers

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.dirname(__file__)
HARK = os.environ.get("HARK_BIN") or os.path.join(ROOT, ".build/release/hark")
SIZE = 50_000_000
CASES = ["llamacpp token chunked", "llamacpp token length", "openai token chunked", "openai-bare token chunked",
         "openai-logprobs token chunked", "vllm token chunked", "ollama token chunked",
         "openai prose chunked", "openai prose length", "openai plain chunked", "ollama prose chunked"]


CPU = {}


def timed(command, env):
    """Wall milliseconds of one run; its CPU milliseconds (user and system, all its threads) are
    noted in CPU under the command's first two words. On a machine other work keeps busy, a process
    that hands each read from thread to thread waits for a core at every handoff, and curl, one
    thread, does not: the CPU time says what the work costs whatever the load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    elapsed = (time.monotonic() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(" ".join(command[:2]), []).append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return elapsed


def main():
    arguments = sys.argv[1:]
    rounds = int(arguments.pop(0)) if arguments and arguments[0].isdigit() else 7
    cases = arguments or CASES
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "layouts_server.py")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    bench = os.path.join(ROOT, ".bench")
    os.makedirs(bench, exist_ok=True)
    home = tempfile.mkdtemp(prefix="home-", dir=bench)
    os.makedirs(f"{home}/config/hark")
    with open(f"{home}/config/hark/config", "w") as config:
        config.write(f"[session layouts]\nkind = openai\nurl = http://127.0.0.1:{port}/v1\nmodel = bench\n")
    os.chmod(f"{home}/config/hark/config", 0o600)
    env = dict(os.environ, XDG_CONFIG_HOME=f"{home}/config", XDG_DATA_HOME=f"{home}/data", NO_COLOR="1")
    figures = {}
    try:
        for case in cases:
            message = f"{case} {SIZE}"
            body = json.dumps({"model": "bench", "messages": [{"role": "user", "content": message}], "stream": True})
            curl = ["curl", "-s", "-o", "/dev/null", "-H", "Content-Type: application/json", "-d", body,
                    f"http://127.0.0.1:{port}/v1/chat/completions"]
            curl_n = curl[:1] + ["-sN"] + curl[2:]
            hark = [HARK, "-s", "layouts", "--new-thread", message]
            # The server makes the reply once, and hark's first run warms the page cache.
            subprocess.run(curl, check=True)
            subprocess.run(hark, env=env, check=True, stdout=subprocess.DEVNULL)
            seen = {"curl": [], "curl_n": [], "hark": [], "back_to_back": []}
            CPU.clear()
            for _ in range(rounds):
                wait_indexers.wait(env["XDG_DATA_HOME"])
                seen["curl"].append(timed(curl, env))
                seen["curl_n"].append(timed(curl_n, env))
                wait_indexers.wait(env["XDG_DATA_HOME"])
                seen["hark"].append(timed(hark, env))
                seen["back_to_back"].append(timed(hark, env))
            medians = {name: statistics.median(values) for name, values in seen.items()}
            reference = min(medians["curl"], medians["curl_n"])
            figures[case] = {"curl_ms": medians["curl"], "curl_n_ms": medians["curl_n"], "hark_ms": medians["hark"],
                             "hark_b2b_ms": medians["back_to_back"], "ratio": reference / medians["hark"],
                             "ratio_b2b": reference / medians["back_to_back"], "runs": seen,
                             "load": round(os.getloadavg()[0], 2)}
            cpu = {name: statistics.median(values) for name, values in CPU.items()}
            # curl's cheaper variant (without -N it writes fewer, larger pieces) is the reference.
            curl_cpu = min(cpu["curl -s"], cpu["curl -sN"])
            hark_cpu = cpu[f"{HARK} -s"]
            figures[case].update({"curl_cpu_ms": curl_cpu, "hark_cpu_ms": hark_cpu, "ratio_cpu": curl_cpu / hark_cpu})
            print(f"{case:32s} curl {medians['curl']:6.1f} / -N {medians['curl_n']:6.1f} ms  hark {medians['hark']:6.1f} ms "
                  f"({figures[case]['ratio']:.2f})  back to back {medians['back_to_back']:6.1f} ms "
                  f"({figures[case]['ratio_b2b']:.2f})  CPU curl {curl_cpu:5.1f} hark {hark_cpu:5.1f} ms ({curl_cpu / hark_cpu:.2f})  "
                  f"load {figures[case]['load']}", file=sys.stderr)
        wait_indexers.wait(env["XDG_DATA_HOME"])
    finally:
        server.stdin.close()
        server.wait(timeout=10)
        subprocess.run(["rm", "-rf", home])
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
