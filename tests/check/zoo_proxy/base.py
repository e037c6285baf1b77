"""The zoo's well-behaved proxy of a proxy chain, as plain JSON lines on stdio (no ACP library):
it forwards everything, the client's messages to its successor inside `proxy/successor` and the
successor's to the client unwrapped, each request under an id of its own, and routes every
answer back unchanged. `proxy/initialize` goes on as `initialize` before it is answered. A
`$/cancel_request` cancels only its own request on this hop. It exits at EOF. Every other file
here is this one with exactly one behaviour broken."""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

SUCCESSOR = "proxy/successor"
CANCEL = "$/cancel_request"


class Proxy:
    def __init__(self) -> None:
        self.ids = itertools.count(1)
        # our request id -> (the id it forwards, True when that came wrapped from the successor)
        self.routes: dict[Any, tuple[Any, bool]] = {}
        self.forwarded: dict[tuple[Any, bool], Any] = {}  # the other way: -> our id

    def send(self, message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        sys.stdout.flush()

    def envelope(self, method: str, params: Any) -> dict[str, Any]:
        wrapped: dict[str, Any] = {"method": method}
        if params is not None:
            wrapped["params"] = params
        return wrapped

    def forward(self, rid: Any, method: str, params: Any, wrapped: bool) -> None:
        """Pass a message on: wrapped toward the successor (`wrapped` False: it came from the
        client), or plain toward the client."""
        out: dict[str, Any] = {}
        if rid is not None:
            ours = next(self.ids)
            self.routes[ours] = (rid, wrapped)
            self.forwarded[(json.dumps(rid), wrapped)] = ours
            out["id"] = ours
        if wrapped:
            out.update(method=method)
            if params is not None:
                out["params"] = params
        else:
            out.update(method=SUCCESSOR, params=self.envelope(method, params))
        self.send(out)

    def on_initialize(self, rid: Any, params: Any) -> None:
        self.forward(rid, "initialize", params, wrapped=False)

    def on_unknown(self, rid: Any, method: str, params: Any) -> None:
        self.forward(rid, method, params, wrapped=False)

    def on_cancel(self, params: Any, wrapped: bool) -> None:
        target = params.get("requestId") if isinstance(params, dict) else None
        ours = self.forwarded.get((json.dumps(target), wrapped))
        if ours is not None:
            self.send({"method": CANCEL, "params": {"requestId": ours}})

    def answer(self, rid: Any, message: dict[str, Any], method: str) -> None:
        """Send an answer back unchanged (`method`: the request it answers, as forwarded)."""
        out: dict[str, Any] = {"id": rid}
        for member in ("result", "error"):
            if member in message:
                out[member] = message[member]
        self.send(out)

    def answered(self, message: dict[str, Any]) -> None:
        route = self.routes.pop(message.get("id"), None)
        if route is not None:
            self.answer(route[0], message, "")

    def dispatch(self, message: dict[str, Any]) -> None:
        method, rid, params = message.get("method"), message.get("id"), message.get("params")
        if method is None:
            self.answered(message)
        elif method == "proxy/initialize":
            self.on_initialize(rid, params)
        elif method == CANCEL:
            self.on_cancel(params, wrapped=False)
        elif method == SUCCESSOR and isinstance(params, dict):
            inner, inner_params = str(params.get("method")), params.get("params")
            if inner == CANCEL:
                self.on_cancel(inner_params, wrapped=True)
            else:  # the envelope's own _meta stays on this hop
                self.forward(rid, inner, inner_params, wrapped=True)
        else:
            self.on_unknown(rid, str(method), params)

    def at_eof(self) -> None:
        pass

    def run(self) -> None:
        for line in sys.stdin:
            if line.strip():
                self.dispatch(json.loads(line))
        self.at_eof()


if __name__ == "__main__":
    Proxy().run()
