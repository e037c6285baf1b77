"""v2: takes ACCEPT seconds to accept a prompt, and refuses it with -32800 (request cancelled)
when a session/cancel comes first, reporting no `running` state: no work started, so there is no
turn to end `cancelled`. claude-agent-acp 0.101.0 does this; the checker once failed it for
"no idle state_update after the cancel". Not a break."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo_v2"))

from base_v2 import BaseV2, main  # noqa: E402  (the v2 zoo agent, found through sys.path)

ACCEPT = 0.4


class Agent(BaseV2):
    def on_session_prompt(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        session.cancelled.clear()
        threading.Thread(target=self.accept_later, args=(rid, params, session), daemon=True).start()

    def accept_later(self, rid: Any, params: Any, session: Any) -> None:
        time.sleep(ACCEPT)
        if session.cancelled.is_set():
            self.fail(rid, -32800, "Request cancelled")
            return
        super().on_session_prompt(rid, params)


main(Agent)
