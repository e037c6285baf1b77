"""Remote behaviours no other test pinned (issue 41), each named after what a user sees, on the
wire: a loopback server refuses a request without a Host header, an unmasked client frame fails
the WebSocket connection whatever path it takes, and on GOAWAY the h2c client keeps waiting on
the stream the server names as the last it processed (only the streams above it fail)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator

import h2.config
import h2.connection
import h2.events
import pytest
from hyperframe.frame import GoAwayFrame

from acp_runtime import ConnectionClosedError
from acp_runtime.http import AcpApp, connect_agent

from .agents import HistoryAgent, Store
from .helpers import INIT, served
from .test_security import RawSocket

# --- a request with no Host header is refused by a loopback server ------------------------------


def history_app() -> AcpApp:
    return AcpApp(lambda conn: HistoryAgent(conn, Store()))


async def http10_post(port: int, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    """POST /acp over HTTP/1.0 (which, unlike HTTP/1.1, may go without a Host header): the
    answer's status and body."""
    head = ["POST /acp HTTP/1.0", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        answer = await asyncio.wait_for(reader.read(), 10)  # HTTP/1.0: it ends with the answer
    finally:
        writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


async def test_a_loopback_server_refuses_a_request_without_a_host_header() -> None:
    async with served(history_app()) as base:
        port = int(base.rsplit(":", 1)[1])
        body = json.dumps(INIT).encode()
        json_type = {"Content-Type": "application/json"}
        status, answer = await http10_post(port, body, json_type)
        assert status == 403, answer  # a DNS-rebinding page could send it so: no Host, no answer
        assert b"protocolVersion" not in answer
        status, answer = await http10_post(port, body, {**json_type, "Host": f"127.0.0.1:{port}"})
        assert status == 200 and b"protocolVersion" in answer  # the Host is all that differed


# --- unmasked client frames fail the WebSocket connection ---------------------------------------


def unmasked(payload: bytes, fin: bool = True) -> bytes:
    """A client text frame without a mask (RFC 6455 section 5.1: the server must fail the
    connection); `fin` False: the first fragment of a message."""
    assert len(payload) < 126
    return bytes((0x81 if fin else 0x01, len(payload))) + payload


def masked(payload: bytes) -> bytes:
    """A client text frame masked with the all-zero key (its payload goes as it is)."""
    assert len(payload) < 126
    return bytes((0x81, 0x80 | len(payload))) + b"\0\0\0\0" + payload


NEW = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "session/new",
    "params": {"cwd": "/tmp", "mcpServers": []},
}


async def first_frame_after(sock: RawSocket, data: bytes) -> tuple[int, bytes]:
    """The server's first frame after `data` other than a ping or pong ((-1, b""): none, the
    socket ended)."""
    sock.writer.write(data)  # one write: one chunk for the server to read
    while True:
        opcode, payload = await sock.frame()
        if opcode not in (9, 10):
            return opcode, payload


@pytest.mark.parametrize("alone", [True, False], ids=["alone", "with a fragment after it"])
@pytest.mark.parametrize("when", ["first", "after initialize"])
async def test_an_unmasked_client_frame_fails_the_websocket_connection(
    when: str, alone: bool
) -> None:
    """An unmasked text frame, alone in its chunk or followed by the (unmasked) first fragment of
    another message (four bytes: what a reader taking the start of the payload for a mask would
    count as the rest of it), as the first frame of the socket or after a round trip: the server
    fails the connection (it ends the socket, after a close frame with 1002, protocol error, if
    any), and never answers what the unmasked frame seemed to carry."""
    async with served(history_app()) as base:
        sock = await RawSocket.open(int(base.rsplit(":", 1)[1]))
        try:
            assert sock.status == 101, sock.head
            if when == "after initialize":
                sock.writer.write(masked(json.dumps(INIT).encode()))
                assert (await sock.message())["id"] == 0
            data = unmasked(json.dumps(NEW).encode())
            if not alone:
                data += unmasked(b"hi", fin=False)
            opcode, payload = await first_frame_after(sock, data)
            assert opcode in (-1, 8), (opcode, payload)  # the end, not a message
            if opcode == 8:
                assert int.from_bytes(payload[:2], "big") == 1002, payload
                assert (await sock.frame())[0] == -1  # and then the socket ends
        finally:
            sock.close()


