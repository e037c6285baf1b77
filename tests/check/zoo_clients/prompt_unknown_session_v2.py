"""v2: sends its first prompt for a session it never set up (a made-up id), then the right one."""

from __future__ import annotations

from base_v2 import BaseClientV2, main


class Client(BaseClientV2):
    def after_new(self, session_id: str) -> None:
        self.prompt("zoo-made-up-session")


main(Client)
