"""Writes a greeting line to the agent before speaking ACP."""

from __future__ import annotations

from base import BaseClient, main


class Client(BaseClient):
    def initialize(self) -> None:
        self.write_line(b"hello agent")
        super().initialize()


main(Client)
