"""Hands the agent an HTTP MCP server although the agent advertises no mcpCapabilities.http."""

from __future__ import annotations

from typing import Any

from base import BaseClient, main


class Client(BaseClient):
    def new_session_params(self) -> dict[str, Any]:
        server = {
            "type": "http",
            "name": "zoo-tools",
            "url": "http://127.0.0.1:9/mcp",
            "headers": [],
        }
        return {**super().new_session_params(), "mcpServers": [server]}


main(Client)
