# An MCP server whose tools ask the user through the client (spec 2025-11-25,
# client/elicitation: `elicitation/create`), written with the MCP Python SDK in .local/venv:
# form mode through `ctx.elicit` (mcp/server/elicitation.py, `elicit_with_validation`: the
# schema rendered from a pydantic model, the answer validated against it) and URL mode through
# `ctx.elicit_url` (same file, `elicit_url`). Each tool returns what reached it, as JSON, so
# the tests read the client's answer from the tool's result.
#
#   python elicit_server.py          stdio (mcp/server/stdio.py)
#   python elicit_server.py http     Streamable HTTP (mcp/server/streamable_http.py, SSE
#                                    answers), printing "port N" once it listens
import json
import socket
import sys
from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

app = MCPServer("hark-elicit")


class Registration(BaseModel):
    name: str = Field(description="Your name")
    count: int = Field(description="How many tickets", ge=1, le=10)


def reached(result) -> str:
    """What reached the tool: the action, and the answers when accepted."""
    if result.action == "accept":
        return json.dumps({"action": "accept", "content": result.data.model_dump()}, sort_keys=True)
    return json.dumps({"action": result.action})


@app.tool()
async def register(ctx: Context) -> str:
    """Register for the event: asks for a name and a number of tickets."""
    return reached(await ctx.elicit("Who is coming, and how many tickets?", Registration))


class Approval(BaseModel):
    decision: Literal["approve", "deny"] = Field(description="Deploy or not")


@app.tool()
async def deploy(ctx: Context) -> str:
    """Deploy v2.4.1: asks to approve or deny (a form of one choice)."""
    return reached(await ctx.elicit("Deploy v2.4.1 to production?", Approval))


@app.tool()
async def connect(ctx: Context) -> str:
    """Connect an account: sends the user to a page of the server's."""
    result = await ctx.elicit_url("Sign in to the example account", "https://accounts.example.org/connect?id=42", "e-42")
    return json.dumps({"action": result.action})


if len(sys.argv) > 1 and sys.argv[1] == "http":
    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"port {listener.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app.streamable_http_app(), log_level="warning")).run(sockets=[listener])
else:
    app.run()
