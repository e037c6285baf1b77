"""One prompt to a remote agent through the official Python SDK's client, sending a bearer token.

    python py_sdk_token_client.py URL TOKEN   -> {"agent": ..., "chunks": [...], "stopReason": ...}

http:// goes over `acp.http.create_http_stream`, ws:// over `acp.ws.create_websocket_stream`,
both with `headers={"Authorization": "Bearer TOKEN"}`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import acp
from acp.schema import ClientCapabilities, Implementation


class Client:
    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if getattr(update, "session_update", None) == "agent_message_chunk":
            self.chunks.append(update.content.text)


async def main(url: str, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    if url.startswith("ws://"):
        from acp.ws import create_websocket_stream

        transport = await create_websocket_stream(url, headers=headers)
    else:
        from acp.http import create_http_stream

        transport = create_http_stream(url, headers=headers)
    client = Client()
    conn = acp.connect_to_agent(client, transport)
    try:
        init = await conn.initialize(
            protocol_version=1,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="py-sdk-token-client", version="1"),
        )
        session = await conn.new_session(cwd="/tmp", mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")])
        await asyncio.sleep(0.2)  # the SDK may return the answer before its last chunk
    finally:
        await conn.close()
    return {
        "agent": init.agent_info.name if init.agent_info else None,
        "chunks": client.chunks,
        "stopReason": answer.stop_reason,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2]), 30))))
