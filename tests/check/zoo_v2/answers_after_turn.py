"""Answers session/prompt only when the turn is over, not once it is accepted."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    pending: dict[Any, str] = {}

    def accepted(self, rid: Any, message_id: str) -> None:
        self.pending[rid] = message_id

    def idle(self, rid: Any, sid: str, stop: str) -> None:
        super().idle(rid, sid, stop)
        super().accepted(rid, self.pending.pop(rid))


main(Agent)
