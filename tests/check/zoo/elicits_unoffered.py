"""Asks the client for input with elicitation/create during a turn, although the checker's
initialize advertises no elicitation capability."""

from __future__ import annotations

from base import Base, main


class Agent(Base):
    def tool_calls(self, sid: str) -> None:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        params = {
            "sessionId": sid,
            "mode": "form",
            "message": "Your name?",
            "requestedSchema": schema,
        }
        self.send(
            {"jsonrpc": "2.0", "id": "zoo-ask", "method": "elicitation/create", "params": params}
        )
        super().tool_calls(sid)


main(Agent)
