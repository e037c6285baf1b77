"""Lists two modes, then refuses to switch to the one it is not in."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def on_session_set_mode(self, rid: Any, params: Any) -> None:
        if params.get("modeId") != "ask":
            self.fail(rid, -32603, "Internal error: mode switching is not implemented")
        else:
            super().on_session_set_mode(rid, params)


main(Agent)
