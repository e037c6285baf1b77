"""Answers session/set_config_option with no options instead of all of them."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    def config_answer(self, session: Session) -> list[dict[str, Any]]:
        return []


main(Agent)
