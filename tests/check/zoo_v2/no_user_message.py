"""Never reports where the user message went in the history."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def user_message(self, sid: str, message_id: str, prompt: Any) -> None:
        pass


main(Agent)
