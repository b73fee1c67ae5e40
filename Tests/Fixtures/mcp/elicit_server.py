# An MCP server whose tools ask the user through the client, written with the MCP Python SDK
# 2.3 in .local/venv, which serves both protocol eras; the client's first request decides:
#
# - 2025-11-25 and older (the `initialize` handshake; spec client/elicitation): each question
#   is an `elicitation/create` request to the client in the middle of the call;
# - 2026-07-28 (stateless: no handshake, `server/discover`, the envelope in each request's
#   `_meta`): the call answers `{"resultType": "input_required", "inputRequests": {KEY:
#   {"method": "elicitation/create", "params": …}}, "requestState": …}` and the client sends
#   the call again with `inputResponses` {KEY: ElicitResult} and the `requestState` echoed.
#
# `register` asks through a resolver (mcp/server/mcpserver/resolve.py, `Resolve` and `Elicit`:
# "The transport follows the negotiated protocol"), so the one tool serves both eras; the schema
# is rendered from a pydantic model and the answer validated against it (mcp/server/
# elicitation.py). `connect` asks in URL mode: `ctx.elicit_url` for the handshake era, and for
# 2026-07-28 the hand-rolled flow resolve.py names (a tool returning `InputRequiredResult`, its
# answer read from `ctx.input_responses`; mcp/server/mcpserver/context.py). Each tool returns
# what reached it, as JSON, so the tests read the client's answer from the tool's result.
#
#   python elicit_server.py          stdio (mcp/server/stdio.py)
#   python elicit_server.py http     Streamable HTTP (mcp/server/streamable_http_manager.py:
#                                    SSE answers with a session for the handshake era, one
#                                    POST a request for 2026-07-28), printing "port N" once
#                                    it listens
import json
import socket
import sys
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp_types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
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


def who_is_coming() -> Elicit[Registration]:
    return Elicit("Who is coming, and how many tickets?", Registration)


@app.tool()
async def register(answer: Annotated[ElicitationResult[Registration], Resolve(who_is_coming)]) -> str:
    """Register for the event: asks for a name and a number of tickets."""
    return reached(answer)


class Approval(BaseModel):
    decision: Literal["approve", "deny"] = Field(description="Deploy or not")


def deploy_question() -> Elicit[Approval]:
    return Elicit("Deploy v2.4.1 to production?", Approval)


@app.tool()
async def deploy(answer: Annotated[ElicitationResult[Approval], Resolve(deploy_question)]) -> str:
    """Deploy v2.4.1: asks to approve or deny (a form of one choice)."""
    return reached(answer)


CONNECT = ("Sign in to the example account", "https://accounts.example.org/connect?id=42", "e-42")


@app.tool()
async def connect(ctx: Context) -> str | InputRequiredResult:
    """Connect an account: sends the user to a page of the server's."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        result = await ctx.elicit_url(*CONNECT)
        return json.dumps({"action": result.action})
    answer = (ctx.input_responses or {}).get("connect")
    if answer is None:
        message, url, elicitation = CONNECT
        ask = ElicitRequest(params=ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation))
        return InputRequiredResult(input_requests={"connect": ask}, request_state="connect")
    action = answer.get("action") if isinstance(answer, dict) else getattr(answer, "action", None)
    return json.dumps({"action": action})


if len(sys.argv) > 1 and sys.argv[1] == "http":
    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"port {listener.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app.streamable_http_app(), log_level="warning")).run(sockets=[listener])
else:
    app.run()
