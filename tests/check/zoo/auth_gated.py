"""Blocked by authentication, as codex-acp 2.6.0, gemini-cli 0.61.0 and qwen-code 0.24.4 are
without credentials: it advertises an auth method and answers session/new with -32000
(authentication required) until `authenticate` with that method succeeds. Not a break: checked
without --auth-method it is "blocked by authentication"; with `--auth-method zoo-login` it
passes as base.py does."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    authenticated = False

    def on_authenticate(self, rid: Any, params: Any) -> None:
        if params.get("methodId") != "zoo-login":
            self.fail(rid, -32602, "Invalid params: no such auth method")
            return
        self.authenticated = True
        self.answer(rid, {})

    def on_session_new(self, rid: Any, params: Any) -> None:
        if not self.authenticated:
            self.fail(rid, -32000, "Authentication required")
            return
        super().on_session_new(rid, params)


main(Agent)
