"""Ends the first turn of each session with an error (its start-up fails) instead of a stop
reason; a cancelled turn still ends `cancelled`, later turns end normally."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    started: set[str] = set()

    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        if session.cancelled.is_set() or sid in self.started:
            super().end_turn(rid, sid, session)
        else:
            self.started.add(sid)
            self.fail(rid, -32603, "Internal error: the turn broke")


main(Agent)
