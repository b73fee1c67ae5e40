# An MCP server over Streamable HTTP as the MCP Python SDK 2.x serves it (mcp/server/
# streamable_http.py: SSE answers, a session id with the initialize answer, DELETE ends the
# session, 404 for it afterwards), with a tool that takes its time, and a record of what
# reached it on stdout: the tests check that hark ends its session when it exits and cancels
# a call it stopped (spec 2025-11-25 basic/transports: "Session Management", item 5, and
# "Sending Messages to the Server": to cancel, the client sends a CancelledNotification).
#
# Prints "port N" once it listens, then one line per HTTP request as the SDK's app reads it:
#   POST <session or -> <JSON-RPC method, or "response"> …
#   DELETE <session>
#   session <id>            (the id the SDK gave with an initialize answer)
import asyncio
import json
import os
import socket
import sys
import threading

import uvicorn
from mcp.server.mcpserver import MCPServer

app = MCPServer("hark-recorder")


@app.tool()
async def wait(seconds: float) -> str:
    """Wait for some seconds, then say so."""
    await asyncio.sleep(seconds)
    return f"waited {seconds} s"


def say(*words):
    print(" ".join(words), flush=True)


def methods(body):
    try:
        messages = json.loads(body)
    except ValueError:
        return ["(not JSON)"]
    if not isinstance(messages, list):
        messages = [messages]
    return [m.get("method", "response") if isinstance(m, dict) else "?" for m in messages]


def recording(inner):
    """ASGI middleware: records each request's method and session as the app reads its body
    (so a line is out before the app answers), and the session id of each answer."""

    async def asgi(scope, receive, send):
        if scope["type"] != "http":
            return await inner(scope, receive, send)
        headers = dict(scope["headers"])
        session = headers.get(b"mcp-session-id", b"-").decode()
        body = []

        async def reading():
            message = await receive()
            if message["type"] == "http.request":
                body.append(message.get("body", b""))
                if not message.get("more_body") and scope["method"] == "POST":
                    say("POST", session, *methods(b"".join(body)))
            return message

        async def sending(message):
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.lower() == b"mcp-session-id" and session == "-":
                        say("session", value.decode())
            await send(message)

        if scope["method"] != "POST":
            say(scope["method"], session)
        await inner(scope, reading, sending)

    return asgi


# Gone with the tests however they end: they hold our stdin open until then.
threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(64)  # before the port is told: a connection made now waits in the backlog
print(f"port {listener.getsockname()[1]}", flush=True)
server = uvicorn.Server(uvicorn.Config(recording(app.streamable_http_app()), log_level="warning"))
server.run(sockets=[listener])
