"""Answers session/new with wrong parameter types with -32603 instead of -32602."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def fail(self, rid: Any, code: int, message: str) -> None:
        super().fail(rid, -32603 if code == -32602 else code, message)


main(Agent)
