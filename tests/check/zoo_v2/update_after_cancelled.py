"""Sends one more message chunk after going idle cancelled."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def idle(self, rid: Any, sid: str, stop: str) -> None:
        super().idle(rid, sid, stop)
        if stop == "cancelled":
            chunk = {"type": "text", "text": "."}
            self.update(
                sid, {"sessionUpdate": "agent_message_chunk", "messageId": "late", "content": chunk}
            )


main(Agent)
