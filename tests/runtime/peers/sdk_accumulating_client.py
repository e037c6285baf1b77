"""A client on the official Python SDK: spawns an agent, prompts once, allows every permission,
and prints the official accumulator's snapshot (acp.contrib) and the stop reason as JSON.

python sdk_accumulating_client.py AGENT_CMD [ARGS...]
"""

import asyncio
import json
import sys

import acp
from acp.contrib.session_state import SessionAccumulator
from acp.schema import AllowedOutcome, ClientCapabilities, SessionNotification


class AccumulatingClient:
    def __init__(self):
        self.accumulator = SessionAccumulator()

    async def session_update(self, session_id, update, **kwargs):
        self.accumulator.apply(SessionNotification(session_id=session_id, update=update))

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        allow = next(o for o in options if o.kind == "allow_once")
        return acp.RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=allow.option_id, outcome="selected")
        )


async def main(command):
    client = AccumulatingClient()
    async with acp.spawn_agent_process(client, command[0], *command[1:]) as (conn, process):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        session = await conn.new_session(cwd="/tmp", mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    snapshot = client.accumulator.snapshot().model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    return {"stopReason": answer.stop_reason, "snapshot": snapshot}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
