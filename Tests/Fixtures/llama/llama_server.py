"""Stands in for llama.cpp's `llama-server` binary where only the xllamacpp wheel is installed:
the same server (llama.cpp's, in process) behind llama-server's command line, so the tests
can run hark's `serve` the way it runs a llama-server found on PATH.

    llama-server -m MODEL --host 127.0.0.1 --port N -c CTX -a ALIAS -t THREADS

The flags are llama-server's (tools/server/README.md in ggml-org/llama.cpp: -m/--model,
--host, --port, -c/--ctx-size, -a/--alias, -t/--threads). Stops on SIGTERM, as llama-server."""
import argparse, signal

import xllamacpp as xlc

parser = argparse.ArgumentParser()
parser.add_argument("-m", "--model", required=True)
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=8080)
parser.add_argument("-c", "--ctx-size", type=int, default=0)
parser.add_argument("-a", "--alias")
parser.add_argument("-t", "--threads", type=int, default=-1)
options = parser.parse_args()
params = xlc.CommonParams()
params.model.path = options.model
params.hostnames = [options.host]
params.port = options.port
params.n_ctx = options.ctx_size
if options.alias:
    params.model_alias = {options.alias}
if options.threads > 0:
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = options.threads
server = xlc.Server(params)
signal.pause()
