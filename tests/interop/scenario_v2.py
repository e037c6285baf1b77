"""The interop scenario's v2 turns (see scenario.md) for our client (acp_runtime, `Session`), and
the report every v2 client must produce against every v2 agent (rc3_client.py's v2 report)."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_schema_v2 as acp2
from acp_runtime import wire
from acp_runtime.session import Session

CLIENT_INFO = {"name": "acp-runtime-interop-client", "version": "0.1.0"}


class ScenarioClientV2(acp2.ClientHandler):
    async def session_request_permission(
        self, params: acp2.RequestPermissionRequest
    ) -> acp2.RequestPermissionResponse:
        for option in params.options:
            if wire.get(option, "kind") == "allow_once":
                outcome = {"outcome": "selected", "optionId": option.option_id}
                return wire.build(acp2, {"outcome": outcome}, acp2.RequestPermissionResponse)
        return wire.build(
            acp2, {"outcome": {"outcome": "cancelled"}}, acp2.RequestPermissionResponse
        )

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_interop/echo":
            return {"echo": params}
        raise acp2.MethodNotFoundError(f"Method not found: {method}")


async def run_scenario_v2(conn: Any) -> dict[str, Any]:
    """Run the v2 turns on `conn`, a v2 client connection not yet initialized."""
    report: dict[str, Any] = {}
    init = {"protocolVersion": 2, "info": CLIENT_INFO, "capabilities": {}}
    answer = await conn.request("initialize", wire.build(acp2, init, acp2.InitializeRequest))
    report["protocolVersion"] = wire.get(answer, "protocolVersion")
    report["agentName"] = wire.get(answer, "info", "name")
    session = await Session.new(conn, "/tmp")

    async def turn(text: str) -> dict[str, Any]:
        chunks: list[str] = []
        kinds: list[str] = []
        running = asyncio.ensure_future(session.prompt(text))
        async for update in session.updates():
            kind = wire.get(update, "sessionUpdate")
            kinds.append(kind if kind != "state_update" else f"{kind}:{wire.get(update, 'state')}")
            if kind == "agent_message_chunk":
                chunks.append(wire.get(update, "content", "text"))
                if chunks == ["waiting"]:
                    await session.cancel()
        outcome = await running
        message_id = wire.get(outcome.response, "messageId")
        return {
            "stopReason": outcome.stop_reason,
            "chunks": chunks,
            "kinds": kinds,
            "messageId": isinstance(message_id, str) and message_id != "",
        }

    report["echo"] = await turn("hello")
    report["permission"] = await turn("permission")
    report["ext"] = await turn("ext")
    report["extRequest"] = await conn.request("_interop/echo", {"n": 2})
    report["cancel"] = await turn("wait")
    call = await conn.send_request("_interop/hang", {})
    await asyncio.sleep(0.05)  # the agent's handler is running
    await call.cancel()
    try:
        report["cancelRequest"] = {"result": await call}
    except acp2.RpcError as err:
        report["cancelRequest"] = {"error": err.code}
    return report


def expected_v2(agent_name: str) -> dict[str, Any]:
    def turn(stop: str, *chunks: str) -> dict[str, Any]:
        kinds = ["user_message", "state_update:running"]
        kinds += ["agent_message_chunk"] * len(chunks) + ["state_update:idle"]
        return {"stopReason": stop, "chunks": list(chunks), "kinds": kinds, "messageId": True}

    return {
        "protocolVersion": 2,
        "agentName": agent_name,
        "echo": turn("end_turn", "hello"),
        "permission": turn("end_turn", "outcome: allow"),
        "ext": turn("end_turn", "ext: 1"),
        "extRequest": {"echo": {"n": 2}},
        "cancel": turn("cancelled", "waiting"),
        "cancelRequest": {"error": -32800},
    }
