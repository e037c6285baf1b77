"""Not a break: runs each turn on the thread that reads its input, as a single-threaded agent
does, so a cancel sent during a turn is read only once the turn has ended (`end_turn`). The cancel
raced the end of the turn and lost, deterministically: no finding."""

from __future__ import annotations

from typing import Any, Callable

from base import Base, main


class Agent(Base):
    def run_turn(self, turn: Callable[..., None], *args: Any) -> None:
        turn(*args)


main(Agent)
