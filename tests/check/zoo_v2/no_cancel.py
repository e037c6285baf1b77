"""Ignores session/cancel: a cancelled turn runs to its end and goes idle end_turn."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def cancel(self, session: Any) -> None:
        pass


main(Agent)
