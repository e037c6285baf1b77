"""Does not advertise session/delete, yet deletes sessions when asked."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def initialize_result(self, asked: Any) -> dict[str, Any]:
        result = super().initialize_result(asked)
        del result["agentCapabilities"]["sessionCapabilities"]["delete"]
        return result


main(Agent)
