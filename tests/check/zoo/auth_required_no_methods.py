"""Answers every prompt with -32000 (authentication required) while its initialize advertises
no auth method, as claude-agent-acp does without credentials: the client has no way to
authenticate. One finding (auth.required-advertised); the checks that need a finished turn are
not exercised, for that cause."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def initialize_result(self, asked: Any) -> dict[str, Any]:
        return {**super().initialize_result(asked), "authMethods": []}

    def on_session_prompt(self, rid: Any, params: Any) -> None:
        if self.session_of(rid, params) is not None:
            self.fail(rid, -32000, "Authentication required: set ANTHROPIC_API_KEY")


main(Agent)
