"""Answers session/resume first, then replays the session's history as updates, as
fast-agent-acp does: nothing comes before the answer, but the history comes all the same."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_resume(self, rid: Any, params: Any) -> None:
        super().on_session_resume(rid, params)
        session = self.sessions.get(params.get("sessionId"))
        for entry in session.history if session is not None else []:
            self.update(params["sessionId"], entry)


main(Agent)
