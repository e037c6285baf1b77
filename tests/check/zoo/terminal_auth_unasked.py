"""Advertises a terminal authentication method to a client that did not enable it."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def initialize_result(self, asked: Any) -> dict[str, Any]:
        result = super().initialize_result(asked)
        terminal = {"id": "zoo-terminal-login", "name": "Log in", "type": "terminal"}
        result["authMethods"] = [*result["authMethods"], terminal]
        return result


main(Agent)
