"""Sends a prompt content block without its type."""

from __future__ import annotations

from typing import Any

from base import BaseClient, main


class Client(BaseClient):
    def prompt_block(self) -> dict[str, Any]:
        return {"text": "hello"}


main(Client)
