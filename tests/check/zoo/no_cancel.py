"""Ignores session/cancel: a cancelled turn runs to its end and ends end_turn."""

from __future__ import annotations

from base import Base, Session, main


class Agent(Base):
    def cancel(self, session: Session) -> None:
        pass


main(Agent)
