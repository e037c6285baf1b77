"""v2: calls auth/login although the agent's initialize answer lists no authMethods."""

from __future__ import annotations

from base_v2 import BaseClientV2, main


class Client(BaseClientV2):
    def after_new(self, session_id: str) -> None:
        self.request("auth/login", {"methodId": "acpgen-zoo"})


main(Client)
