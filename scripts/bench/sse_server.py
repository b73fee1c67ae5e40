#!/usr/bin/env python3
"""An OpenAI-compatible chat server written the way a newcomer would write one with the standard
library: `http.server`, HTTP/1.0 with `Connection: close` (the body ends when the socket
closes), and one `write` + `flush` per SSE event. hark-bench-server, which we wrote, writes its
replies in large blocks; this one writes them the way small servers do, so the harness times
hark against a server that does not suit it.

The events are laid out as llama.cpp's server lays them out (ggml-org/llama.cpp,
tools/server/server-common.cpp, `format_oai_sse`):

    ss << "data: " << safe_json_to_str(data) << "\\n\\n"; // required by RFC 8895 ...

with the chunk fields in the order that server sends them (a role chunk first, then one
chunk per token, a `finish_reason` chunk with an empty delta, a usage chunk with empty
`choices` when `stream_options.include_usage` is set, then `data: [DONE]`), as captured from
xllamacpp's build of it on this machine (BENCHMARKS.md).

  sse_server.py            prints its port, serves until stdin closes
The last user message chooses the reply:
  "stamp=N" or "stamp=N,GAP_MS"   N tokens GAP_MS apart (default 4), each " s<ns>e" where
                                  <ns> is CLOCK_MONOTONIC when the event was written: a
                                  reader in a pseudo-terminal times each from write to screen
  anything else                   a short greeting of eight tokens
"""
import json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GREETING = ["Hello", "!", " How", " can", " I", " help", " you", " today?"]


class Handler(BaseHTTPRequestHandler):
    server_version = "bench-python"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        messages = request.get("messages") or [{}]
        last = str(messages[-1].get("content", ""))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        created = int(time.time())
        base = {"created": created, "id": "chatcmpl-bench", "model": request.get("model", "bench"),
                "system_fingerprint": "b0-bench", "object": "chat.completion.chunk"}

        def event(choices, **extra):
            chunk = {"choices": choices, **base, **extra}
            self.wfile.write(b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n")
            self.wfile.flush()

        event([{"finish_reason": None, "index": 0, "delta": {"role": "assistant", "content": None}}])
        count = 0
        if last.startswith("stamp="):
            fields = last[6:].split(",")
            total, gap = int(fields[0]), (float(fields[1]) if len(fields) > 1 else 4.0) / 1000
            next_at = time.monotonic()
            for _ in range(total):
                next_at += gap
                delay = next_at - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                event([{"finish_reason": None, "index": 0,
                        "delta": {"content": f" s{time.clock_gettime_ns(time.CLOCK_MONOTONIC)}e"}}])
                count += 1
        else:
            for token in GREETING:
                event([{"finish_reason": None, "index": 0, "delta": {"content": token}}])
                count += 1
        event([{"finish_reason": "stop", "index": 0, "delta": {}}])
        if (request.get("stream_options") or {}).get("include_usage"):
            event([], usage={"completion_tokens": count, "prompt_tokens": 9, "total_tokens": count + 9})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
server.shutdown()
