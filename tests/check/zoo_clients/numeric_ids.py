"""Turns numeric-looking string ids into numbers in its answers."""

from __future__ import annotations

from typing import Any

from base import BaseClient, main


class Client(BaseClient):
    def on_request(self, rid: Any, method: str, params: Any) -> None:
        if isinstance(rid, str) and rid.isdigit():
            rid = int(rid)
        super().on_request(rid, method, params)


main(Client)
