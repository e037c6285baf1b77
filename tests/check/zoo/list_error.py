"""Advertises session/list, then fails it."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_list(self, rid: Any, params: Any) -> None:
        self.fail(rid, -32603, "Internal error: no session store")


main(Agent)
