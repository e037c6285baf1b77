"""Sends session_info_update and available_commands_update after a turn's answer, as
claude-agent-acp does: the protocol lets session state come at any time (slash-commands.mdx
L73, session-list.mdx L179), so this is no finding (prompt-turn.mdx L343 binds only content and
tool call updates to the turn)."""

from __future__ import annotations

from typing import Any

from base import Base, Session, main


class Agent(Base):
    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        super().end_turn(rid, sid, session)
        self.update(sid, {"sessionUpdate": "session_info_update", "title": "A checked session"})
        commands = [{"name": "help", "description": "Show help"}]
        self.update(
            sid, {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        )

    def on_session_load(self, rid: Any, params: Any) -> None:
        super().on_session_load(rid, params)
        self.update(params["sessionId"], {"sessionUpdate": "session_info_update", "title": "x"})


main(Agent)
