"""Advertises the `session` method surface but does not serve session/list."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def on_session_list(self, rid: Any, params: Any) -> None:
        self.fail(rid, -32601, "Method not found: session/list")


main(Agent)
