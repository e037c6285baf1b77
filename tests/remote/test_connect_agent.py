"""connect_agent: the client side over Streamable HTTP (HTTP/1.1, h2c) and WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from typing import Any

import pytest

import acp_schema as acp
from acp_runtime import ConnectionClosedError
from acp_runtime.http import AcpApp, connect_agent, reattach_session
from tests.interop.runtime_agent import ScenarioAgent
from tests.interop.scenario import expected, run_scenario

from .agents import HistoryAgent, Store
from .helpers import ServerProcess, served, ws

TRANSPORTS = {"http/1.1": ("http", None), "h2c": ("http", True), "websocket": ("ws", None)}


def url_for(base: str, transport: str) -> str:
    return (ws(base) if TRANSPORTS[transport][0] == "ws" else base) + "/acp"


def connect(base: str, transport: str, handler: Any, **options: Any) -> Any:
    return connect_agent(
        url_for(base, transport), handler, http2=TRANSPORTS[transport][1], **options
    )


class Recorder:
    """An ASGI wrapper that records each request's method, headers and body."""

    def __init__(self, app: AcpApp) -> None:
        self.app = app
        self.requests: list[tuple[str, dict[str, str], bytes]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)  # what serve() reads of an AcpApp

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        entry = (scope.get("method", "WEBSOCKET"), headers, b"")
        self.requests.append(entry)
        index = len(self.requests) - 1

        async def recording_receive() -> Any:
            event = await receive()
            if event["type"] == "http.request":
                method, seen, body = self.requests[index]
                self.requests[index] = (method, seen, body + event.get("body", b""))
            return event

        await self.app(scope, recording_receive, send)


class Handler(acp.ClientHandler):
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.arrived = asyncio.Condition()

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(
            update, (acp.SessionUpdateAgentMessageChunk, acp.SessionUpdateUserMessageChunk)
        ):
            async with self.arrived:
                self.chunks.append(update.content.text)
                self.arrived.notify_all()

    async def received(self, *chunks: str) -> None:
        async with self.arrived:
            await self.arrived.wait_for(lambda: self.chunks == list(chunks))

    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        return acp.RequestPermissionResponse(
            outcome=acp.SelectedPermissionOutcome(option_id=params.options[0].option_id)
        )


INIT = acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
NEW = acp.NewSessionRequest(cwd="/tmp", mcp_servers=[])


def prompt(session: str, text: str) -> acp.PromptRequest:
    return acp.PromptRequest(session_id=session, prompt=[acp.TextContent(text=text)])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_interop_scenario_runs_over(transport: str) -> None:
    async with served(AcpApp(ScenarioAgent)) as base:
        report = await run_scenario(
            [], "/tmp/x", connect=lambda client: connect(base, transport, client)
        )
    assert report == expected("acp-runtime-interop-agent", "/tmp/x")


@pytest.mark.parametrize("transport", ["http/1.1", "h2c"])
async def test_every_session_post_carries_acp_session_id_permission_answers_included(
    transport: str,
) -> None:
    recorder = Recorder(AcpApp(functools.partial(HistoryAgent, store=Store())))
    async with served(recorder) as base:  # type: ignore[arg-type]
        async with connect(base, transport, Handler()) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            await conn.agent.session_prompt(prompt(session, "permission"))
            await conn.agent.session_cancel(acp.CancelNotification(session_id=session))
    posts = [
        (headers.get("acp-session-id"), body)
        for method, headers, body in recorder.requests
        if method == "POST"
    ]
    answer = (  # the permission answer names no session: it answers a request that did
        b'"result":{"outcome"'
    )
    kinds = [b'"method":"session/prompt"', answer, b'"method":"session/cancel"']
    about_session = [
        (header, body) for header, body in posts if session.encode() in body or answer in body
    ]
    assert all(any(kind in body for _, body in about_session) for kind in kinds)
    assert all(header == session for header, _ in about_session)
    assert all(header is None for header, body in posts if (header, body) not in about_session)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_cookies_set_by_the_server_are_kept_sent_back_and_returned(transport: str) -> None:
    recorder = Recorder(
        AcpApp(functools.partial(HistoryAgent, store=Store()), affinity_cookie="acp_node=a")
    )
    async with served(recorder) as base:  # type: ignore[arg-type]
        async with connect(base, transport, Handler()) as conn:
            await conn.agent.initialize(INIT)
            await conn.agent.session_new(NEW)
            assert dict(conn.cookies) == {"acp_node": "a"}
        first = len(recorder.requests)
        async with connect(base, transport, Handler(), cookies=conn.cookies) as again:
            await again.agent.initialize(INIT)
    later = recorder.requests[1:first] + recorder.requests[first:]
    assert later and all(headers.get("cookie") == "acp_node=a" for _, headers, _ in later)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("resume", [False, True], ids=["session/load", "session/resume"])
