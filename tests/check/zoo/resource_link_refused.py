"""Refuses a prompt holding a resource_link block, which every agent must take."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_prompt(self, rid: Any, params: Any) -> None:
        blocks = params.get("prompt") if isinstance(params.get("prompt"), list) else []
        if any(isinstance(b, dict) and b.get("type") == "resource_link" for b in blocks):
            self.fail(rid, -32602, "Invalid params: resource links are not supported")
            return
        super().on_session_prompt(rid, params)


main(Agent)
