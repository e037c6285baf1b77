"""Observability on every connection: a message observer (raw bytes and decoded, both ways) and W3C
trace context in `_meta` when the application gives a tracer (no tracing library needed)."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import subprocess
import sys
from typing import Any, Iterator, Mapping

import acp_schema as acp
from acp_runtime.http import AcpApp, connect_agent

from .agents import HistoryAgent, Store
from .helpers import served
from .test_connect_agent import INIT, NEW, Handler, prompt

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
current_trace: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "current_trace", default=None
)


class Tracer:
    """A tracer as `acp_runtime.jsonrpc.tracing` wants one, over a context variable."""

    def inject(self) -> Mapping[str, str]:
        trace = current_trace.get()
        return {"traceparent": trace} if trace else {}

    @contextlib.contextmanager
    def extract(self, carrier: Mapping[str, Any]) -> Iterator[None]:
        token = current_trace.set(carrier.get("traceparent"))
        try:
            yield
        finally:
            current_trace.reset(token)


class TracedAgent(HistoryAgent):
    seen: list[str | None] = []

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        TracedAgent.seen.append(current_trace.get())
        return await super().session_prompt(params)


async def test_the_observer_sees_every_message_raw_and_decoded_both_ways() -> None:
    agent_saw: list[tuple[str, bytes, Any]] = []
    client_saw: list[tuple[str, bytes, Any]] = []
    app = AcpApp(
        functools.partial(HistoryAgent, store=Store()),
        observer=lambda *seen: agent_saw.append(seen),
    )
    async with served(app) as base:
        async with connect_agent(
            base + "/acp", Handler(), observer=lambda *seen: client_saw.append(seen)
        ) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            await conn.agent.session_prompt(prompt(session, "hi"))
    methods = [(d, m.method) for d, _, m in client_saw if hasattr(m, "method")]
    assert methods == [
        ("out", "initialize"),
        ("out", "session/new"),
        ("out", "session/prompt"),
        ("in", "session/update"),
    ]
    assert [d for d, _, _ in client_saw] == ["out", "in", "out", "in", "out", "in", "in"]
    assert [(d, raw) for d, raw, _ in agent_saw] == [
        ("in" if d == "out" else "out", raw) for d, raw, _ in client_saw
    ]
    assert all(isinstance(raw, bytes) and message is not None for _, raw, message in client_saw)
    assert (
        isinstance(client_saw[-1][2], acp.Response)
        and b'"stopReason":"end_turn"' in client_saw[-1][1]
    )


async def test_trace_context_travels_in_meta_to_the_agents_handler() -> None:
    TracedAgent.seen = []
    app = AcpApp(functools.partial(TracedAgent, store=Store()), tracer=Tracer())
    sent: list[bytes] = []
    async with served(app) as base:
        async with connect_agent(
            base + "/acp", Handler(), tracer=Tracer(), observer=lambda d, raw, m: sent.append(raw)
        ) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            token = current_trace.set(TRACEPARENT)
            try:
                await conn.agent.session_prompt(
                    acp.PromptRequest(
                        session_id=session, prompt=[acp.TextContent(text="x")], meta={"mine": 1}
                    )
                )
            finally:
                current_trace.reset(token)
            await conn.agent.session_prompt(prompt(session, "untraced"))
    assert TracedAgent.seen == [TRACEPARENT, None]
    traced = [raw for raw in sent if b'"method":"session/prompt"' in raw][0]
    assert f'"_meta":{{"traceparent":"{TRACEPARENT}","mine":1}}'.encode() in traced


def test_importing_acp_runtime_imports_no_http_stack() -> None:
    code = (
        "import sys, acp_runtime; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('httpx', 'hypercorn', 'websockets', 'h2', 'opentelemetry') or m == 'acp_runtime.http'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