# --- on GOAWAY, the stream named last processed keeps waiting (h2c client) -----------------------


class GoawayServer(asyncio.Protocol):
    """An h2c server (h2's server connection) that answers initialize, holds the GET stream open
    (`get_open`), and answers the first other POST with GOAWAY naming `last(stream)` as the last
    stream it processed (`sent`). It never answers that POST. (The client's h2 sends nothing after
    a GOAWAY, and takes no frame after it either: the answer could not be read.)"""

    def __init__(self, last: Any, get_open: asyncio.Event, sent: asyncio.Event) -> None:
        config = h2.config.H2Configuration(client_side=False, header_encoding=None)
        self.h2 = h2.connection.H2Connection(config=config)
        self.last, self.get_open, self.sent = last, get_open, sent
        self.heads: dict[int, dict[bytes, bytes]] = {}
        self.bodies: dict[int, bytes] = {}
        self.gone_away = False
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.h2.initiate_connection()
        transport.write(self.h2.data_to_send())

    def data_received(self, data: bytes) -> None:
        for event in self.h2.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                self.heads[event.stream_id] = dict(event.headers)
                self.bodies[event.stream_id] = b""
            elif isinstance(event, h2.events.DataReceived):
                self.bodies[event.stream_id] += event.data
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.answer(event.stream_id)
        self.transport.write(self.h2.data_to_send())

    def answer(self, stream_id: int) -> None:
        method = self.heads[stream_id][b":method"]
        if method == b"GET":
            self.h2.send_headers(
                stream_id, [(b":status", b"200"), (b"content-type", b"text/event-stream")]
            )
            self.get_open.set()
            return
        message = json.loads(self.bodies[stream_id] or b"{}")
        if message.get("method") == "initialize":
            head = [(b":status", b"200"), (b"content-type", b"application/json")]
            self.h2.send_headers(stream_id, head + [(b"acp-connection-id", b"c1")])
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": 1}}
            self.h2.send_data(stream_id, json.dumps(answer).encode(), end_stream=True)
        elif not self.gone_away:
            self.gone_away = True
            goaway = GoAwayFrame(0)  # written by hand: h2 sends nothing on a stream after its own
            goaway.last_stream_id = self.last(stream_id)
            self.transport.write(self.h2.data_to_send() + goaway.serialize())
            self.sent.set()


@contextlib.asynccontextmanager
async def goaway_server(last: Any) -> AsyncIterator[tuple[str, list[GoawayServer]]]:
    get_open, sent = asyncio.Event(), asyncio.Event()
    made: list[GoawayServer] = []

    def protocol() -> GoawayServer:
        made.append(GoawayServer(last, get_open, sent))
        return made[-1]

    server = await asyncio.get_running_loop().create_server(protocol, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/acp", made
    finally:
        for p in made:
            if p.transport is not None:
                p.transport.close()
        server.close()
        await server.wait_closed()


async def test_on_goaway_the_stream_named_last_processed_keeps_waiting_for_its_answer() -> None:
    async with goaway_server(lambda stream_id: stream_id) as (url, made):
        async with connect_agent(url, None, http2=True) as conn:
            await conn.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            (server,) = made
            await asyncio.wait_for(server.get_open.wait(), 5)  # the stream below the POST's
            call = asyncio.ensure_future(conn.request("_work", {}))
            await asyncio.wait_for(server.sent.wait(), 5)
            # half a second for the client to read the GOAWAY (on loopback, at once) and act on it
            done, _ = await asyncio.wait({call}, timeout=0.5)
            assert not done, call  # it still waits: the server may still answer it
            server.transport.close()  # it goes without answering: now the call fails
            with pytest.raises(ConnectionClosedError):
                await asyncio.wait_for(call, 5)


async def test_on_goaway_a_stream_above_the_one_named_last_fails_at_once() -> None:
    async with goaway_server(lambda stream_id: stream_id - 2) as (url, made):
        async with connect_agent(url, None, http2=True) as conn:
            await conn.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            (server,) = made
            await asyncio.wait_for(server.get_open.wait(), 5)
            with pytest.raises(ConnectionClosedError, match="ended the HTTP/2 connection"):
                await asyncio.wait_for(conn.request("_work", {}), 5)
