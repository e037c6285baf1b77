"""The conductor's router: the client's (or parent's) connection and one per component.

Positions: 0 is the client, 1..n the components (n the agent), and, when the conductor is itself
a proxy (it was sent `proxy/initialize`), n + 1 is its own successor, reached on the parent's
connection inside `proxy/successor`; then every component is a proxy.

What component k sends plain goes to position k - 1, and what it wraps in `proxy/successor` to
k + 1. A component is sent plain what comes from its predecessor and, wrapped, what comes from
its successor. `initialize` becomes `proxy/initialize` when it goes to a proxy.

Every request is re-sent under a fresh id of the connection it goes out on, and its answer is sent
back under the id it came with, its `result` or `error` the same bytes. A `$/cancel_request` is
answered on its own hop: the conductor cancels its own request on the next one. Only the envelope
is decoded (`envelope.py`): params and results pass as raw bytes.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from ..jsonrpc import (
    CANCEL_REQUEST,
    CANCEL_REQUEST_ID,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
)
from .envelope import (
    INITIALIZE_PROXY,
    NO_PARAMS,
    SUCCESSOR,
    UNSET,
    answer,
    decode,
    decode_wrapped,
    encode,
    error_answer,
    message,
    wrap,
)
from .trace import Trace

if TYPE_CHECKING:
    from .bridging import ChainMcp


class _Cancel(msgspec.Struct):
    requestId: Any = UNSET  # noqa: N815 - the wire's name


_decode_cancel = msgspec.json.Decoder(_Cancel).decode
STRUCTURED = (b"", b"{", b"[")
"""How wrapped params may start: absent, an object or an array, as JSON-RPC requires (null, the
same as absent, is dropped; a Raw value has no leading whitespace)."""


class Pending(NamedTuple):
    """A request the conductor sent on a link: who sent it first, under which id, and what."""

    origin: Link
    origin_id: Any
    method: str


class Link:
    """One connection of the conductor: how to write to it and its own id space."""

    def __init__(self, hop: str, write: Callable[[bytes], None]) -> None:
        self.hop = hop
        self.write = write
        self.ids = itertools.count(1)
        self.pending: dict[Any, Pending] = {}  # our id on this link -> where its answer goes
        self.forwarded: dict[Any, tuple[Link, Any]] = {}  # its request id -> (link, our id there)


class Conductor:
    """Routes each line a link receives (see the module doc); `notice` reports bad lines."""

    def __init__(
        self,
        links: list[Link],
        initialize: str,
        trace: Trace | None = None,
        notice: Callable[[str], None] | None = None,
        mcp: ChainMcp | None = None,
    ) -> None:
        self.links = links
        self.n = len(links) - 1
        self.initialize = initialize
        self.trace = trace
        self.notice = notice or (lambda text: print(f"conductor: {text}", file=sys.stderr))
        self.as_proxy = False
        self.mcp = mcp  # MCP over ACP for the final agent (bridging.py)

    def send(self, link: Link, data: bytes) -> None:
        if self.trace is not None:
            self.trace.write(link.hop, "out", data)
        link.write(data + b"\n")

    def receive(self, index: int, line: bytes) -> None:
        link = self.links[index]
        try:
            env = decode(line)
        except msgspec.DecodeError as exc:
            if self.trace is not None:
                self.trace.write(link.hop, "in", line, is_json=False)
            self._bad(link, UNSET, PARSE_ERROR, f"Parse error: not a JSON-RPC message ({exc})")
            return
        if self.trace is not None:
            self.trace.write(link.hop, "in", line)
        if env.method is UNSET:
            self._answered(link, env.id, env.result, env.error)
        elif not isinstance(env.method, str):
            self._bad(link, env.id, INVALID_REQUEST, "Invalid request: method is not a string")
        elif env.method == CANCEL_REQUEST:
            self._cancel(link, env.params)
        elif env.method == SUCCESSOR:
            try:
                inner = decode_wrapped(env.params or b"null")
            except msgspec.DecodeError as exc:
                self._bad(link, env.id, INVALID_REQUEST, f"Invalid {SUCCESSOR} params: {exc}")
                return
            head = bytes(memoryview(inner.params)[:1])
            if head == b"n":  # null: the same as no params
                inner.params = NO_PARAMS
            elif head not in STRUCTURED:
                text = f"Invalid {SUCCESSOR} params: the wrapped params must be an object or array"
                self._bad(link, env.id, INVALID_PARAMS, text)
                return
            if index == 0:  # from the parent: what our successor sends, for the last component
                self.deliver(self.n, True, link, env.id, inner.method, inner.params)
            elif index == self.n and not self.as_proxy:
                text = f"the {link.hop} is the agent, which has no successor: {SUCCESSOR} refused"
                self._bad(link, env.id, INVALID_REQUEST, text)
            else:
                self.deliver(index + 1, False, link, env.id, inner.method, inner.params)
        elif index == 0:
            if env.method == INITIALIZE_PROXY:
                self.as_proxy = True
            self.deliver(1, False, link, env.id, env.method, env.params)
        else:
            self.deliver(index - 1, True, link, env.id, env.method, env.params)

    def deliver(
        self,
        target: int,
        from_successor: bool,
        source: Link,
        request_id: Any,
        method: str,
        params: msgspec.Raw,
    ) -> None:
        if method in (self.initialize, INITIALIZE_PROXY) and not from_successor:
            to_proxy = target < self.n or (target == self.n and self.as_proxy)
            method = INITIALIZE_PROXY if to_proxy else self.initialize
        if self.mcp is not None and target == self.n and not from_successor and not self.as_proxy:
            bridged = self.mcp.to_agent(method, request_id, params)
            if bridged is None:
                return
            params = bridged
        link = self.links[target if target <= self.n else 0]
        out_id: Any = UNSET
        if request_id is not UNSET:
            out_id = next(link.ids)
            link.pending[out_id] = Pending(source, request_id, method)
            source.forwarded[request_id] = (link, out_id)
        if target > self.n or (target > 0 and from_successor):
            self.send(link, encode(message(out_id, SUCCESSOR, wrap(method, params))))
        else:
            self.send(link, encode(message(out_id, method, params)))

    def _answered(
        self, link: Link, request_id: Any, result: msgspec.Raw, error: msgspec.Raw
    ) -> None:
        pending = link.pending.pop(request_id, None)
        if pending is None:
            self.notice(f"the {link.hop} answered id {request_id!r}, which no request has")
            return
        pending.origin.forwarded.pop(pending.origin_id, None)
        if link is self.links[self.n] and pending.method == self.initialize and not error:
            result = self._agent_initialized(result)
        self.send(pending.origin, answer(pending.origin_id, result, error))

    def _agent_initialized(self, result: msgspec.Raw) -> msgspec.Raw:
        """The final agent's initialize answer, with the acp MCP transport advertised; the
        bridge opened when the agent needs it (bridging.py)."""
        mcp = self.mcp
        if mcp is None or self.as_proxy:
            return result
        result = mcp.agent_initialized(result)
        if mcp.bridging and mcp.agent_http and mcp.bridge is None:
            try:
                mcp.open(self.deliver, self.n, lambda write: Link("mcp bridge", write))
            except (ImportError, OSError) as exc:
                self.notice(f"cannot open the MCP bridge for the agent: {exc}")
        return result

    def _cancel(self, link: Link, params: msgspec.Raw) -> None:
        try:
            request_id = _decode_cancel(params or b"{}").requestId
        except msgspec.DecodeError as exc:
            self.notice(f"the {link.hop} sent {CANCEL_REQUEST} with bad params: {exc}")
            return
        target = link.forwarded.get(request_id)
        if target is not None:  # answered already: nothing to cancel
            out = msgspec.Raw(encode({CANCEL_REQUEST_ID: target[1]}))
            self.send(target[0], encode(message(UNSET, CANCEL_REQUEST, out)))

    def _bad(self, link: Link, request_id: Any, code: int, text: str) -> None:
        """A line the conductor cannot route: answered with an error when it has an id (or when
        no id could be read from the client), else reported."""
        if request_id is not UNSET:
            self.send(link, error_answer(request_id, code, text))
        elif link is self.links[0]:
            self.send(link, error_answer(None, code, text))
        else:
            self.notice(f"the {link.hop} sent a message the conductor cannot route: {text}")

    def fail_pending(self, reason: str) -> int:
        """Answer each request of the client (position 0) still in the chain with an error
        naming `reason` (which component ended); returns how many."""
        client = self.links[0]
        failed = 0
        for link in self.links:
            for pending in link.pending.values():
                if pending.origin is client:
                    text = f"proxy chain ended: {reason}; {pending.method} got no answer"
                    self.send(client, error_answer(pending.origin_id, INTERNAL_ERROR, text))
                    failed += 1
            link.pending.clear()
        return failed
