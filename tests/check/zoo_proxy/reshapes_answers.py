"""Reshapes what its successor answers to forwarded requests: a result comes back inside
{"value": ...}, an error without its data (breaks PROXY-SUCCESSOR-UNCHANGED). Its answer to
proxy/initialize is left alone."""

from __future__ import annotations

from typing import Any

from base import Proxy


class ReshapesAnswers(Proxy):
    def answer(self, rid: Any, message: dict[str, Any], method: str) -> None:
        result = message.get("result")
        if isinstance(result, dict) and "protocolVersion" not in result:
            message = {"result": {"value": result}}
        elif isinstance(message.get("error"), dict):
            error = message["error"]
            message = {"error": {"code": error.get("code"), "message": error.get("message")}}
        super().answer(rid, message, method)


ReshapesAnswers().run()
