"""Prompts a session it never set up (a made-up id) before opening its own."""

from __future__ import annotations

from base import BaseClient, main


class Client(BaseClient):
    def after_new(self, session_id: str) -> None:
        self.request(
            "session/prompt", {"sessionId": "zoo-made-up", "prompt": [self.prompt_block()]}
        )


main(Client)
