"""Loads a session without replaying its conversation."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_load(self, rid: Any, params: Any) -> None:
        if self.session_of(rid, params) is not None:
            self.answer(rid, {})


main(Agent)
