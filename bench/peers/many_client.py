"""The client of the many-connections benchmark, on acp_runtime or on the official Python SDK
1.0.0rc3 (`sdk`: run it with the interpreter of .venv/acp-rc3, see bench/servers.py).

    python many_client.py runtime|sdk http1|h2c|ws N CHUNKS URL
        N connections at once to the agent at URL, each: initialize, one session/new, one prompt
        that streams CHUNKS updates, close
    python many_client.py runtime|sdk stdio N CHUNKS
        one stdio connection to many_agent.py (same implementation): N sessions at once, then N
        prompts at once, each streaming CHUNKS updates into its own session

Prints one JSON line: the wall time of the whole run, the updates received, the connections that
failed (with the first error), and the peak memory of this process (and of the agent over stdio).
Every update of a turn is counted before the turn is taken as done (over HTTP an update and the
prompt's answer travel on different streams, so the answer may come first: it waits for them).
"""

from __future__ import annotations

import asyncio
import collections
import importlib
import os
import sys
import time
from typing import Any

from common import maxrss_kb, peak_kb, report

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "many_agent.py")
WAIT_S = 60.0
IMPORTS = {
    "runtime": ("acp_schema", "acp_runtime", "acp_runtime.http"),
    "sdk": ("acp", "httpx2", "acp.http.client", "acp.ws.client"),
}


class Counts:
    """Updates received per session, and a way to wait until one session has had `n`."""

    def __init__(self) -> None:
        self.seen: collections.Counter[str] = collections.Counter()
        self.waiting: dict[str, tuple[int, asyncio.Event]] = {}

    def add(self, session_id: str) -> None:
        self.seen[session_id] += 1
        wait = self.waiting.get(session_id)
        if wait is not None and self.seen[session_id] >= wait[0]:
            wait[1].set()

    async def reach(self, session_id: str, n: int) -> None:
        if self.seen[session_id] >= n:
            return
        event = asyncio.Event()
        self.waiting[session_id] = (n, event)
        await asyncio.wait_for(event.wait(), WAIT_S)


# --- acp_runtime ----------------------------------------------------------------------------------


def runtime_handler(counts: Counts) -> Any:
    import acp_schema as acp

    class CountingClient(acp.ClientHandler):
        async def session_update(self, params: acp.SessionNotification) -> None:
            counts.add(params.session_id)

    return CountingClient()


async def runtime_turns(agent: Any, counts: Counts, chunks: int) -> None:
    import acp_schema as acp

    new = await agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
    text = acp.TextContent(text=f"stream {chunks}")
    await agent.session_prompt(acp.PromptRequest(session_id=new.session_id, prompt=[text]))
    await counts.reach(new.session_id, chunks)


async def runtime_remote(mode: str, n: int, chunks: int, url: str, counts: Counts) -> list[Any]:
    import acp_schema as acp
    from acp_runtime.http import connect_agent

    http2 = True if mode == "h2c" else None

    async def one() -> None:
        async with connect_agent(url, runtime_handler(counts), http2=http2) as conn:
            await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
            await runtime_turns(conn.agent, counts, chunks)

    return await asyncio.gather(*(one() for _ in range(n)), return_exceptions=True)


async def runtime_stdio(n: int, chunks: int, counts: Counts, out: dict[str, Any]) -> list[Any]:
    import acp_schema as acp
    from acp_runtime import spawn_agent

    async with spawn_agent(runtime_handler(counts), sys.executable, AGENT, "runtime", "stdio") as c:
        await c.agent.initialize(acp.InitializeRequest(protocol_version=1))
        start = time.perf_counter()
        got = await asyncio.gather(
            *(runtime_turns(c.agent, counts, chunks) for _ in range(n)), return_exceptions=True
        )
        out["seconds"] = time.perf_counter() - start
        assert c.process is not None
        out["agent_maxrss_kb"] = peak_kb(c.process.pid)
    return got


# --- the official SDK -----------------------------------------------------------------------------


def sdk_handler(counts: Counts) -> Any:
    class CountingClient:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            counts.add(session_id)

    return CountingClient()


async def sdk_turns(conn: Any, counts: Counts, chunks: int) -> None:
    from acp.schema import TextContentBlock

    new = await conn.new_session(cwd="/", mcp_servers=[])
    prompt = [TextContentBlock(text=f"stream {chunks}")]
    await conn.prompt(session_id=new.session_id, prompt=prompt)
    await counts.reach(new.session_id, chunks)


async def sdk_transport(mode: str, url: str) -> tuple[Any, Any]:
    """The SDK's transport for `mode`, and the HTTP client to close after it (or None)."""
    import httpx2
    from acp.http import create_http_stream
    from acp.ws import create_websocket_stream

    if mode == "ws":
        return await create_websocket_stream(url), None
    if mode == "h2c":  # the SDK's own client, told to speak HTTP/2 with prior knowledge
        client = httpx2.AsyncClient(http1=False, http2=True, timeout=httpx2.Timeout(None))
        return create_http_stream(url, client=client), client
    # its default client (HTTP/2 where TLS offers it: HTTP/1.1 on http://)
    return create_http_stream(url), None


async def sdk_remote(mode: str, n: int, chunks: int, url: str, counts: Counts) -> list[Any]:
    import acp

    async def one() -> None:
        transport, client = await sdk_transport(mode, url)
        conn = acp.connect_to_agent(sdk_handler(counts), transport)
        try:
            await conn.initialize(protocol_version=1)
            await sdk_turns(conn, counts, chunks)
        finally:
            await conn.close()
            if client is not None:
                await client.aclose()

    return await asyncio.gather(*(one() for _ in range(n)), return_exceptions=True)


async def sdk_stdio(n: int, chunks: int, counts: Counts, out: dict[str, Any]) -> list[Any]:
    import acp

    handler = sdk_handler(counts)
    spawn = acp.spawn_agent_process(handler, sys.executable, AGENT, "sdk", "stdio")
    async with spawn as (conn, process):
        await conn.initialize(protocol_version=1)
        start = time.perf_counter()
        got = await asyncio.gather(
            *(sdk_turns(conn, counts, chunks) for _ in range(n)), return_exceptions=True
        )
        out["seconds"] = time.perf_counter() - start
        out["agent_maxrss_kb"] = peak_kb(process.pid)
    return got


async def main(impl: str, mode: str, n: int, chunks: int, url: str) -> dict[str, Any]:
    counts = Counts()
    out: dict[str, Any] = {"impl": impl, "mode": mode, "n": n, "chunks": chunks}
    for module in IMPORTS[impl]:  # imported before the clock starts
        importlib.import_module(module)
    start = time.perf_counter()
    if mode == "stdio":
        got = await (runtime_stdio if impl == "runtime" else sdk_stdio)(n, chunks, counts, out)
    else:
        remote = runtime_remote if impl == "runtime" else sdk_remote
        got = await remote(mode, n, chunks, url, counts)
        out["seconds"] = time.perf_counter() - start
    failed = [g for g in got if isinstance(g, BaseException)]
    out["failed"] = len(failed)
    if failed:
        out["first_error"] = f"{type(failed[0]).__name__}: {failed[0]}"[:300]
    out["updates"] = sum(counts.seen.values())
    out["maxrss_kb"] = maxrss_kb()
    return out


if __name__ == "__main__":
    impl, mode, n, chunks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    url = sys.argv[5] if len(sys.argv) > 5 else ""
    report(asyncio.run(main(impl, mode, n, chunks, url)))
