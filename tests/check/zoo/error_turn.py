"""Ends a turn that was not cancelled with an error instead of a stop reason."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        if session.cancelled.is_set():
            super().end_turn(rid, sid, session)
        else:
            self.fail(rid, -32603, "Internal error: the turn broke")


main(Agent)
