"""Refuses protocol version 0 with -32022 (Unsupported protocol version) instead of answering its
latest version, as codex-acp 2.6.0 and claude-agent-acp 0.101.0 do. On v1 a break: v1's schema
has no such code and initialization.mdx L96 says "the Agent MUST respond with the latest version
it supports"."""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))

from base import Base, main  # noqa: E402  (the v1 zoo agent, found through sys.path)


class Agent(Base):
    def on_initialize(self, rid: Any, params: Any) -> None:
        asked = params.get("protocolVersion")
        if isinstance(asked, int) and asked < 1:
            data = {"requested": asked, "supported": [1]}
            message = "Unsupported protocol version"
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": -32022, "message": message, "data": data},
                }
            )
            return
        super().on_initialize(rid, params)


main(Agent)
