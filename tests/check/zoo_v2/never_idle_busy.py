"""never_idle.py (no idle after a turn that was not cancelled) whose turns run on the thread that
reads its input (busy_turn.py): a cancel is read only once the turn has ended, without an idle.
The race the checker once lost under load, made certain: the missing idle is the turn's
(prompt.stop-reason), not the cancel's."""

from __future__ import annotations

from typing import Any, Callable

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def run_turn(self, turn: Callable[..., None], *args: Any) -> None:
        turn(*args)

    def idle(self, rid: Any, sid: str, stop: str) -> None:
        if stop == "cancelled":
            super().idle(rid, sid, stop)


main(Agent)
