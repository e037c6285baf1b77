"""The loopback HTTP bridge: an agent built on the official `mcp` client (its Streamable HTTP
transport), pointed at the bridge, lists and calls a tool the ACP client provides over
`mcp/message`; and hostile requests (no token, another server's, a browser Origin, a foreign Host,
a body over the bound), each refused with its own status and reason, nothing reaching a server."""

from __future__ import annotations

import asyncio
import contextlib
import json
from urllib.parse import urlsplit

import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

import acp_schema as acp
from acp_runtime.mcp.bridge import MAX_BODY_BYTES, McpBridge
from acp_runtime.mcp.sdk import serve_mcp_server

from .peers import CWD, Tools, mcp_pair
from .sdk_peers import Notes

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


async def test_an_official_mcp_client_lists_and_calls_a_tool_the_acp_client_provides():
    agent, client = await mcp_pair()
    notes = Notes()
    async with serve_mcp_server(client.handler.provider, "notes", notes.server) as reg:
        await client.agent.session_new(
            acp.NewSessionRequest(cwd=CWD, mcp_servers=[reg.declaration])
        )
        [server] = agent.handler.servers
        async with McpBridge(agent.handler.caller) as bridge:
            endpoint = bridge.expose(server)
            assert endpoint.url.startswith("http://127.0.0.1:")
            async with httpx2.AsyncClient(headers=endpoint.headers) as http:
                transport = streamable_http_client(endpoint.url, http_client=http)
                async with Client(transport, mode="2026-07-28") as mcp:
                    listed = await mcp.list_tools()
                    assert [tool.name for tool in listed.tools] == ["note"]
                    result = await mcp.call_tool("note", {"text": "over http"})
                    assert [c.text for c in result.content] == ["noted: over http"]
            assert notes.notes == ["over http"]
            assert bridge.refused == 0
        # closed with its session: the port no longer answers
        async with httpx2.AsyncClient() as http:
            with pytest.raises(httpx2.ConnectError):
                await http.post(endpoint.url, json=LIST, headers=endpoint.headers)


async def test_request_scoped_notifications_ride_the_sse_answer_before_it():
    agent, client = await mcp_pair()
    reg = client.handler.provider.register("tools", Tools())
    async with McpBridge(agent.handler.caller) as bridge:
        endpoint = bridge.expose(reg.server_id)
        call = {
            "jsonrpc": "2.0",
            "id": "c1",
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        }
        async with httpx2.AsyncClient(headers=endpoint.headers) as http:
            accept = {"accept": "application/json, text/event-stream"}
            answer = await http.post(endpoint.url, json=call, headers=accept)
            assert answer.status_code == 200
            assert answer.headers["content-type"] == "text/event-stream"
            events = [
                json.loads(line.removeprefix("data: "))
                for line in answer.text.splitlines()
                if line.startswith("data: ")
            ]
            assert [e.get("method") for e in events] == ["notifications/progress", None]
            assert events[1] == {
                "jsonrpc": "2.0",
                "id": "c1",
                "result": {"content": [{"type": "text", "text": "hi"}]},
            }
            # an unknown server behind a valid endpoint: the binding's error, as JSON-RPC
            await reg.close()
            gone = await http.post(endpoint.url, json=LIST)
            assert gone.json()["error"]["code"] == -33001


async def _bridge_with_one_server():
    agent, client = await mcp_pair()
    tools = Tools()
    reg = client.handler.provider.register("tools", tools)
    other = client.handler.provider.register("other", Tools())
    bridge = McpBridge(agent.handler.caller)
    await bridge.open()
    return bridge, bridge.expose(reg.server_id), bridge.expose(other.server_id), tools


@pytest.mark.parametrize(
    "headers, status, reason",
    [
        ({}, 401, "a bearer token of this server is required"),
        ({"authorization": "Bearer not-the-token"}, 401, "a bearer token of this server"),
        ("other", 401, "a bearer token of this server"),  # another server's own token
        ("own+origin", 403, "Origin is a browser page's"),
        ("own+host", 421, "Host is not a loopback name"),
    ],
)
async def test_a_request_without_its_token_from_a_page_or_to_a_foreign_host_is_refused(
    headers, status, reason
):
    bridge, endpoint, other, tools = await _bridge_with_one_server()
    try:
        if headers == "other":
            headers = other.headers
        elif headers == "own+origin":
            headers = {**endpoint.headers, "origin": "https://evil.example"}
        elif headers == "own+host":
            headers = {**endpoint.headers, "host": "evil.example"}
        async with httpx2.AsyncClient() as http:
            answer = await http.post(endpoint.url, json=LIST, headers=headers)
        assert answer.status_code == status
        assert reason in answer.json()["error"]
        assert tools.seen == [] and bridge.refused == 1  # nothing reached the server
    finally:
        await bridge.close()


async def test_a_body_over_the_bound_is_refused_unread_or_as_it_passes_the_bound():
    bridge, endpoint, _, tools = await _bridge_with_one_server()
    try:
        async with httpx2.AsyncClient(headers=endpoint.headers) as http:
            # (raw connections: the bridge answers and closes while such a client still sends)
            # a 100 MB body declared by its Content-Length: refused before a byte of it is sent
            status, error = await _raw_post(endpoint, "Content-Length: 100000000", chunks=0)
            assert status == 413
            assert f"100000000 bytes, over the limit of {MAX_BODY_BYTES}" in error
            # chunked, no length: refused as soon as it passes the bound (1 MiB chunks)
            status, error = await _raw_post(endpoint, "Transfer-Encoding: chunked", chunks=8)
            assert status == 413 and f"over the limit of {MAX_BODY_BYTES} bytes" in error
            # a GET (the stateless endpoint has no stream to open) and a body that is not JSON
            assert (await http.get(endpoint.url)).status_code == 405
            bad = await http.post(endpoint.url, content=b"{nope")
            assert bad.status_code == 400 and "not JSON" in bad.json()["error"]
            # and the endpoint still serves
            ok = await http.post(endpoint.url, json=LIST)
            assert ok.json()["result"]["tools"][0]["name"] == "echo"
        assert bridge.refused == 4 and [op.method for op in tools.seen] == ["tools/list"]
    finally:
        await bridge.close()


async def _raw_post(endpoint, framing: str, *, chunks: int) -> tuple[int, str]:
    """POST on a raw connection with `framing` (a header), then `chunks` chunks of 1 MiB; the
    answer's status and body."""
    url = urlsplit(endpoint.url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    head = (
        f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Authorization: Bearer {endpoint.token}\r\n{framing}\r\n\r\n"
    )

    async def body() -> None:
        with contextlib.suppress(ConnectionError):
            writer.write(head.encode())
            await writer.drain()
            if not chunks:
                return
            for _ in range(chunks):
                writer.write(b"100000\r\n" + b"y" * (1 << 20) + b"\r\n")
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    sending = asyncio.ensure_future(body())
    try:
        answer = await asyncio.wait_for(reader.read(1 << 16), 10)
        while b"\r\n\r\n" not in answer:
            more = await asyncio.wait_for(reader.read(1 << 16), 10)
            if not more:
                break
            answer += more
        head_part, _, rest = answer.partition(b"\r\n\r\n")
        status = int(head_part.split(b" ", 2)[1])
        return status, rest.decode("latin-1", "replace")
    finally:
        sending.cancel()
        writer.close()
