"""Replays the conversation on session/resume."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_resume(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        for entry in session.history:
            self.update(params["sessionId"], entry)
        self.answer(rid, {})


main(Agent)
