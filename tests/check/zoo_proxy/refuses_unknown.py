"""Refuses every request it does not know with -32601 instead of forwarding it, and drops such
notifications (breaks PROXY-FORWARD-UNKNOWN, a SHOULD: a warning)."""

from __future__ import annotations

from typing import Any

from base import Proxy


class RefusesUnknown(Proxy):
    def refuse(self, rid: Any, method: str) -> None:
        self.send({"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})

    def on_unknown(self, rid: Any, method: str, params: Any) -> None:
        if rid is not None:
            self.send(
                {"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}
            )

    def forward(self, rid: Any, method: str, params: Any, wrapped: bool) -> None:
        if wrapped and method.startswith("_"):  # the successor's unknown methods too
            self.send(
                {"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}
            )
            return
        super().forward(rid, method, params, wrapped)


RefusesUnknown().run()
