# An MCP server over Streamable HTTP as the MCP Python SDK serves it (mcp 2.x in .local/venv:
# mcp/server/streamable_http.py with its default json_response=False), for hark's client tests:
# every answer to a request comes as an SSE stream (`event: message`, CRLF line ends), the
# session id in `Mcp-Session-Id` with the initialize answer, 400 for a later request without
# it. mcp-proxy (the other HTTP server the tests use) answers with plain JSON instead. The tool
# is ours; everything on the wire is the SDK's. Prints "port N" once it listens.
import socket

import uvicorn
from mcp.server.mcpserver import MCPServer

app = MCPServer("hark-fixture")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(64)  # before the port is told: a connection made now waits in the backlog
print(f"port {listener.getsockname()[1]}", flush=True)
uvicorn.Server(uvicorn.Config(app.streamable_http_app(), log_level="warning")).run(sockets=[listener])
