"""Opens its session before initializing the connection."""

from __future__ import annotations

import os

from base import BaseClient, main


class Client(BaseClient):
    def run(self) -> None:
        self.request("session/new", {"cwd": os.getcwd(), "mcpServers": []})
        super().run()


main(Client)
