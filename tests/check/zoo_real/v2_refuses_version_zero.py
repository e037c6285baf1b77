"""v2: refuses protocol version 0 with -32022 (Unsupported protocol version), as codex-acp 2.6.0
and claude-agent-acp 0.101.0 do. Not a break on v2: the v2 schema names that code for exactly
this ("No protocol version supported by the Agent is at or below the requested version"), and
InitializeResponse.protocolVersion says initialization then fails with it."""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo_v2"))

from base_v2 import BaseV2, main  # noqa: E402  (the v2 zoo agent, found through sys.path)


class Agent(BaseV2):
    def on_initialize(self, rid: Any, params: Any) -> None:
        asked = params.get("protocolVersion")
        if isinstance(asked, int) and asked < 1:
            data = {"requested": asked, "supported": [2]}
            error = {"code": -32022, "message": "Unsupported protocol version", "data": data}
            self.send({"jsonrpc": "2.0", "id": rid, "error": error})
            return
        super().on_initialize(rid, params)


main(Agent)
