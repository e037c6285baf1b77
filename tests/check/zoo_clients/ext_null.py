"""Answers unknown `_` requests from the agent with result null."""

from __future__ import annotations

from typing import Any

from base import BaseClient, main


class Client(BaseClient):
    def on_request(self, rid: Any, method: str, params: Any) -> None:
        if method.startswith("_"):
            self.send({"jsonrpc": "2.0", "id": rid, "result": None})
        else:
            super().on_request(rid, method, params)


main(Client)
