"""A proxy that logs every tool call and refuses the permission requests that match a pattern.

    python -m acp_runtime.conductor -- python examples/policy_proxy.py [--refuse REGEX] \\
        [--log FILE] -- AGENT_CMD [ARGS...]

Each tool call the agent reports (`tool_call`, `tool_call_update`) is logged as one line, `tool
ID TITLE [STATUS]`, to FILE (default stderr), and passed on. A permission request whose tool
call title matches REGEX (`re.search`) is answered here with the agent's reject option (or
`cancelled` when it offers none) and never reaches the client; the others go to the client.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TextIO

import acp_schema as acp
from acp_runtime.proxy import Proxy, run_proxy

REJECT = (acp.PermissionOptionKind.REJECT_ONCE, acp.PermissionOptionKind.REJECT_ALWAYS)


class PolicyProxy(Proxy[acp.AgentProxy, acp.ClientProxy]):
    def __init__(self, refuse: re.Pattern[str] | None, log: TextIO) -> None:
        self.refuse, self.log = refuse, log
        self.titles: dict[str, str] = {}

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(update, (acp.ToolCall, acp.SessionUpdateToolCallUpdate)):
            if isinstance(update.title, str):
                self.titles[update.tool_call_id] = update.title
            status = update.status.value if isinstance(update.status, acp.ToolCallStatus) else ""
            title = self.titles.get(update.tool_call_id, "")
            print(f"tool {update.tool_call_id} {title} [{status}]", file=self.log, flush=True)
        await self.predecessor.session_update(params)

    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        title = params.tool_call.title
        if isinstance(title, str) and self.refuse is not None and self.refuse.search(title):
            print(f"refused: {title}", file=self.log, flush=True)
            reject = [o for o in params.options if o.kind in REJECT]
            outcome: acp.RequestPermissionOutcome = (
                acp.SelectedPermissionOutcome(option_id=reject[0].option_id)
                if reject
                else acp.RequestPermissionOutcomeCancelled()
            )
            return acp.RequestPermissionResponse(outcome=outcome)
        return await self.predecessor.session_request_permission(params)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--refuse", type=re.compile, help="refuse tool calls whose title matches")
    parser.add_argument("--log", type=argparse.FileType("a"), default=sys.stderr)
    args = parser.parse_args()
    run_proxy(lambda: PolicyProxy(args.refuse, args.log))


if __name__ == "__main__":
    main()
