"""An MCP client written with the official Python SDK, run against an mcpkit server (test/python-peer/).

    peer_client.py <era> http <url>
    peer_client.py <era> stdio <command> [args...]

<era> is 2026-07-28 (negotiated with `server/discover`, mode "auto") or 2025-11-25 (the initialize
handshake, mode "legacy"). The client runs one scenario against the server of
test/support/python-peer-server.ts and prints what it saw as one JSON object on stdout; the vitest test
checks it. A step that raises is recorded as {"error": ...} and the run goes on.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.context import ClientRequestContext
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, TextContent


def dump(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


async def run(era: str, target: Client) -> dict[str, Any]:
    report: dict[str, Any] = {}

    async def step(name: str, action: Any) -> None:
        try:
            report[name] = await action()
        except Exception as error:  # noqa: BLE001 - every failure is reported to the test
            report[name] = {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()}

    async with target as client:
        report["protocolVersion"] = client.protocol_version
        report["serverInfo"] = dump(client.server_info) if client.server_info else None

        async def tools() -> Any:
            listed = await client.list_tools()
            added = await client.call_tool("add", {"a": 2, "b": 40})
            return {"names": sorted(tool.name for tool in listed.tools), "add": texts(added)}

        async def structured() -> Any:
            result = await client.call_tool("weather", {"city": "Lyon"})
            return {"structured": result.structured_content, "text": texts(result), "isError": result.is_error}

        async def resources() -> Any:
            listed = await client.list_resources()
            read = await client.read_resource("test://motd")
            templates = await client.list_resource_templates()
            item = await client.read_resource("test://items/42")
            return {
                "uris": sorted(str(resource.uri) for resource in listed.resources),
                "motd": [dump(content) for content in read.contents],
                "templates": [template.uri_template for template in templates.resource_templates],
                "item": [dump(content) for content in item.contents],
            }

        async def prompts() -> Any:
            listed = await client.list_prompts()
            got = await client.get_prompt("review", {"code": "x = 1"})
            return {"names": [prompt.name for prompt in listed.prompts], "messages": [dump(m) for m in got.messages]}

        async def progress() -> Any:
            seen: list[list[Any]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                seen.append([value, total, message])

            result = await client.call_tool("count", {"to": 3}, progress_callback=on_progress)
            return {"progress": seen, "text": texts(result)}

        async def elicitation() -> Any:
            return texts(await client.call_tool("greet", {}))

        async def sampling() -> Any:
            return texts(await client.call_tool("ask_llm", {"question": "Capital of France?"}))

        async def cancel() -> Any:
            started = anyio.Event()

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                started.set()

            async with anyio.create_task_group() as group:

                async def call_slow() -> None:
                    await client.call_tool("slow", {}, progress_callback=on_progress)

                group.start_soon(call_slow)
                await started.wait()
                group.cancel_scope.cancel()
            # The server answers this once its `slow` handler saw the cancellation.
            return texts(await client.call_tool("cancelled", {}))

        for name, action in [
            ("tools", tools),
            ("structured", structured),
            ("resources", resources),
            ("prompts", prompts),
            ("progress", progress),
            ("elicitation", elicitation),
            ("sampling", sampling),
            ("cancel", cancel),
        ]:
            await step(name, action)
    return report


async def on_elicit(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": f"Ada ({params.message})"})


async def on_sample(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
    first = params.messages[0].content
    prompt = first.text if isinstance(first, TextContent) else "?"
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=f"Paris ({prompt})"), model="python-model"
    )


def main() -> None:
    era, transport, *rest = sys.argv[1:]
    if era not in ("2026-07-28", "2025-11-25") or transport not in ("http", "stdio") or not rest:
        sys.exit(__doc__)
    # The server gets this environment (the SDK passes only a safe subset by default): the test configures
    # mcpkit's stdio fixture through it.
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
    report = anyio.run(run, era, client)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
