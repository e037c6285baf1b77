"""Puts a string in the _meta of every proxy/successor envelope it sends, where the schema
allows an object or null (breaks PROXY-META-HOP-LOCAL)."""

from __future__ import annotations

from typing import Any

from base import Proxy


class StringMeta(Proxy):
    def envelope(self, method: str, params: Any) -> dict[str, Any]:
        return {**super().envelope(method, params), "_meta": "from string_meta.py"}


StringMeta().run()
