"""Files every finished turn under the id of the newest session/new, whatever session it ran in,
and replays that history on session/resume before answering, as fast-agent-acp 0.10.48 does: a
session that is not the newest cannot be loaded or resumed (-32002, "Session not found"), and a
resume of the newest replays its turn."""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))

from base import Base, Session, main  # noqa: E402  (the v1 zoo agent, found through sys.path)


class Agent(Base):
    def __init__(self) -> None:
        super().__init__()
        self.newest = ""
        self.saved: dict[str, list[dict[str, Any]]] = {}

    def new_session_id(self) -> str:
        self.newest = super().new_session_id()
        return self.newest

    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        self.saved[self.newest] = list(session.history)
        super().end_turn(rid, sid, session)

    def saved_history(self, rid: Any, params: Any) -> list[dict[str, Any]] | None:
        history = self.saved.get(params.get("sessionId"))
        if history is None:
            self.fail(rid, -32002, f"Session not found: {params.get('sessionId')}")
        return history

    def on_session_load(self, rid: Any, params: Any) -> None:
        history = self.saved_history(rid, params)
        for entry in history if history is not None else []:
            self.update(params["sessionId"], entry)
        if history is not None:
            self.answer(rid, {})

    def on_session_resume(self, rid: Any, params: Any) -> None:
        self.on_session_load(rid, params)


main(Agent)