async def test_a_session_is_taken_up_again_on_a_new_connection(
    transport: str, resume: bool
) -> None:
    app = AcpApp(functools.partial(HistoryAgent, store=Store(), resume=resume))
    async with served(app) as base:
        async with connect(base, transport, Handler()) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            await conn.agent.session_prompt(prompt(session, "one"))
        handler = Handler()
        async with connect(base, transport, handler) as conn:
            await conn.agent.initialize(INIT)
            await reattach_session(conn, session, "/tmp")
            await conn.agent.session_prompt(prompt(session, "two"))
    replayed = [] if resume else ["one", "one"]  # session/load replays the history (user, agent)
    assert handler.chunks == [*replayed, "two"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_killed_server_fails_every_pending_call_and_leaks_nothing(transport: str) -> None:
    baseline_tasks = len(asyncio.all_tasks())
    baseline_fds = _open_sockets()
    for _ in range(3):
        server = await ServerProcess("doomed").start()
        try:
            base = server.url[: -len("/acp")]
            handler = Handler()
            async with connect(base, transport, handler) as conn:
                await conn.agent.initialize(INIT)
                session = (await conn.agent.session_new(NEW)).session_id
                other = (await conn.agent.session_new(NEW)).session_id
                first = asyncio.ensure_future(conn.agent.session_prompt(prompt(session, "wait")))
                second = asyncio.ensure_future(conn.agent.session_prompt(prompt(other, "wait")))
                await handler.received("waiting", "waiting")  # both turns are under way
                await server.kill()
                for call in (first, second):
                    with pytest.raises(ConnectionClosedError):
                        await call
                with pytest.raises(ConnectionClosedError):
                    await conn.agent.session_prompt(prompt(session, "after"))
        finally:
            await server.stop()
    assert len(asyncio.all_tasks()) == baseline_tasks
    assert _open_sockets() == baseline_fds


def _open_sockets() -> int:
    return sum(1 for fd in os.listdir("/proc/self/fd") if _is_socket(fd))


def _is_socket(fd: str) -> bool:
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return False


class Refusing:
    """An ASGI wrapper answering a POST whose body holds `_refuse/<status>` with that status."""

    def __init__(self, app: AcpApp) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        events = [await receive()]
        while events[-1].get("more_body"):
            events.append(await receive())
        body = b"".join(event.get("body", b"") for event in events)
        if b'"_refuse/' in body:
            status = int(body.split(b'"_refuse/')[1][:3])
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": b"refused by the test"})
            return
        replay = iter(events)
        await self.app(scope, lambda: _next(replay), send)


async def _next(events: Any) -> Any:
    return next(events)


@pytest.mark.parametrize("transport", ["http/1.1", "h2c"])
async def test_a_refused_post_fails_its_request_with_the_status_and_the_connection_lives_on(
    transport: str,
) -> None:
    async with served(Refusing(AcpApp(functools.partial(HistoryAgent, store=Store())))) as base:  # type: ignore[arg-type]
        async with connect(base, transport, Handler()) as conn:
            await conn.agent.initialize(INIT)
            with pytest.raises(acp.InternalError) as refused:
                await conn.request("_refuse/400", {})
            assert refused.value.data == {"status": 400, "body": "refused by the test"}
            session = (await conn.agent.session_new(NEW)).session_id
            await conn.agent.session_prompt(prompt(session, "still here"))


@pytest.mark.parametrize("transport", ["http/1.1", "h2c"])
async def test_a_post_answered_404_closes_the_connection(transport: str) -> None:
    async with served(Refusing(AcpApp(functools.partial(HistoryAgent, store=Store())))) as base:  # type: ignore[arg-type]
        async with connect(base, transport, Handler()) as conn:
            await conn.agent.initialize(INIT)
            with pytest.raises(acp.InternalError):
                await conn.request("_refuse/404", {})
            await conn.wait_closed()
            with pytest.raises(ConnectionClosedError):
                await conn.agent.session_new(NEW)


def _only_token(request: Any) -> str | None:
    return "user" if request.bearer_token == "right" else None


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_refused_connection_raises_one_exception_with_status_reason_and_transport(
    transport: str,
) -> None:
    """A wrong token: `RefusedConnectionError` over every transport (never an InternalError or a
    websockets exception), carrying the status, what the server said, and the transport; every
    call pending then fails with it, and the connection is closed."""
    from acp_runtime.http import RefusedConnectionError

    app = AcpApp(functools.partial(HistoryAgent, store=Store()), authenticate=_only_token)
    async with served(app) as base:
        wrong = {"authorization": "Bearer wrong"}
        with pytest.raises(RefusedConnectionError) as refused:
            async with connect(base, transport, Handler(), headers=wrong) as conn:
                with pytest.raises(RefusedConnectionError):
                    await asyncio.wait_for(conn.agent.initialize(INIT), 10)
                await conn.wait_closed()
                await conn.agent.initialize(INIT)  # closed by the refusal: raises it again
        error = refused.value
        assert error.status == 401 and error.reason and str(error.status) in str(error)
        assert error.transport == {"http/1.1": "http/1.1", "h2c": "h2c"}.get(transport, transport)
        assert isinstance(error, ConnectionClosedError)
        right = {"authorization": "Bearer right"}
        async with connect(base, transport, Handler(), headers=right) as conn:
            assert (await conn.agent.initialize(INIT)).protocol_version == 1
