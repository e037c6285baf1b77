"""Answers proxy/initialize with a protocolVersion of its own, one above its successor's
(breaks PROXY-INIT-VERSION-UNCHANGED)."""

from __future__ import annotations

from typing import Any

from base import Proxy


class RewritesVersion(Proxy):
    def answer(self, rid: Any, message: dict[str, Any], method: str) -> None:
        result = message.get("result")
        if isinstance(result, dict) and "protocolVersion" in result:
            message = {**message, "result": {**result, "protocolVersion": 99}}
        super().answer(rid, message, method)


RewritesVersion().run()
