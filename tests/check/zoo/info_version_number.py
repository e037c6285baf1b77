"""Sends agentInfo.version as a number: the schema says string. agentInfo is marked
default-on-error, so a receiver's decoder forgives it; only the strict decode catches it."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def initialize_result(self, asked: Any) -> dict[str, Any]:
        result = super().initialize_result(asked)
        result["agentInfo"] = {"name": "zoo-agent", "version": 1}
        return result


main(Agent)
