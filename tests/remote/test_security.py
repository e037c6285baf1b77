"""Attacks on a remote agent, each against the real Hypercorn on loopback (docs/runtime.md,
"Security"): a hostile web page on the same machine (foreign Origin, DNS rebinding), a hostile
client (a WebSocket deflate bomb, a leaked connection id, too many connections, odd ids, deep
nesting, slow bodies, silent sockets) and the limits that keep the server serving the rest."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator

import httpx
import pytest

from acp_runtime.http import AcpApp, connect_agent

from .agents import HistoryAgent, Store
from .helpers import INIT, served, ws

if TYPE_CHECKING:
    from acp_runtime.http import RequestInfo

EXAMPLES = Path(__file__).parents[2] / "examples"
EVIL = "https://evil.example"


@contextlib.asynccontextmanager
async def echo_agent(*args: str) -> AsyncIterator[tuple[str, int]]:
    """`examples/echo_agent.py --listen 127.0.0.1:0 ARGS`: yields (its URL, its pid)."""
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLES / "echo_agent.py"),
        "--listen",
        "127.0.0.1:0",
        *args,
        stdout=asyncio.subprocess.PIPE,
    )
    assert agent.stdout is not None
    try:
        line = (await asyncio.wait_for(agent.stdout.readline(), 30)).decode()
        assert line.startswith("serving "), line
        yield line.split()[1], agent.pid
    finally:
        agent.terminate()
        await agent.wait()


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def history_app(**options: Any) -> AcpApp:
    return AcpApp(lambda conn: HistoryAgent(conn, Store()), **options)


def peak_rss_mib(pid: int) -> float:
    """The peak resident memory of a process (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


# --- a raw WebSocket, to send what a hostile client sends ---------------------------------------


class RawSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: str):
        self.reader, self.writer, self.head = reader, writer, head
        self.status = int(head.split()[1])

    @classmethod
    async def open(cls, port: int, headers: dict[str, str] | None = None) -> RawSocket:
        headers = {"Host": f"127.0.0.1:{port}", **(headers or {})}
        lines = [
            "GET /acp HTTP/1.1",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 24)
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        return cls(reader, writer, head.decode("latin-1").lower())

    def send(self, payload: bytes, opcode: int = 1, rsv1: bool = False) -> None:
        size = len(payload)
        first = 0x80 | (0x40 if rsv1 else 0) | opcode
        if size < 126:
            head = bytes([first, 0x80 | size])
        elif size < 1 << 16:
            head = bytes([first, 0x80 | 126]) + size.to_bytes(2, "big")
        else:
            head = bytes([first, 0x80 | 127]) + size.to_bytes(8, "big")
        mask = os.urandom(4)
        key = (mask * (size // 4 + 1))[:size]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")
        self.writer.write(head + mask + masked)

    async def frame(self, timeout: float = 10) -> tuple[int, bytes]:
        """The next frame from the server: (opcode, payload); (-1, b"") at the end of the socket."""
        try:
            first, second = await asyncio.wait_for(self.reader.readexactly(2), timeout)
        except asyncio.IncompleteReadError:
            return -1, b""
        size = second & 0x7F
        if size == 126:
            size = int.from_bytes(await self.reader.readexactly(2), "big")
        elif size == 127:
            size = int.from_bytes(await self.reader.readexactly(8), "big")
        return first & 0x0F, await self.reader.readexactly(size)

    async def close_code(self, timeout: float = 10) -> int | None:
        """The code of the server's close frame (pings and messages skipped; None: no close
        frame, the socket just ended)."""
        while True:
            opcode, payload = await self.frame(timeout)
            if opcode == -1:
                return None
            if opcode == 8:
                return int.from_bytes(payload[:2], "big")

    async def message(self, timeout: float = 10) -> Any:
        """The next text message (pings skipped)."""
        while True:
            opcode, payload = await self.frame(timeout)
            if opcode == 1:
                return json.loads(payload)
            assert opcode in (9, 10), (opcode, payload)

    def close(self) -> None:
        self.writer.close()


async def post(url: str, message: Any, **headers: str) -> httpx.Response:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    async with httpx.AsyncClient(timeout=10) as http:
        sent = {"content-type": "application/json", **headers}
        return await http.post(url, content=body, headers=sent)


# --- a web page on the same machine -------------------------------------------------------------


async def test_a_page_of_another_origin_cannot_open_a_websocket() -> None:
    async with echo_agent() as (url, _):
        port = port_of(url)
        evil = await RawSocket.open(port, {"Origin": EVIL})
        assert evil.status == 403, evil.head
        evil.close()
        for origin in ("null", "http://127.0.0.1.evil.example:8000"):
            refused = await RawSocket.open(port, {"Origin": origin})
            assert refused.status == 403, (origin, refused.head)
            refused.close()
        for headers in ({}, {"Origin": "http://localhost:5173"}):  # no page; a loopback page
            sock = await RawSocket.open(port, headers)
            assert sock.status == 101, sock.head
            sock.send(json.dumps(INIT).encode())
            assert (await sock.message())["id"] == 0
            sock.close()


async def test_a_page_of_another_origin_cannot_post() -> None:
    async with echo_agent() as (url, _):
        refused = await post(url, INIT, origin=EVIL)
        assert refused.status_code == 403 and "acp-connection-id" not in refused.headers
        assert EVIL not in refused.text  # nothing of the request echoed
        assert (await post(url, INIT)).status_code == 200  # a client that is no page


async def test_a_forged_host_dns_rebinding_is_refused_on_http_and_websocket() -> None:
    async with echo_agent() as (url, _):
        port = port_of(url)
        forged = f"evil.example:{port}"
        refused = await post(url, INIT, host=forged)
        assert refused.status_code == 403 and "acp-connection-id" not in refused.headers
        sock = await RawSocket.open(port, {"Host": forged, "Origin": f"http://{forged}"})
        assert sock.status == 403, sock.head
        sock.close()
        for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
            assert (await post(url, INIT, host=host)).status_code == 200


async def test_allowed_hosts_and_origins_widen_the_checks() -> None:
    app = history_app(allowed_hosts=["agent.example"], allowed_origins=["https://app.example"])
    async with served(app) as base:
        url = base + "/acp"
        fine = await post(url, INIT, host="agent.example", origin="https://app.example")
        assert fine.status_code == 200
        assert (await post(url, INIT, host="agent.example", origin=EVIL)).status_code == 403
        assert (await post(url, INIT)).status_code == 403  # Host 127.0.0.1 is not listed now
    async with served(history_app(allowed_hosts=["*"], allowed_origins=["*"])) as base:
        assert (await post(base + "/acp", INIT, host="any.example", origin=EVIL)).status_code == 200


# --- a hostile client ---------------------------------------------------------------------------


def deflate_bomb(size: int) -> bytes:
    """A permessage-deflate payload that inflates to `size` bytes of JSON whitespace."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b" " * (1 << 20)
    data = b"".join(deflate.compress(chunk) for _ in range(size // len(chunk)))
    return (data + deflate.flush(zlib.Z_SYNC_FLUSH))[:-4]


async def round_trip(http: httpx.AsyncClient, url: str) -> float:
    started = time.perf_counter()
    response = await http.post(url, json=INIT)
    assert response.status_code == 200
    return time.perf_counter() - started


async def test_a_websocket_deflate_bomb_neither_grows_the_server_nor_stalls_it() -> None:
    bomb = deflate_bomb(256 << 20)  # 256 KiB on the wire, 256 MiB inflated
    async with echo_agent() as (url, pid), httpx.AsyncClient(timeout=60) as http:
        before = [await round_trip(http, url) for _ in range(5)]
        memory = peak_rss_mib(pid)
        sockets = []
        for _ in range(2):
            sock = await RawSocket.open(
                port_of(url), {"Sec-WebSocket-Extensions": "permessage-deflate"}
            )
            assert sock.status == 101
            assert "permessage-deflate" not in sock.head  # not negotiated
            sockets.append(sock)
        for sock in sockets:
            sock.send(bomb, rsv1=True)
        during = await round_trip(http, url)
        for sock in sockets:  # the server closes each socket
            while (await sock.frame(60))[0] not in (-1, 8):
                pass
            sock.close()
        growth = peak_rss_mib(pid) - memory
        after = await round_trip(http, url)
    ratio = during / statistics.median(before)
    print(f"deflate bomb: peak RSS +{growth:.0f} MiB, round trip x{ratio:.1f} during it")
    assert growth < 64, f"the server grew {growth:.0f} MiB"
    assert ratio < 20, f"a round trip took {ratio:.1f}x its time before the attack"
    assert after < 10 * max(before)


async def test_a_websocket_message_over_the_limit_closes_that_socket_only() -> None:
    async with served(history_app(max_message_bytes=64 * 1024)) as base:
        port = port_of(base)
        big, small = await RawSocket.open(port), await RawSocket.open(port)
        big.send(b" " * (128 * 1024) + json.dumps(INIT).encode())
        assert await big.close_code() == 1009  # message too big
        small.send(json.dumps(INIT).encode())
        assert (await small.message())["id"] == 0
        big.close(), small.close()


TOKENS = {"alice-token": "alice", "mallory-token": "mallory"}


def by_token(request: RequestInfo) -> str | None:
    return TOKENS.get(request.bearer_token or "")


class Principals(HistoryAgent):
    seen: list[Any] = []

    def __init__(self, conn: Any) -> None:
        super().__init__(conn, Store())
        Principals.seen.append(conn.principal)


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def test_a_leaked_connection_id_is_useless_to_another_principal() -> None:
    from .helpers import RawClient, chunk_text, prompt, request

    async with served(AcpApp(Principals, authenticate=by_token)) as base:
        alice = RawClient(base)
        alice.http.headers.update(bearer("alice-token"))
        try:
            assert (await post(alice.url, INIT)).status_code == 401  # no credentials
            assert (await post(alice.url, INIT, **bearer("wrong"))).status_code == 401
            await alice.initialize()
            assert Principals.seen[-1] == "alice"  # the handler knows who it serves
            stream = await _open(alice, None, "alice-token")
            await alice.post(request(1, "session/new", {"cwd": "/tmp", "mcpServers": []}))
            session = (await stream.next())["result"]["sessionId"]
            own = await _open(alice, session, "alice-token")
            mallory = {**bearer("mallory-token"), **alice.ids(session)}
            async with httpx.AsyncClient(timeout=10) as http:
                injected = await http.post(
                    alice.url,
                    content=json.dumps(prompt(2, session, "rm -rf /")).encode(),
                    headers={"content-type": "application/json", **mallory},
                )
                assert injected.status_code == 404
                taken = await http.get(
                    alice.url, headers={"accept": "text/event-stream", **mallory}
                )
                assert taken.status_code == 404
                deleted = await http.delete(alice.url, headers=mallory)
                assert deleted.status_code == 404
            assert (await alice.post(prompt(3, session, "mine"), session)).status_code == 202
            assert chunk_text(await own.next()) == "mine"
            assert (await own.next())["id"] == 3
        finally:
            await alice.aclose()


async def _open(client: Any, session: str | None, token: str) -> Any:
    from .helpers import Stream

    http = httpx.AsyncClient(http2=True, http1=False, timeout=httpx.Timeout(10, read=None))
    http.headers.update(bearer(token))
    client.clients.append(http)
    stream = Stream(http, client.url, client.ids(session))
    client.streams.append(stream)
    assert await stream.status == 200
    return stream


async def test_the_echo_agent_with_a_token_takes_only_clients_that_send_it() -> None:
    async with echo_agent("--token", "s3cret") as (url, _):
        assert (await post(url, INIT)).status_code == 401
        assert (await post(url, INIT, **bearer("guess"))).status_code == 401
        refused = await RawSocket.open(port_of(url))
        assert refused.status == 401
        refused.close()
        for target in (url, ws(url)):
            async with connect_agent(target, None, headers=bearer("s3cret")) as conn:
                answer = await conn.request("initialize", INIT["params"])
                assert answer.protocol_version == 1


async def test_connections_over_the_cap_get_503_and_the_rest_are_served() -> None:
    async with served(history_app(max_connections=2)) as base:
        url = base + "/acp"
        first = await post(url, INIT)
        assert (await post(url, INIT)).status_code == 200
        over = await post(url, INIT)
        assert over.status_code == 503
        assert over.json()["error"]["data"] == {"limit": 2}
        sock = await RawSocket.open(port_of(base))
        assert sock.status == 503
        sock.close()
        ids = {"acp-connection-id": first.headers["acp-connection-id"]}
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.delete(url, headers=ids)).status_code == 202
        assert (await post(url, INIT)).status_code == 200  # a place came free


async def test_unread_output_is_capped_for_the_whole_server() -> None:
    from .helpers import prompt, request

    cap = 3 << 20
    app = history_app(max_total_buffered_bytes=cap)
    async with served(app) as base, httpx.AsyncClient(http2=True, http1=False, timeout=30) as http:
        url = base + "/acp"
        statuses = []
        for _ in range(6):  # each would leave ~1 MiB of echo unread (no stream is opened)
            cid = (await post(url, INIT)).headers["acp-connection-id"]
            ids = {"content-type": "application/json", "acp-connection-id": cid}
            new = request(1, "session/new", {"cwd": "/tmp", "mcpServers": []})
            await http.post(url, content=json.dumps(new).encode(), headers=ids)
            box = app.connections[cid].connection_stream.items
            for _ in range(100):  # until the agent has answered (no stream reads it)
                if box and b'"result"' in box[-1]:
                    break
                await asyncio.sleep(0.05)
            result = json.loads(box[-1])["result"]
            session = result["sessionId"]
            body = json.dumps(prompt(2, session, "x" * (1 << 20))).encode()
            sent = await http.post(url, content=body, headers={**ids, "acp-session-id": session})
            statuses.append(sent.status_code)
            if sent.status_code == 503:
                assert sent.json()["error"]["data"] == {"limit": cap}
            await asyncio.sleep(0.3)  # the echo lands in the mailboxes
            assert app.buffered <= cap, app.buffered
        assert 503 in statuses, statuses  # bodies that would pass the cap are refused
        # output that passes it closes the connections holding the most unread bytes
        holders = sorted(app.connections.values(), key=lambda c: -c.buffered)
        biggest = holders[0].id
        size = cap - app.buffered + 200  # just over the cap, less than the biggest holds
        assert holders[-1].buffered + size + 100 < holders[0].buffered
        line = json.dumps({"jsonrpc": "2.0", "method": "x", "params": "y" * size}).encode()
        holders[-1].route(line)
        assert app.buffered <= cap
        for _ in range(100):
            if biggest not in app.connections:
                break
            await asyncio.sleep(0.05)
        assert biggest not in app.connections
        assert holders[-1].id in app.connections
        assert (await post(url, INIT)).status_code == 200  # the server serves the rest


async def test_concurrent_big_bodies_are_refused_as_they_arrive() -> None:
    async with echo_agent() as (url, pid):
        memory = peak_rss_mib(pid)
        body = (
            b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": "'
            + b"x" * (64 << 20)
            + b'"}'
        )
        async with httpx.AsyncClient(timeout=60) as http:
            answers = await asyncio.gather(
                *(
                    http.post(url, content=body, headers={"content-type": "application/json"})
                    for _ in range(4)
                )
            )
        growth = peak_rss_mib(pid) - memory
    print(f"4 concurrent 64 MiB bodies: peak RSS +{growth:.0f} MiB")
    assert [a.status_code for a in answers] == [413] * 4
    assert answers[0].json()["error"]["data"] == {"limit": 4 << 20}
    assert growth < 64, f"the server grew {growth:.0f} MiB"


@pytest.mark.parametrize(
    "request_id", [b"null", b"true", b"1.5", b"{}", b"[]", b"1e999"], ids=lambda i: i.decode()
)
async def test_initialize_with_an_id_that_is_no_integer_or_string_is_answered_at_once(
    request_id: bytes,
) -> None:
    async with served(history_app()) as base:
        body = b'{"jsonrpc": "2.0", "id": ' + request_id + b', "method": "initialize", '
        body += b'"params": {"protocolVersion": 1, "clientCapabilities": {}}}'
        answer = await post(base + "/acp", body)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == -32600
        assert "Acp-Connection-Id" not in answer.text


async def test_initialize_with_invalid_utf8_is_answered_at_once() -> None:
    app = history_app()
    async with served(app) as base:
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", '
        body += b'"params": {"protocolVersion": 1, "clientInfo": {"name": "\xff", "version": "1"}}}'
        answer = await post(base + "/acp", body)  # within its 10 s timeout
        assert answer.json()["error"]["code"] == -32700, answer.text
        assert "acp-connection-id" not in answer.headers  # none is kept open for nobody
        assert not app.connections


DEEP = (
    b'{"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": '
    + b"[" * 100_000
    + b"]" * 100_000
    + b"}"
)


async def test_deep_nesting_is_answered_on_http_and_websocket() -> None:
    async with served(history_app()) as base:
        url = base + "/acp"
        answer = await post(url, DEEP)
        assert answer.status_code == 400
        assert answer.json()["id"] == 7 and answer.json()["error"]["code"] == -32600
        late = b'{"params": ' + b"[" * 100_000 + b"]" * 100_000 + b', "id": 9, "method": "x"}'
        assert (await post(url, late)).json()["error"]["code"] == -32700
        sock = await RawSocket.open(port_of(base))
        sock.send(json.dumps(INIT).encode())
        assert (await sock.message())["id"] == 0
        sock.send(DEEP)
        error = await sock.message()
        assert error["id"] == 7 and error["error"]["code"] == -32600
        sock.send(json.dumps({**INIT, "id": 8, "method": "_ping"}).encode())
        assert (await sock.message())["id"] == 8  # the socket lives on
        sock.close()


async def test_a_slow_body_is_timed_out_408() -> None:
    async with served(history_app(body_timeout=1.0)) as base:
        reader, writer = await asyncio.open_connection("127.0.0.1", port_of(base))
        head = (
            f"POST /acp HTTP/1.1\r\nHost: 127.0.0.1:{port_of(base)}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        writer.write(head.encode() + b"{")
        started = time.perf_counter()

        async def trickle() -> None:
            with contextlib.suppress(ConnectionError):
                for _ in range(100):
                    await asyncio.sleep(0.2)
                    writer.write(b" ")

        dripping = asyncio.ensure_future(trickle())
        status = await asyncio.wait_for(reader.readline(), 10)
        waited = time.perf_counter() - started
        dripping.cancel()
        writer.close()
        assert status.split()[1] == b"408", status
        assert waited < 5
        assert (await post(base + "/acp", INIT)).status_code == 200


async def test_a_silent_websocket_idles_out_and_the_server_pings() -> None:
    app = history_app(idle_timeout=1.0, websocket_ping_interval=0.3)
    async with served(app) as base:
        sock = await RawSocket.open(port_of(base))
        assert sock.status == 101
        opcodes = []
        started = time.perf_counter()
        while (opcode := (await sock.frame(10))[0]) not in (-1, 8):
            opcodes.append(opcode)
        assert 9 in opcodes  # pinged
        assert time.perf_counter() - started < 5
        assert not app.connections
        sock.close()


async def test_an_authenticate_hook_that_raises_lets_no_one_in() -> None:
    def broken(request: RequestInfo) -> str:
        raise RuntimeError("the token store is down")

    async with served(history_app(authenticate=broken)) as base:
        refused = await post(base + "/acp", INIT)
        assert refused.status_code == 500 and "acp-connection-id" not in refused.headers
        assert "token store" not in refused.text


class Refusing(HistoryAgent):
    def __init__(self, conn: Any) -> None:
        super().__init__(conn, Store())

    async def initialize(self, params: Any) -> Any:
        import acp_schema as acp

        raise acp.AuthenticationRequiredError("Authentication required")


async def test_a_failed_initialize_keeps_no_connection_and_the_client_sees_why() -> None:
    import acp_schema as acp

    app = AcpApp(Refusing)
    async with served(app) as base:
        answer = await post(base + "/acp", INIT)
        assert answer.status_code == 200 and "acp-connection-id" not in answer.headers
        assert answer.json()["error"]["code"] == -32000
        assert not app.connections  # nothing left for anyone to pick up
        async with connect_agent(base + "/acp", None) as conn:
            with pytest.raises(acp.RpcError) as refused:
                await conn.request("initialize", INIT["params"])
            assert refused.value.code == -32000
