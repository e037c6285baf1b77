"""The zoo's well-behaved ACP v2 client: base.py speaking v2's initialize and prompt lifecycle
(the prompt is answered once accepted; the turn ends with the session's idle state_update).

    python base_v2.py -- AGENT_CMD [ARGS...]
"""

from __future__ import annotations

import os
import threading
from typing import Any

from base import BaseClient, main


class BaseClientV2(BaseClient):
    def __init__(self, argv: list[str]) -> None:
        self.idle = threading.Event()
        super().__init__(argv)

    def initialize(self) -> None:
        info = {"name": "zoo-client-v2", "version": "1.0.0"}
        self.request("initialize", {"protocolVersion": 2, "info": info, "capabilities": {}})

    def on_notification(self, method: str, params: Any) -> None:
        update = params.get("update") if isinstance(params, dict) else None
        if method == "session/update" and isinstance(update, dict):
            if update.get("sessionUpdate") == "state_update" and update.get("state") == "idle":
                self.idle.set()

    def run(self) -> None:
        self.initialize()
        new = self.request("session/new", {"cwd": os.getcwd(), "mcpServers": []})
        session_id = new["result"]["sessionId"]
        self.after_new(session_id)
        self.prompt(session_id)
        self.idle.wait(30)
        self.agent.terminate()

    def prompt(self, session_id: str) -> None:
        self.request("session/prompt", {"sessionId": session_id, "prompt": [self.prompt_block()]})


if __name__ == "__main__":
    main(BaseClientV2)
