"""Never reports state_update running."""

from __future__ import annotations

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def running(self, sid: str) -> None:
        pass


main(Agent)
