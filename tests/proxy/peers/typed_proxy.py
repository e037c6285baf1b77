"""A proxy with typed overrides, for the tests.

    python typed_proxy.py [1|2] [refuse]

It adds a text block before every prompt (v1 and v2). On v1 it also upper-cases agent message chunks
on their way to the client. With `refuse` (v1), it only answers every permission request itself:
cancelled.
"""

from __future__ import annotations

import sys

import acp_schema
import acp_schema_v2
from acp_runtime.proxy import Proxy, run_proxy

acp = acp_schema_v2 if sys.argv[1:2] == ["2"] else acp_schema


class Typed(Proxy[acp_schema.AgentProxy, acp_schema.ClientProxy]):
    async def session_prompt(self, params: acp_schema.PromptRequest) -> acp_schema.PromptResponse:
        params.prompt = [acp_schema.TextContent(text="[context] "), *params.prompt]
        return await self.successor.session_prompt(params)

    async def session_update(self, params: acp_schema.SessionNotification) -> None:
        update = params.update
        if isinstance(update, acp_schema.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, acp_schema.TextContent
        ):
            update.content.text = update.content.text.upper()
        await self.predecessor.session_update(params)


class TypedV2(Proxy[acp_schema_v2.AgentProxy, acp_schema_v2.ClientProxy]):
    async def session_prompt(
        self, params: acp_schema_v2.PromptRequest
    ) -> acp_schema_v2.PromptResponse:
        params.prompt = [acp_schema_v2.TextContent(text="[context] "), *params.prompt]
        return await self.successor.session_prompt(params)


class Refusing(Proxy[acp_schema.AgentProxy, acp_schema.ClientProxy]):
    async def session_request_permission(
        self, params: acp_schema.RequestPermissionRequest
    ) -> acp_schema.RequestPermissionResponse:
        outcome = acp_schema.RequestPermissionOutcomeCancelled()
        return acp_schema.RequestPermissionResponse(outcome=outcome)


if __name__ == "__main__":
    if acp is acp_schema_v2:
        run_proxy(TypedV2, acp)
    else:
        run_proxy(Refusing if "refuse" in sys.argv else Typed, acp)
