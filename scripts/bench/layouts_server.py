#!/usr/bin/env python3
"""A loopback chat server that streams its replies in the chunk layouts real servers use, so the
harness times hark on servers we did not write as well as on hark-bench-server.

  layouts_server.py            prints its port, serves until stdin closes

POST /v1/chat/completions; the last user message names the reply: "LAYOUT PIECE FRAMING BYTES",
e.g. "openai prose chunked 50000000". Each reply is made once per name and written in blocks of
256 KB, so the server is never what is timed.

LAYOUT, the fields of each chunk in the order the server writes them:
  llamacpp      {"choices":[{"finish_reason":null,"index":0,"delta":{"content":…}}],"created":…,
                "id":…,"model":…,"system_fingerprint":…,"object":"chat.completion.chunk"}
                llama.cpp's server (ggml-org/llama.cpp, tools/server/server-common.cpp,
                `format_oai_sse`, and the chunk built in server-task.cpp's
                `to_json_oaicompat_chat_stream`), as captured from xllamacpp's build of it on this
                machine (scripts/bench/sse_server.py). `created` is `std::time(0)` per chunk, so
                it changes each second of the reply: here every 1,000 chunks.
  openai        {"id":…,"object":"chat.completion.chunk","created":…,"model":…,
                "system_fingerprint":…,"choices":[{"index":0,"delta":{"content":…},
                "logprobs":null,"finish_reason":null}]}
                OpenAI's own API, the layout of its API reference's streaming example; the fields
                are openai-python's `ChatCompletionChunk` and its `Choice`
                (src/openai/types/chat/chat_completion_chunk.py).
  openai-bare   the same without `system_fingerprint` and `logprobs` (both optional there).
  openai-logprobs  `logprobs` filled, as with `logprobs: true, top_logprobs: 2`:
                {"content":[{"token":…,"logprob":…,"bytes":[…],"top_logprobs":[…]}],"refusal":null}
                (`ChoiceLogprobs`, chat_completion_token_logprob.py), and an `obfuscation` string
                of random length in every chunk, which OpenAI adds unless
                `stream_options.include_obfuscation` is false.
  vllm          {"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[{"index":0,
                "delta":{"content":…},"logprobs":null,"finish_reason":null,"token_ids":null}]}
                vLLM (vllm/entrypoints/openai/protocol.py: `ChatCompletionStreamResponse`,
                `ChatCompletionResponseStreamChoice`, `DeltaMessage`; serving_chat.py builds each
                chunk with `logprobs=`, `finish_reason=None`, `token_ids=` set and writes
                `chunk.model_dump_json(exclude_unset=True)`: fields in declaration order, the
                ones set to None as null, the unset ones left out).
  ollama        {"id":"chatcmpl-…","object":"chat.completion.chunk","created":…,"model":…,
                "system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant",
                "content":…},"finish_reason":null}]}
                Ollama (ollama/ollama, openai/openai.go: `ChatCompletionChunk`, `ChunkChoice`,
                `ToChunk`), encoded by Go's encoding/json, which writes <, > and & as \\u003c,
                \\u003e and \\u0026; `created` is `time.Now().Unix()` per chunk.

PIECE, the content of each chunk:
  token         a word or two (the words of hark-bench-server: Markdown, ü, an emoji, line ends)
  prose         about 1 KiB of prose with a line end every sentence or so (`\\n` escapes)
  plain         about 1 KiB of prose on one line (no escape at all)

FRAMING: `chunked` (each event its own HTTP chunk, as uvicorn (vLLM), Go's net/http with a
Flush per event (Ollama) and cpp-httplib's chunked content provider (llama.cpp) send them) or
`length` (Content-Length: a proxy that buffers the whole reply).

Every reply starts with a role chunk and ends with a `finish_reason` chunk, a usage chunk with
empty `choices` and `data: [DONE]`.
"""
import json, random, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORDS = ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog; ", "**bold** ", "`code` ",
         "and\n", "- a list item\n", "# A heading\n", "ünïcödé ", "😀 ", "a < b & c > d "]
SENTENCES = ["The committee met on Tuesday to review the budget for the coming year. ",
             "Several members raised questions about the cost of the new building, & the delays. ",
             "“We cannot approve this without a clearer plan,” said the chair, before adjourning. ",
             "The report notes that revenue grew by 4.2 % while expenses rose faster. ",
             "A vote is expected next month, after the finance office answers the questions.\n",
             "- Item one: the roof, which leaks when it rains.\n",
             "Meanwhile the staff kept working as before, and nobody complained much. "]
CREATED = 1764000000
CACHE = {}
LOCK = threading.Lock()


def pieces(kind):
    """An endless supply of content strings of the kind asked for."""
    index = 0
    while True:
        if kind == "token":
            yield WORDS[index % len(WORDS)]
        else:
            text = ""
            while len(text.encode()) < 1000:
                text += SENTENCES[index % len(SENTENCES)]
                index += 1
            yield text.replace("\n", " ") if kind == "plain" else text
        index += 1


