"""Never reports idle after a turn that was not cancelled."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def idle(self, rid: Any, sid: str, stop: str) -> None:
        if stop == "cancelled":
            super().idle(rid, sid, stop)


main(Agent)
