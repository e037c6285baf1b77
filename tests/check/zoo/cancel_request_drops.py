"""Drops a request cancelled with $/cancel_request: it is never answered."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    dropped: set[Any] = set()

    def notification(self, method: Any, params: Any) -> None:
        if method == "$/cancel_request":
            self.dropped.add(params.get("requestId"))
        super().notification(method, params)

    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        if rid not in self.dropped:
            super().end_turn(rid, sid, session)


main(Agent)
