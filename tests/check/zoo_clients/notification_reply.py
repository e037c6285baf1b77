"""Answers notifications it does not know with a -32601 error (id null)."""

from __future__ import annotations

from typing import Any

from base import BaseClient, main


class Client(BaseClient):
    def on_notification(self, method: str, params: Any) -> None:
        if method != "session/update":
            error = {"code": -32601, "message": "Method not found"}
            self.send({"jsonrpc": "2.0", "id": None, "error": error})


main(Client)
