# An MCP server over Streamable HTTP as the MCP Python SDK serves it (mcp 2.x in .local/venv:
# mcp/server/streamable_http.py with its default json_response=False), for hark's client tests:
# every answer to a request comes as an SSE stream (`event: message`, CRLF line ends), the
# session id in `Mcp-Session-Id` with the initialize answer, 400 for a later request without
# it. mcp-proxy (the other HTTP server the tests use) answers with plain JSON instead. The tool
# is ours; everything on the wire is the SDK's. Prints "port N" once it listens.
#
# `forecast` has an argument annotated `x-mcp-header` (2026-07-28: the client mirrors it as
# the `Mcp-Param-Region` header, `=?base64?…?=` when not plain ASCII; the SDK's server refuses
# a call without it or with another value, mcp/shared/inbound.py `validate_mcp_param_headers`).
import socket
from typing import Annotated

import uvicorn
from mcp.server.mcpserver import MCPServer
from pydantic import Field

app = MCPServer("hark-fixture")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@app.tool()
def forecast(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """The weather of a region."""
    return f"sunny in {region}"


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(64)  # before the port is told: a connection made now waits in the backlog
print(f"port {listener.getsockname()[1]}", flush=True)
uvicorn.Server(uvicorn.Config(app.streamable_http_app(), log_level="warning")).run(sockets=[listener])
