"""Offered terminals, it creates one in each turn and never releases it."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def release_terminal(self, sid: str, terminal_id: Any) -> None:
        pass


main(Agent)
