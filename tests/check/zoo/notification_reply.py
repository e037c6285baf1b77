"""Answers notifications it does not know with a -32601 error (id null)."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def notification(self, method: Any, params: Any) -> None:
        if method == "session/cancel":
            super().notification(method, params)
        else:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "?"}})


main(Agent)
