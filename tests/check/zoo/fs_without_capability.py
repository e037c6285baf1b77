"""Reads a file through the client, which offered no file system."""

from __future__ import annotations

import os

from base import Base, main


class Agent(Base):
    def tool_calls(self, sid: str) -> None:
        params = {"sessionId": sid, "path": os.path.abspath("README.md")}
        self.send({"jsonrpc": "2.0", "id": "fs-1", "method": "fs/read_text_file", "params": params})
        super().tool_calls(sid)


main(Agent)
