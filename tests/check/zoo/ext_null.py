"""Answers unknown `_` extension requests with result null instead of -32601."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def unknown(self, rid: Any, method: str, params: Any) -> None:
        if method.startswith("_"):
            self.answer(rid, None)
        else:
            super().unknown(rid, method, params)


main(Agent)
