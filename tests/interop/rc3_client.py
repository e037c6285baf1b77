"""The interop scenario's client (see scenario.md) on the official Python SDK 1.0.0rc3, run in its
own environment (.venv/acp-rc3, see rc3.py). One JSON report on stdout.

    rc3_client.py 1 FILE AGENT_CMD [ARGS...]   the v1 scenario (acp.connect_to_agent)
    rc3_client.py 2 FILE AGENT_CMD [ARGS...]   the v2 scenario (acp.experimental.v2)
    rc3_client.py 1|2 FILE URL [URL...]        the same against remote agents (http:// Streamable
                                               HTTP, ws:// WebSocket): a JSON list, one per URL

The last step of both, `_interop/hang` then `$/cancel_request`: the SDK sends `$/cancel_request`
when the task awaiting a request is cancelled, and drops the answer; the report shows the answer
the agent sent all the same (seen by an observer on the SDK's connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

import acp
from acp.connection import StreamDirection, StreamEvent
from acp.experimental import v2 as acp2
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation, TextContentBlock

INFO = {"name": "python-sdk-rc3-client", "version": "1.0.0rc3"}


class Extensions:
    async def ext_method(self, method: str, params: dict) -> dict:  # v1
        if method == "interop/echo":
            return {"echo": params}
        raise acp.RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict) -> None:
        return None

    async def handle_extension_request(self, method: str, params: Any) -> Any:  # v2
        if method == "_interop/echo":
            return {"echo": params}
        raise acp.RequestError.method_not_found(method)


class ScenarioClient(Extensions):
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.first_chunk = asyncio.Event()
        self.idle: asyncio.Queue[str] = asyncio.Queue()
        self.kinds: list[str] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = update.session_update
        self.kinds.append(kind if kind != "state_update" else f"state_update:{update.state}")
        if kind == "agent_message_chunk":
            self.chunks.append(update.content.text)
            self.first_chunk.set()
        elif kind == "state_update" and update.state == "idle":
            self.idle.put_nowait(update.stop_reason)

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any):
        return acp.ReadTextFileResponse(content=f"contents of {path}")

    async def request_permission(self, session_id: str, options: list, **kwargs: Any) -> dict:
        """Wire JSON (both versions' answers have this shape): the first allow_once option."""
        for option in options:
            if option.kind == "allow_once":
                return {"outcome": {"outcome": "selected", "optionId": option.option_id}}
        return {"outcome": {"outcome": "cancelled"}}


class Answers:
    """Every answer the connection receives, by request id (what the SDK dropped included)."""

    def __init__(self, conn: Any) -> None:
        self.by_id: dict[Any, dict] = {}
        self.arrived = asyncio.Event()
        conn._conn.add_observer(self)

    def __call__(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction == StreamDirection.INCOMING and "method" not in message:
            self.by_id[message.get("id")] = message
            self.arrived.set()

    async def cancelled(self, conn: Any, send: Any) -> dict:
        """Send a request with `send()`, cancel it once on the wire, and give the agent's answer."""
        sent = asyncio.Event()
        ids: list[Any] = []

        def outgoing(event: StreamEvent) -> None:
            if event.direction == StreamDirection.OUTGOING and "method" in event.message:
                if event.message["method"].endswith("interop/hang"):
                    ids.append(event.message["id"])
                    sent.set()

        conn._conn.add_observer(outgoing)
        call = asyncio.ensure_future(send())
        await sent.wait()
        await asyncio.sleep(0.05)  # the agent's handler is running
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        while ids[0] not in self.by_id:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 10)
        answer = self.by_id[ids[0]]
        return {"error": answer["error"]["code"]} if "error" in answer else answer


@contextlib.asynccontextmanager
async def connected(client: ScenarioClient, version: int, command: list[str]) -> Any:
    """A connection to the agent `command` starts, or to the remote agent at URL `command[0]`."""
    connect = acp2.connect_to_agent if version == 2 else acp.connect_to_agent
    if command[0].startswith(("http://", "ws://")):
        if command[0].startswith("ws://"):
            from acp.ws import create_websocket_stream

            transport = await create_websocket_stream(command[0])
        else:
            from acp.http import create_http_stream

            transport = create_http_stream(command[0])
        conn = connect(client, transport)
        try:
            yield conn
        finally:
            await conn.close()
            await transport.close()
    elif version == 1:
        async with acp.spawn_agent_process(client, command[0], *command[1:]) as (conn, _):
            yield conn
    else:
        from acp.transports import spawn_stdio_transport

        async with spawn_stdio_transport(command[0], *command[1:]) as (reader, writer, _):
            conn = acp2.connect_to_agent(client, writer, reader)
            try:
                yield conn
            finally:
                await conn.close()


async def v1(conn: Any, client: ScenarioClient, path: str) -> dict:
    async def turn(text: str, **meta: Any) -> dict:
        client.chunks.clear()
        try:
            prompt = [TextContentBlock(text=text)]
            answer = await conn.prompt(session_id=sid, prompt=prompt, **meta)
        except acp.RequestError as err:
            return {"error": err.code, "chunks": list(client.chunks)}
        return {
            "stopReason": answer.stop_reason,
            "chunks": list(client.chunks),
            "meta": answer.field_meta,
        }

    answers = Answers(conn)
    report: dict[str, Any] = {}
    init = await conn.initialize(
        protocol_version=1,
        client_capabilities=ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True)),
        client_info=Implementation(**INFO),
    )
    report["protocolVersion"] = init.protocol_version
    report["agentName"] = init.agent_info.name if init.agent_info else None
    sid = (await conn.new_session(cwd="/tmp", mcp_servers=[])).session_id
    report["echo"] = await turn("hello")
    report["read"] = await turn(f"read:{path}")
    report["permission"] = await turn("permission")
    report["ext"] = await turn("ext")
    report["meta"] = await turn("meta", trace="t1")
    report["auth"] = await turn("auth")
    report["extRequest"] = await conn.ext_method("interop/echo", {"n": 2})
    client.first_chunk.clear()
    waiting = asyncio.ensure_future(turn("wait"))
    await client.first_chunk.wait()
    await conn.cancel(session_id=sid)
    report["cancel"] = await waiting
    report["cancelRequest"] = await answers.cancelled(
        conn, lambda: conn.ext_method("interop/hang", {})
    )
    return report


