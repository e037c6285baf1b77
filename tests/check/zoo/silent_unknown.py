"""Never answers requests for methods it does not know (extensions it refuses)."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def unknown(self, rid: Any, method: str, params: Any) -> None:
        if method.startswith("_"):
            super().unknown(rid, method, params)


main(Agent)
