"""The interop scenario's client (see scenario.md), on acp_runtime, and the report every client
must produce against every agent."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

import acp_schema as acp
from acp_runtime import spawn_agent

HERE = Path(__file__).parent
PYTHON = sys.executable


class ScenarioClient(acp.ClientHandler):
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.first_chunk = asyncio.Event()

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(update, acp.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, acp.TextContent
        ):
            self.chunks.append(update.content.text)
            self.first_chunk.set()

    async def fs_read_text_file(self, params: acp.ReadTextFileRequest) -> acp.ReadTextFileResponse:
        return acp.ReadTextFileResponse(content=f"contents of {params.path}")

    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        for option in params.options:
            if option.kind == acp.PermissionOptionKind.ALLOW_ONCE:
                return acp.RequestPermissionResponse(
                    outcome=acp.SelectedPermissionOutcome(option_id=option.option_id)
                )
        return acp.RequestPermissionResponse(outcome=acp.RequestPermissionOutcomeCancelled())

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_interop/echo":
            return {"echo": params}
        raise acp.MethodNotFoundError(f"Method not found: {method}")


async def run_scenario(
    command: list[str], path: str, *, cancel_request: bool = True, connect: Any = None
) -> dict[str, Any]:
    """Run the scenario against the agent `command` starts, or the one `connect(client)` (an async
    context manager yielding a connection) reaches."""
    client = ScenarioClient()
    report: dict[str, Any] = {}
    opened = (
        connect(client) if connect is not None else spawn_agent(client, command[0], *command[1:])
    )
    async with opened as conn:
        init = await conn.agent.initialize(
            acp.InitializeRequest(
                protocol_version=1,
                client_capabilities=acp.ClientCapabilities(
                    fs=acp.FileSystemCapabilities(read_text_file=True)
                ),
                client_info=acp.Implementation(name="acp-runtime-interop-client", version="0.1.0"),
            )
        )
        report["protocolVersion"] = init.protocol_version
        report["agentName"] = init.agent_info.name if init.agent_info else None
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))

        async def turn(text: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
            client.chunks.clear()
            request = acp.PromptRequest(
                session_id=session.session_id,
                prompt=[acp.TextContent(text=text)],
                meta=msgspec.UNSET if meta is None else meta,
            )
            try:
                answer = await conn.agent.session_prompt(request)
            except acp.RpcError as err:
                return {"error": err.code, "chunks": list(client.chunks)}
            meta_back = None if answer.meta is msgspec.UNSET else answer.meta
            return {
                "stopReason": answer.stop_reason.value,
                "chunks": list(client.chunks),
                "meta": meta_back,
            }

        report["echo"] = await turn("hello")
        report["read"] = await turn(f"read:{path}")
        report["permission"] = await turn("permission")
        report["ext"] = await turn("ext")
        report["meta"] = await turn("meta", {"trace": "t1"})
        report["auth"] = await turn("auth")
        report["extRequest"] = await conn.request("_interop/echo", {"n": 2})
        client.first_chunk.clear()
        waiting = asyncio.ensure_future(turn("wait"))
        await client.first_chunk.wait()
        await conn.agent.session_cancel(acp.CancelNotification(session_id=session.session_id))
        report["cancel"] = await waiting
        if cancel_request:
            call = await conn.send_request("_interop/hang", {})
            await call.cancel()
            try:
                report["cancelRequest"] = {"result": await call}
            except acp.RpcError as err:
                report["cancelRequest"] = {"error": err.code}
    return report


def expected(agent_name: str, path: str, *, cancel_request: bool = True) -> dict[str, Any]:
    def ok(*chunks: str, meta: Any = None) -> dict[str, Any]:
        return {"stopReason": "end_turn", "chunks": list(chunks), "meta": meta}

    report = {
        "protocolVersion": 1,
        "agentName": agent_name,
        "echo": ok("hello"),
        "read": ok(f"contents of {path}"),
        "permission": ok("outcome: allow"),
        "ext": ok("ext: 1"),
        "meta": ok("meta: t1", meta={"echo": {"trace": "t1"}}),
        "auth": {"error": -32000, "chunks": []},
        "extRequest": {"echo": {"n": 2}},
        "cancel": {"stopReason": "cancelled", "chunks": ["waiting"], "meta": None},
    }
    if cancel_request:
        report["cancelRequest"] = {"error": -32800}
    return report


def require(condition: bool, what: str) -> None:
    """A missing peer fails the test: `make test` installs every peer, so none is ever skipped."""
    if not condition:
        pytest.fail(f"{what} is missing: run `make test`, which installs the interop peers")


def node_peer(script: str) -> list[str]:
    node = shutil.which("node")
    require(node is not None, "node")
    require(
        (HERE / "node_modules" / "@agentclientprotocol" / "sdk").is_dir(),
        "npm package @agentclientprotocol/sdk (npm ci in tests/interop)",
    )
    return [node, str(HERE / script)]
