"""Gives every session the same id."""

from __future__ import annotations

from base import Base, main


class Agent(Base):
    def new_session_id(self) -> str:
        return "zoo-session"


main(Agent)
