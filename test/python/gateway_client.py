"""An MCP client written with the official Python SDK, as a downstream of the mcpkit gateway (test/gateway/).

    gateway_client.py <era> <who> http <url>
    gateway_client.py <era> <who> stdio <command> [args...]

<era> is 2026-07-28 (mode "auto": `server/discover`) or 2025-11-25 (mode "legacy": `initialize`). The client
lists the gateway's tools and calls `up__sample` and `up__elicit`, whose upstream asks for input while they run:
its sampling callback answers `<who> heard <the prompt>`, its elicitation callback accepts with the name <who>.
It prints what it saw as one JSON object on stdout; a step that raises is recorded as {"error": ...}.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.context import ClientRequestContext
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, TextContent


def texts(result: Any) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


async def run(target: Client) -> dict[str, Any]:
    report: dict[str, Any] = {}

    async def step(name: str, action: Any) -> None:
        try:
            report[name] = await action()
        except Exception as error:  # noqa: BLE001 - every failure is reported to the test
            report[name] = {"error": f"{type(error).__name__}: {error}"}

    async with target as client:
        report["protocolVersion"] = client.protocol_version

        async def tools() -> Any:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

        async def sampled() -> Any:
            return texts(await client.call_tool("up__sample", {}))

        async def elicited() -> Any:
            return texts(await client.call_tool("up__elicit", {}))

        await step("tools", tools)
        await step("sampled", sampled)
        await step("elicited", elicited)
    return report


def main() -> None:
    era, who, transport, *rest = sys.argv[1:]
    if era not in ("2026-07-28", "2025-11-25") or transport not in ("http", "stdio") or not rest:
        sys.exit(__doc__)

    async def on_sample(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        first = params.messages[0].content
        prompt = first.text if isinstance(first, TextContent) else "?"
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=f"{who} heard {prompt}"), model="python-model"
        )

    async def on_elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": who})

    server: Any = (
        rest[0] if transport == "http" else StdioServerParameters(command=rest[0], args=rest[1:], env=dict(os.environ))
    )
    client = Client(
        server,
        mode="auto" if era == "2026-07-28" else "legacy",
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        cache=None,
    )
    print(json.dumps(anyio.run(run, client)), flush=True)


if __name__ == "__main__":
    main()
