"""A v1 client that quits after initialize when the agent answers another protocol version, as
quits_over_version.py does, but without a word: exit status 0, nothing on stderr, so its user is
never told why (a warning of ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo_clients"))

from base import BaseClient  # noqa: E402  (the zoo client, found through sys.path)


class Client(BaseClient):
    def run(self) -> None:
        info = {"name": "zoo-client", "version": "1.0.0"}
        answer = self.request("initialize", {"protocolVersion": 1, "clientInfo": info})
        if answer.get("result", {}).get("protocolVersion") != 1:
            self.agent.kill()
            raise SystemExit(0)
        super().run()


argv = sys.argv[1:]
Client(argv[argv.index("--") + 1 :]).run()
