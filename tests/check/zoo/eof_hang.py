"""Keeps running when stdin closes in the middle of a turn (it waits for the turn)."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    running = 0

    def turn(self, rid: Any, params: Any, session: Session) -> None:
        self.running += 1
        super().turn(rid, params, session)
        self.running -= 1

    def at_eof(self) -> None:
        if self.running:
            import threading

            threading.Event().wait()  # the turn ends, and nothing ever wakes this
        super().at_eof()


main(Agent)
