"""Lists a boolean config option in session/new's answer, although the checker's initialize
does not advertise boolean config options."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def answer(self, rid: Any, result: Any) -> None:
        if isinstance(result, dict) and "configOptions" in result:
            brave = {"type": "boolean", "id": "brave", "name": "Brave", "currentValue": False}
            result = {**result, "configOptions": [*result["configOptions"], brave]}
        super().answer(rid, result)


main(Agent)
