"""An MCP server written with the official Python SDK, for mcpkit's client to talk to (test/python-peer/).

    peer_server.py stdio   serves on stdin/stdout
    peer_server.py http    serves Streamable HTTP on 127.0.0.1 at a free port, and prints
                           "listening http://127.0.0.1:<port>/mcp" on stdout once it accepts connections

Both transports answer both wire eras (2025-11-25 after initialize, 2026-07-28 per request).
Tools: add, weather (structured output), count (progress), greet (elicitation), haiku (sampling),
slow (waits until cancelled) and cancelled (answers once the slow call of its key was cancelled); a resource and a
prompt. Nothing but protocol frames goes to stdout in stdio mode.
"""

from __future__ import annotations

import socket
import sys
from typing import Annotated

import anyio
import uvicorn
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("python-peer", version="2.3.0", log_level="WARNING")

# One event per key, set when a call of `slow` with that key is cancelled; `cancelled` waits for it. One process
# serves every connection of a test file, each with its own key.
cancellations: dict[str, anyio.Event] = {}


def cancellation(key: str) -> anyio.Event:
    return cancellations.setdefault(key, anyio.Event())


@server.tool()
def add(a: int, b: int) -> str:
    """Adds two integers."""
    return str(a + b)


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool()
def weather(city: str) -> Weather:
    """The weather in a city, as structured output."""
    return Weather(city=city, celsius=21.5)


@server.tool()
async def count(to: int, ctx: Context) -> str:
    """Counts to `to`, reporting each step as progress."""
    for step in range(1, to + 1):
        await ctx.report_progress(step, to, f"step {step}")
    return f"counted to {to}"


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("Your name?", Name)


@server.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Asks the user's name (elicitation), then greets them."""
    return f"Hello, {who.name}!"


def ask_haiku(topic: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"A haiku about {topic}"))],
        max_tokens=50,
    )


@server.tool()
def haiku(topic: str, answer: Annotated[CreateMessageResult, Resolve(ask_haiku)]) -> str:
    """Asks the client's model for a haiku (sampling)."""
    content = answer.content
    text = content.text if isinstance(content, TextContent) else "?"
    return f"{answer.model}: {text}"


@server.tool()
async def slow(key: str, ctx: Context) -> str:
    """Reports progress once, then waits until the call is cancelled."""
    await ctx.report_progress(0, 1, "started")
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        cancellation(key).set()
        raise
    return "never"


@server.tool()
async def cancelled(key: str) -> str:
    """Answers once a call of `slow` with this key was cancelled."""
    await cancellation(key).wait()
    return f"slow {key} was cancelled"


@server.resource("peer://motd", name="motd", mime_type="text/plain")
def motd() -> str:
    return "hello from python"


@server.prompt()
def review(code: str) -> str:
    """Asks for a code review."""
    return f"Please review: {code}"


async def serve_http() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # Listening before uvicorn starts: a client that connects at once waits in the backlog, so the line below
    # can be printed now.
    sock.listen(128)
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        anyio.run(server.run_stdio_async)
    elif mode == "http":
        anyio.run(serve_http)
    else:
        sys.exit(f"unknown mode {mode!r}: stdio or http")
