"""Answers proxy/initialize itself, with a made-up agent's answer, without forwarding initialize
to its successor first (breaks PROXY-INIT-FORWARD-FIRST)."""

from __future__ import annotations

from typing import Any

from base import Proxy


class AnswersInitialize(Proxy):
    def on_initialize(self, rid: Any, params: Any) -> None:
        version = params.get("protocolVersion") if isinstance(params, dict) else 1
        self.send({"id": rid, "result": {"protocolVersion": version, "agentCapabilities": {}}})


AnswersInitialize().run()
