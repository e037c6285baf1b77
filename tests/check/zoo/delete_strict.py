"""Refuses to delete a session it does not have (already deleted, or never created)."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_delete(self, rid: Any, params: Any) -> None:
        if self.session_of(rid, params) is not None:
            super().on_session_delete(rid, params)


main(Agent)
