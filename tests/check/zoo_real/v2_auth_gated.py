"""v2: blocked by authentication, as codex-acp 2.6.0 is on v2 without credentials: it advertises
an auth method (v2 names its id `methodId`, v1 `id`) and answers session/new with -32000 until
`auth/login` (v2's auth request; v1's is `authenticate`) with that method succeeds. Not a break:
checked without --auth-method it is "blocked by authentication", its method listed by its id
(the checker once listed v2 methods as `None`); with `--auth-method zoo-login` it passes as
base_v2.py does (the checker once sent v1's `authenticate` on v2 too)."""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo_v2"))

from base_v2 import BaseV2, main  # noqa: E402  (the v2 zoo agent, found through sys.path)


class Agent(BaseV2):
    authenticated = False

    def initialize_result(self, asked: Any) -> dict[str, Any]:
        result = super().initialize_result(asked)
        result["authMethods"] = [{"methodId": "zoo-login", "name": "Zoo login", "type": "agent"}]
        return result

    def on_auth_login(self, rid: Any, params: Any) -> None:
        if params.get("methodId") != "zoo-login":
            self.fail(rid, -32602, "Invalid params: no such auth method")
            return
        self.authenticated = True
        self.answer(rid, {})

    def on_session_new(self, rid: Any, params: Any) -> None:
        if not self.authenticated:
            self.fail(rid, -32000, "Authentication required")
            return
        super().on_session_new(rid, params)


main(Agent)
