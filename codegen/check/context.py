"""What every agent scenario shares: the run's context for one protocol version (connecting,
recording a check's result, the initialize and session/new params), and small readers of what the
agent sent."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .. import __version__
from .catalogue import CHECKS
from .client import AgentPeer, Reply
from .link import Link
from .model import Result, outcome_of
from .offering import OfferingPeer
from .schemas import auth_call, default_package
from .wire import Wire, remote_link

AFTER_ANSWER = 0.2  # how long the checker listens for stray updates after a turn ends
PROMPT_TEXT = "Hello from acpgen check. Please answer briefly."
AUTH_REQUIRED = -32000  # the predefined code: authentication required
# session/update kinds that carry session state, not a turn's content: the protocol lets them
# come at any time (slash-commands.mdx L73, session-list.mdx L179, session-modes.mdx), so only
# the other kinds, content and tool calls, are bound to the turn (prompt-turn.mdx L343)
STATE_UPDATES = frozenset(
    {
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
        "state_update",
    }
)


@dataclass
class Context:
    argv: list[str]
    package: ModuleType
    version: int
    timeout: float
    selected: Callable[[str, str], bool]
    progress: Callable[[str], None]
    results: list[Result] = field(default_factory=list)
    peers: list[AgentPeer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    accepted: set[int] = field(default_factory=set)  # versions the agent answered as asked
    url: str | None = None  # --url: a remote agent (Streamable HTTP, WebSocket)
    headers: dict[str, str] = field(default_factory=dict)  # --header, --token (with --url)
    cwd: str = field(default_factory=os.getcwd)
    auth_method: str | None = None  # --auth-method: run the auth flow with it after initialize
    auth_methods: list[str] = field(default_factory=list)  # the ids the agent advertises
    auth_refusals: list[str] = field(default_factory=list)  # requests answered -32000
    blocked: str | None = None  # why the agent is blocked by authentication
    gate: str | None = None  # why the checks not reached did not run (session/new failed, ...)
    turn_failed: str | None = None  # why the checks needing a finished turn cannot run
    booleans: list[str] = field(default_factory=list)  # boolean config options seen, and where

    def wants(self, *names: str) -> bool:
        return any(
            self._cited(n) is not None and self.selected(n, self._cited(n) or "") for n in names
        )

    def _cited(self, name: str) -> str | None:
        return CHECKS[name].cites(self.version)

    def record(
        self,
        name: str,
        passed: bool | None,
        detail: str,
        evidence: list[str] | None = None,
        rid: str | None = None,
    ) -> None:
        cited = rid or self._cited(name)
        if cited is None or not self.selected(name, cited):
            return
        result = Result(name, self.version, cited, outcome_of(cited, passed), detail)
        if passed is not True:
            result.evidence = evidence or []
        self.results.append(result)
        self.progress(f"v{self.version} {name} [{cited}]: {result.outcome}")

    def skip(self, reason: str, *names: str) -> None:
        """Each check named: not exercised, for `reason`."""
        for name in names:
            self.record(name, None, reason)

    def refused_for_auth(self, method: str, reply: Reply) -> str | None:
        """Why `reply` shows the agent blocked by authentication (None: it does not); an
        auth_required answer is remembered for auth.required-advertised."""
        if reply.error_code != AUTH_REQUIRED:
            return None
        if method not in self.auth_refusals:
            self.auth_refusals.append(method)
        why = f"{method} answered -32000 (authentication required)"
        if not self.auth_methods:
            return f"{why} although initialize advertised no auth method"
        self.blocked = self.blocked or (
            f"blocked by authentication: {why}; advertised auth methods:"
            f" {', '.join(self.auth_methods)}"
            + ("" if self.auth_method is None else f" (after {self.auth_flow()})")
        )
        return self.blocked

    async def ready(self, peer: AgentPeer, params: dict[str, Any] | None = None) -> Reply:
        """initialize (in the checked version's shape unless `params`), then, with
        --auth-method, authenticate: the connection is ready for sessions when the answer is ok."""
        init = await peer.request("initialize", params or self.initialize_params(self.version))
        if init.ok and self.auth_method is not None:
            auth = await self.authenticate(peer.request)
            if auth is not None and not auth.ok:
                return auth
        return init

    def auth_flow(self) -> str:
        """The auth request --auth-method sends, as the schema names it, with its method id."""
        return f"{auth_call(self.package) or 'no auth request'} {self.auth_method}"

    async def authenticate(self, call: Call) -> Reply | None:
        """--auth-method: the agent's auth flow, the request of the checked package whose params
        carry `methodId` (v1 `authenticate`, v2 `auth/login`), sent with the method id; None
        when the schema has no such request."""
        method = auth_call(self.package)
        return None if method is None else await call(method, {"methodId": self.auth_method})

    async def connect(self, what: str, offering: bool = False) -> AgentPeer:
        """A new connection to the agent; `offering`: the checker answers fs/* and terminal/*
        (offering.py) instead of refusing them."""
        if self.url is not None:
            self.progress(f"v{self.version} connecting ({what}): {self.url}")
            link: Link = await remote_link(self.url, self.timeout, self.headers)
        else:
            self.progress(f"v{self.version} starting the agent ({what}): {' '.join(self.argv)}")
            link = await Wire.spawn(self.argv)
        others = {v: default_package(v) for v in (1, 2) if v != self.version}
        peer = (OfferingPeer if offering else AgentPeer)(
            link, self.package, self.timeout, version=self.version, others=others
        )
        self.peers.append(peer)
        return peer

    def initialize_params(self, version: int) -> dict[str, Any]:
        """initialize in the checked version's shape; for a version no schema defines (the
        probes), in the shape of both v1 and v2 (each ignores the other's members), so an agent
        that decodes an unknown version's request with either schema can read it."""
        info = {"name": "acpgen-check", "version": __version__}
        if version not in (1, 2):
            v1 = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
            return {
                "protocolVersion": version,
                "clientCapabilities": v1,
                "clientInfo": info,
                "info": info,
                "capabilities": {},
            }
        if self.version == 1:
            capabilities = {
                "fs": {"readTextFile": False, "writeTextFile": False},
                "terminal": False,
            }
            return {
                "protocolVersion": version,
                "clientCapabilities": capabilities,
                "clientInfo": info,
            }
        return {"protocolVersion": version, "info": info, "capabilities": {}}

    def new_session_params(self) -> dict[str, Any]:
        return {"cwd": self.cwd, "mcpServers": []}


def judged(reply: Reply, good: bool) -> bool | None:
    """`good`, unless the agent is gone: a check it did not live to answer is not exercised
    (the check that made it exit, or none, reports that)."""
    return None if reply.closed else good


def unless_flooded(reply: Reply, good: bool) -> bool | None:
    """`good`, unless the checker stopped reading the connection: transport.bounded says so."""
    return None if reply.flooded else good


def prompt(session_id: Any, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def content_updates(updates: list[Any]) -> list[Any]:
    """The updates that are a turn's content or tool calls (not STATE_UPDATES)."""
    return [u for u in updates if update_kind(u) not in STATE_UPDATES]


def update_kind(received: Any) -> str:
    update = received.message["params"].get("update")
    return str(update.get("sessionUpdate")) if isinstance(update, dict) else ""


def state(received: Any) -> tuple[str, Any]:
    update = received.message["params"].get("update") or {}
    return str(update.get("state")), update.get("stopReason")


Call = Callable[[str, Any], Awaitable[Reply]]


def progress_to_stderr(line: str) -> None:
    print(f"acpgen check: {line}", file=sys.stderr, flush=True)
