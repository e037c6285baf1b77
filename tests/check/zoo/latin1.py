"""Writes its message chunks in Latin-1 instead of UTF-8."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def update(self, session_id: str, update: dict[str, Any]) -> None:
        if update.get("sessionUpdate") != "agent_message_chunk":
            super().update(session_id, update)
            return
        update = {**update, "content": {"type": "text", "text": "café"}}
        params = {"sessionId": session_id, "update": update}
        message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
        import json

        self.write_line(json.dumps(message, ensure_ascii=False).encode("latin-1"))


main(Agent)
