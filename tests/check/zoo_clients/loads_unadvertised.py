"""Loads its new session back although the agent does not advertise loadSession."""

from __future__ import annotations

import os

from base import BaseClient, main


class Client(BaseClient):
    def after_new(self, session_id: str) -> None:
        params = {"sessionId": session_id, "cwd": os.getcwd(), "mcpServers": []}
        self.request("session/load", params)


main(Client)
