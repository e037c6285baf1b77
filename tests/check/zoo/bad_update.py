"""Announces its tool call without the required title: a session/update off the schema."""

from __future__ import annotations

from base import Base, main


class Agent(Base):
    def tool_calls(self, sid: str) -> None:
        self.update(sid, {"sessionUpdate": "tool_call", "toolCallId": "call-1"})
        self.update(
            sid,
            {"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed"},
        )


main(Agent)