async def v2(conn: Any, client: ScenarioClient) -> dict:
    async def turn(text: str) -> dict:
        client.chunks.clear()
        client.kinds.clear()
        answer = await conn.prompt(session_id=sid, prompt=[{"type": "text", "text": text}])
        stop = await asyncio.wait_for(client.idle.get(), 10)
        return {
            "stopReason": stop,
            "chunks": list(client.chunks),
            "kinds": list(client.kinds),
            "messageId": bool(answer.message_id),
        }

    answers = Answers(conn)
    report: dict[str, Any] = {}
    init = await conn.initialize(protocol_version=2, info=INFO, capabilities={})
    report["protocolVersion"] = init.protocol_version
    report["agentName"] = init.info.name
    sid = (await conn.new_session(cwd="/tmp", mcp_servers=[])).session_id
    report["echo"] = await turn("hello")
    report["permission"] = await turn("permission")
    report["ext"] = await turn("ext")
    report["extRequest"] = await conn.send_extension_request("_interop/echo", {"n": 2})
    client.first_chunk.clear()
    waiting = asyncio.ensure_future(turn("wait"))
    await client.first_chunk.wait()
    await conn.cancel_session(session_id=sid)
    report["cancel"] = await waiting
    report["cancelRequest"] = await answers.cancelled(
        conn, lambda: conn.send_extension_request("_interop/hang", {})
    )
    return report


async def main(version: int, path: str, command: list[str]) -> dict:
    client = ScenarioClient()
    async with connected(client, version, command) as conn:
        return await (v1(conn, client, path) if version == 1 else v2(conn, client))


async def main_remote(version: int, path: str, urls: list[str]) -> list[dict]:
    return [await main(version, path, [url]) for url in urls]


if __name__ == "__main__":
    version, path, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    remote = all(arg.startswith(("http://", "ws://")) for arg in command)
    run = main_remote(version, path, command) if remote else main(version, path, command)
    print(json.dumps(asyncio.run(run)))
