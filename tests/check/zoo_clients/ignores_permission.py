"""Never answers a permission request."""

from __future__ import annotations

from typing import Any

from base import BaseClient, main


class Client(BaseClient):
    def on_request(self, rid: Any, method: str, params: Any) -> None:
        if method != "session/request_permission":
            super().on_request(rid, method, params)


main(Client)
