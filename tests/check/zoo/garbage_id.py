"""Answers a line that is not JSON with a parse error carrying id 0 instead of null."""

from __future__ import annotations

import json

from base import Base, main


class Agent(Base):
    def serve(self) -> None:
        for line in self.read_lines():
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": 0, "error": {"code": -32700, "message": "x"}})
                continue
            self.dispatch(message)
        self.at_eof()


main(Agent)
