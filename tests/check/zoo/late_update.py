"""Sends one more message chunk after answering session/prompt."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        super().end_turn(rid, sid, session)
        self.update(
            sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "."}}
        )


main(Agent)
