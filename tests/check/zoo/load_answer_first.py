"""Answers session/load after the first replayed entry, then replays the rest."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_load(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        first, *rest = session.history
        self.update(params["sessionId"], first)
        self.answer(rid, {})
        for entry in rest:
            self.update(params["sessionId"], entry)


main(Agent)
