"""`--listen HOST:PORT`: the conductor for remote clients, through `AcpApp` (the `http` extra).

Each remote connection gets a chain of its own: the stdio conductor (`cli.py`) with the same
components, spawned on the connection's first message and stopped when it closes. `AcpApp`
serves typed handlers, so this hop is a typed bridge: `Forwarder` serves every method the schema
gives the agent side by forwarding it, by its wire name, to the chain, and the chain's requests
and notifications to the remote client the same way. Past this hop the conductor routes by the
envelope as on stdio.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType
from typing import Any

from ..jsonrpc.engine import Engine
from ..protocol.connection import default_schema
from ..stdio import spawn_agent

Target = Callable[[], Awaitable[Engine[Any]]]


class Forwarder:
    """A handler of `side`'s methods: each request and notification the schema gives that side
    (and each extension method) is forwarded to the connection `target()` gives, params as they
    were read and the answer as JSON."""

    def __init__(self, schema: ModuleType, side: str, target: Target) -> None:
        self._target = target
        self._calls: dict[str, tuple[str, bool]] = {}
        for table, is_request in (
            (schema.methods.REQUESTS, True),
            (schema.methods.NOTIFICATIONS, False),
        ):
            for method, info in table.items():
                if info.side == side:
                    self._calls[info.handler] = (method, is_request)

    def __getattr__(self, name: str) -> Callable[[Any], Awaitable[Any]]:
        found = self.__dict__.get("_calls", {}).get(name)
        if found is None:
            raise AttributeError(name)
        method, is_request = found
        return lambda params: self._forward(method, params, is_request)

    async def _forward(self, method: str, params: Any, is_request: bool) -> Any:
        conn = await self._target()
        if is_request:
            return await conn.request(method, params, None)
        await conn.notify(method, params)
        return None

    async def ext_method(self, method: str, params: Any) -> Any:
        return await self._forward(method, params, True)

    async def ext_notification(self, method: str, params: Any) -> None:
        await self._forward(method, params, False)


class RemoteChain:
    """The chain of one remote connection: spawned on first use, stopped when `remote` closes."""

    def __init__(self, remote: Engine[Any], command: Sequence[str], schema: ModuleType) -> None:
        self._remote = remote
        self._schema: Any = schema  # any generated package (the runtime's own Protocols)
        self._ready: asyncio.Future[Engine[Any]] = asyncio.get_running_loop().create_future()
        client = Forwarder(schema, "client", self._remote_conn)
        self._task = asyncio.ensure_future(self._run(client, list(command)))

    async def _remote_conn(self) -> Engine[Any]:
        return self._remote

    async def chain(self) -> Engine[Any]:
        return await asyncio.shield(self._ready)

    async def _run(self, client: Forwarder, command: list[str]) -> None:
        try:
            async with spawn_agent(client, *command, schema=self._schema) as conn:
                self._ready.set_result(conn)
                await asyncio.wait(
                    [asyncio.ensure_future(c.wait_closed()) for c in (conn, self._remote)],
                    return_when=asyncio.FIRST_COMPLETED,
                )
            await self._remote.close()
        except OSError as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)


def handler_factory(
    components: Sequence[Sequence[str]], shutdown_timeout: float
) -> Callable[[Engine[Any]], Forwarder]:
    """What `AcpApp` takes: for each remote connection, a `Forwarder` to a chain of its own."""
    command = [sys.executable, "-m", "acp_runtime.conductor"]
    command += ["--shutdown-timeout", str(shutdown_timeout)]
    for component in components:
        command += ["--", *component]
    schema = default_schema()

    def make(remote: Engine[Any]) -> Forwarder:
        return Forwarder(schema, "agent", RemoteChain(remote, command, schema).chain)

    return make


def serve_remote(components: Sequence[Sequence[str]], listen: str, shutdown_timeout: float) -> None:
    """Serve the chain at http://LISTEN/acp (and ws://) until interrupted; prints the URL."""
    from ..http import run as run_http  # the http extra, imported only here

    run_http(
        handler_factory(components, shutdown_timeout),  # type: ignore[arg-type]  # forwards each method by name
        listen,
        on_listening=lambda url: print(f"serving {url}", flush=True),
    )
