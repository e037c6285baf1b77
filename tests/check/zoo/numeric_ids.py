"""Turns numeric-looking string ids into numbers in its answers."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def dispatch(self, message: dict[str, Any]) -> None:
        rid = message.get("id")
        if isinstance(rid, str) and rid.isdigit():
            message = {**message, "id": int(rid)}
        super().dispatch(message)


main(Agent)
