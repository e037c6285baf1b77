"""Echoes the protocol version it is asked for, even one it does not support."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def chosen_version(self, asked: Any) -> int:
        return asked if isinstance(asked, int) else 1


main(Agent)