def go_string(text):
    """A JSON string as Go's encoding/json writes it (HTML-safe escapes, UTF-8 kept)."""
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def chunk(layout, content, serial, rng, finish=None, delta=None):
    """One chunk's JSON text; `delta` overrides the content delta (role and finish chunks)."""
    created = CREATED + serial // 1000
    if layout == "ollama":
        encoded = go_string(content) if content is not None else "null"
        body = delta or f'{{"role":"assistant","content":{encoded}}}'
        reason = json.dumps(finish)
        return (f'{{"id":"chatcmpl-482","object":"chat.completion.chunk","created":{created},"model":"llama3.2",'
                f'"system_fingerprint":"fp_ollama","choices":[{{"index":0,"delta":{body},"finish_reason":{reason}}}]}}')
    encoded = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    body = delta or f'{{"content":{encoded}}}'
    reason = json.dumps(finish)
    if layout == "llamacpp":
        return (f'{{"choices":[{{"finish_reason":{reason},"index":0,"delta":{body}}}],"created":{created},'
                f'"id":"chatcmpl-DHvcEyFobkuV4Xu1QSYo4bqNv18TDqaA","model":"bench",'
                f'"system_fingerprint":"b6881-8b11deea4","object":"chat.completion.chunk"}}')
    head = f'{{"id":"chatcmpl-BzX4mY2kq8Lr0SvT6nWcGd1pEh3Ja","object":"chat.completion.chunk","created":{CREATED},'
    if layout == "openai":
        return (head + f'"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_560af6e559",'
                f'"choices":[{{"index":0,"delta":{body},"logprobs":null,"finish_reason":{reason}}}]}}')
    if layout == "openai-bare":
        return head + f'"model":"gpt-4o-mini-2024-07-18","choices":[{{"index":0,"delta":{body},"finish_reason":{reason}}}]}}'
    if layout == "openai-logprobs":
        token = json.dumps(content or "", ensure_ascii=False)
        raw = list((content or "").encode())[:16]
        logprobs = (f'{{"content":[{{"token":{token},"logprob":-{rng.random():.6f},"bytes":{json.dumps(raw, separators=(",", ":"))},'
                    f'"top_logprobs":[{{"token":{token},"logprob":-{rng.random():.6f},"bytes":{json.dumps(raw, separators=(",", ":"))}}}]}}],'
                    f'"refusal":null}}')
        noise = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(rng.randint(1, 12)))
        return (head + f'"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_560af6e559",'
                f'"choices":[{{"index":0,"delta":{body},"logprobs":{logprobs},"finish_reason":{reason}}}],'
                f'"obfuscation":"{noise}"}}')
    if layout == "vllm":
        return (f'{{"id":"chatcmpl-7f3c2a9e4b1d4e8f9a0b","object":"chat.completion.chunk","created":{CREATED},'
                f'"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{{"index":0,"delta":{body},"logprobs":null,'
                f'"finish_reason":{reason},"token_ids":null}}]}}')
    raise ValueError(f"unknown layout {layout}")


def reply(layout, piece, framing, size):
    """The whole response (head and body) for one name, made once."""
    rng = random.Random(20261125)
    events = [chunk(layout, None, 0, rng, delta='{"role":"assistant","content":null}'
                    if layout != "ollama" else '{"role":"assistant","content":""}')]
    total = 0
    count = 0
    for content in pieces(piece):
        if total >= size:
            break
        event = chunk(layout, content, count, rng)
        events.append(event)
        total += len(event) + 8
        count += 1
    events.append(chunk(layout, None, count, rng, finish="stop", delta="{}"))
    usage = f'"usage":{{"prompt_tokens":9,"completion_tokens":{count},"total_tokens":{count + 9}}}'
    events.append(f'{{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":{CREATED},"model":"bench","choices":[],{usage}}}')
    encoded = [f"data: {event}\n\n".encode() for event in events] + [b"data: [DONE]\n\n"]
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n"
    if framing == "chunked":
        body = b"".join(b"%x\r\n%s\r\n" % (len(event), event) for event in encoded) + b"0\r\n\r\n"
        head += "Transfer-Encoding: chunked\r\n"
    elif framing == "length":
        body = b"".join(encoded)
        head += f"Content-Length: {len(body)}\r\n"
    else:
        raise ValueError(f"unknown framing {framing}")
    return head.encode() + b"\r\n" + body


class Handler(BaseHTTPRequestHandler):
    server_version = "bench-layouts"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        messages = request.get("messages") or [{}]
        name = str(messages[-1].get("content", "")).split()
        if not self.path.endswith("/chat/completions") or len(name) != 4:
            self.send_error(404, "ask for LAYOUT PIECE FRAMING BYTES")
            return
        with LOCK:
            key = tuple(name)
            if key not in CACHE:
                CACHE[key] = reply(name[0], name[1], name[2], int(name[3]))
            data = memoryview(CACHE[key])
        self.close_connection = True
        for start in range(0, len(data), 256 * 1024):
            self.wfile.write(data[start:start + 256 * 1024])


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
server.shutdown()
