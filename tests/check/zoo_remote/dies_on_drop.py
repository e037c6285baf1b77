"""A remote agent (the project's echo example, a 1 s pause per chunk, served with the runtime's
Streamable HTTP + WebSocket server) whose whole server exits when a client's connection goes away
while a turn of it runs (a cancelled turn on a live connection does not). Prints
`serving http://HOST:PORT/acp` once it listens.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))

from echo_agent import EchoV1, EchoV2  # noqa: E402  (the example, found through sys.path)

import acp_schema as v1  # noqa: E402
import acp_schema_v2 as v2  # noqa: E402
from acp_runtime.http import run  # noqa: E402
from acp_runtime.versions import AgentRoute, AgentVersions  # noqa: E402


class Dies:
    async def session_prompt(self, params: Any) -> Any:
        try:
            return await super().session_prompt(params)  # type: ignore[misc]
        except asyncio.CancelledError:  # a session/cancel, or the connection gone
            loop = asyncio.get_running_loop()
            loop.call_later(0.2, lambda: self.conn.closed and os._exit(3))  # type: ignore
            raise


class DiesV1(Dies, EchoV1):
    pass


class DiesV2(Dies, EchoV2):
    pass


def main() -> None:
    agent = AgentVersions(
        AgentRoute(1, v1, lambda conn: DiesV1(conn, 1.0)),
        AgentRoute(2, v2, lambda conn: DiesV2(conn, 1.0)),
    )
    run(agent, "127.0.0.1:0", on_listening=lambda url: print(f"serving {url}", flush=True))


if __name__ == "__main__":
    main()
