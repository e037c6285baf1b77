"""The interop scenario's client (see scenario.md), on the official Python SDK.

python py_sdk_client.py FILE AGENT_CMD [ARGS...]    -> one JSON report on stdout
python py_sdk_client.py FILE URL                    -> the same against a remote agent
                                                       (http:// Streamable HTTP, ws:// WebSocket)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

import acp
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
)


class ScenarioClient:
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.first_chunk = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if getattr(update, "session_update", None) == "agent_message_chunk":
            self.chunks.append(update.content.text)
            self.first_chunk.set()

    async def read_text_file(
        self, session_id: str, path: str, line=None, limit=None, **kwargs: Any
    ):
        return acp.ReadTextFileResponse(content=f"contents of {path}")

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list, **kwargs: Any
    ):
        for option in options:
            if option.kind == "allow_once":
                return acp.RequestPermissionResponse(
                    outcome=AllowedOutcome(option_id=option.option_id, outcome="selected")
                )
        return acp.RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def ext_method(self, method: str, params: dict) -> dict:
        if method == "interop/echo":
            return {"echo": params}
        raise acp.RequestError(-32601, f"Method not found: _{method}")

    async def ext_notification(self, method: str, params: dict) -> None:
        return None


async def turn(conn: Any, client: ScenarioClient, session_id: str, text: str, **meta: Any) -> dict:
    client.chunks.clear()
    try:
        answer = await conn.prompt(session_id=session_id, prompt=[acp.text_block(text)], **meta)
    except acp.RequestError as err:
        return {"error": err.code, "chunks": list(client.chunks)}
    return {
        "stopReason": answer.stop_reason,
        "chunks": list(client.chunks),
        "meta": answer.field_meta,
    }


@contextlib.asynccontextmanager
async def connected(client: ScenarioClient, command: list[str]) -> Any:
    """A connection to the agent `command` starts, or to the remote agent at URL `command[0]`."""
    if command[0].startswith(("http://", "ws://")):
        if command[0].startswith("ws://"):
            from acp.ws import create_websocket_stream

            transport = await create_websocket_stream(command[0])
        else:
            from acp.http import create_http_stream

            transport = create_http_stream(command[0])
        conn = acp.connect_to_agent(client, transport)
        try:
            yield conn
        finally:
            await conn.close()
    else:
        async with acp.spawn_agent_process(client, command[0], *command[1:]) as (conn, _process):
            yield conn


async def main(path: str, command: list[str]) -> dict:
    client = ScenarioClient()
    report: dict[str, Any] = {}
    async with connected(client, command) as conn:
        init = await conn.initialize(
            protocol_version=1,
            client_capabilities=ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True)),
            client_info=Implementation(name="python-sdk-interop-client", version="0.12.1"),
        )
        report["protocolVersion"] = init.protocol_version
        report["agentName"] = init.agent_info.name if init.agent_info else None
        session = await conn.new_session(cwd="/tmp", mcp_servers=[])
        sid = session.session_id
        report["echo"] = await turn(conn, client, sid, "hello")
        report["read"] = await turn(conn, client, sid, f"read:{path}")
        report["permission"] = await turn(conn, client, sid, "permission")
        report["ext"] = await turn(conn, client, sid, "ext")
        report["meta"] = await turn(conn, client, sid, "meta", trace="t1")
        report["auth"] = await turn(conn, client, sid, "auth")
        report["extRequest"] = await conn.ext_method("interop/echo", {"n": 2})
        client.first_chunk.clear()
        waiting = asyncio.ensure_future(turn(conn, client, sid, "wait"))
        await client.first_chunk.wait()
        await conn.cancel(session_id=sid)
        report["cancel"] = await waiting
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2:]))))
