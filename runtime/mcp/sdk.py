"""Adapters to the official MCP Python SDK (PyPI `mcp`, the `mcp` extra), on its public stream API:
the JSON-RPC messages (`mcp.types.jsonrpc`) in `SessionMessage`s on anyio memory streams.

    async with serve_mcp_server(provider, "notes", server) as registration:   # client side
        ... session/new with registration.declaration ...

serves an `mcp.server.Server` (the SDK's server, its `run(read, write, options)` fed by the
carrier) as one of `provider`'s servers: each `mcp/message` request is one JSON-RPC request on
the server's streams, its answer the carrier's inner result or error, and each notification the
server sends for it (progress, log) a request-scoped `mcp/message` notification.

    async with mcp_client_session(caller, server) as client:                  # agent side
        tools = await client.list_tools()

hands an agent a real `mcp.Client` whose transport is the carrier: each request it makes is one
`mcp/message` request of `caller`, its notifications routed back, `notifications/cancelled`
cancelling the outer request (`$/cancel_request`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client import Client
from mcp.server import Server
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp.types.jsonrpc import (
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from . import limits
from .caller import AcpServer, McpCaller, McpNotification
from .limits import McpProtocolError
from .provider import McpOperation, McpProvider, McpRegistration

log = logging.getLogger("acp_runtime.mcp")

CANCELLED = "notifications/cancelled"

__all__ = ["McpServerLink", "mcp_client_session", "serve_mcp_server"]


class McpServerLink:
    """A running `mcp` server reached over its streams: `backend` is an `McpProvider` backend."""

    def __init__(self, to_server: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        self.to_server = to_server
        self.waiting: dict[int | str, tuple[McpOperation, asyncio.Future[Any]]] = {}
        self.dropped = 0  # notifications for no request in flight
        self._ids = itertools.count(1)

    async def backend(self, op: McpOperation) -> Any:
        request_id = next(self._ids)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = (op, answer)
        try:
            request = JSONRPCRequest(
                jsonrpc="2.0", id=request_id, method=op.method, params=op.params
            )
            await self.to_server.send(SessionMessage(request))
            message = await answer
        except asyncio.CancelledError:
            cancel = JSONRPCNotification(
                jsonrpc="2.0", method=CANCELLED, params={"requestId": request_id}
            )
            try:
                self.to_server.send_nowait(SessionMessage(cancel))
            except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError):
                log.debug("could not tell the MCP server of cancelled request %r", request_id)
            raise
        finally:
            del self.waiting[request_id]
        if isinstance(message, JSONRPCError):
            error = message.error
            raise McpProtocolError(
                error.code, error.message, error.data, has_data="data" in error.model_fields_set
            )
        return message.result

    async def read(self, from_server: MemoryObjectReceiveStream[SessionMessage]) -> None:
        """Route what the server sends: answers to their request, notifications to theirs."""
        async with from_server:
            async for item in from_server:
                message = item.message
                if isinstance(message, (JSONRPCResponse, JSONRPCError)):
                    found = self.waiting.get(message.id) if message.id is not None else None
                    if found is not None and not found[1].done():
                        found[1].set_result(message)
                    else:
                        log.warning("an MCP server answered no request in flight: %r", message)
                elif isinstance(message, JSONRPCNotification):
                    await self._notify(item.metadata, message)
                else:
                    log.warning(
                        "an MCP server sent a request the carrier cannot serve: %r", message
                    )
        for _, answer in list(self.waiting.values()):  # the server ended: none of them is lost
            if not answer.done():
                answer.set_exception(ConnectionError("the MCP server ended without answering"))

    async def _notify(self, metadata: Any, message: JSONRPCNotification) -> None:
        related = (
            metadata.related_request_id if isinstance(metadata, ServerMessageMetadata) else None
        )
        found = self.waiting.get(related) if isinstance(related, int) else None
        if found is None or not await found[0].notify(message.method, message.params):
            self.dropped += 1
            log.debug("dropped an MCP notification for no request in flight: %r", message.method)


@asynccontextmanager
async def serve_mcp_server(
    provider: McpProvider,
    name: str,
    server: Server[Any],
    *,
    server_id: str | None = None,
    max_active_requests: int = limits.MAX_ACTIVE_REQUESTS,
) -> AsyncIterator[McpRegistration]:
    """Serve `server` (an `mcp.server.Server`) as `provider`'s MCP server `name` while inside:
    yields its registration (put `registration.declaration` in session/new). On exit the
    registration is closed (requests in flight cancelled) and the server's streams end."""
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    link = McpServerLink(to_server)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(
            server.run, server_reads, server_writes, server.create_initialization_options()
        )
        tasks.start_soon(link.read, from_server)
        registration = provider.register(
            name, link.backend, server_id=server_id, max_active_requests=max_active_requests
        )
        try:
            yield registration
        finally:
            await registration.close()
            await to_server.aclose()  # end of input: the server's loop ends, then its output


class _Carrier:
    """The streams of an `mcp.Client` whose requests ride `mcp/message` (one server of `caller`)."""

    def __init__(self, caller: McpCaller, server_id: str) -> None:
        self.caller = caller
        self.server_id = server_id
        self.to_client, self.client_reads = anyio.create_memory_object_stream[
            SessionMessage | Exception
        ](math.inf)
        self.client_writes, self.from_client = anyio.create_memory_object_stream[SessionMessage](0)
        self.calls: dict[Any, anyio.CancelScope] = {}

    async def pump(self) -> None:
        async with self.from_client, anyio.create_task_group() as tasks:
            async for item in self.from_client:
                message = item.message
                if isinstance(message, JSONRPCRequest):
                    scope = anyio.CancelScope()
                    self.calls[message.id] = scope
                    tasks.start_soon(self.call, message, scope)
                elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
                    cancelled = (message.params or {}).get("requestId")
                    found = self.calls.get(cancelled)
                    if found is not None:
                        found.cancel()
                else:  # the binding carries no other message from the caller
                    log.debug("the MCP carrier has no way to send %r", message)
            tasks.cancel_scope.cancel()

    async def call(self, message: JSONRPCRequest, scope: anyio.CancelScope) -> None:
        reply: JSONRPCResponse | JSONRPCError | None = None
        try:
            with scope:
                reply = await self._answer(message)
        finally:
            if self.calls.get(message.id) is scope:  # (a reused id: the later call's scope)
                del self.calls[message.id]
        if reply is not None:
            await self.to_client.send(SessionMessage(reply))

    async def _answer(self, message: JSONRPCRequest) -> JSONRPCResponse | JSONRPCError:
        rpc_error = self.caller.conn.schema.RpcError
        try:
            result = await self.caller.request(
                self.server_id, message.method, message.params, on_notification=self._notified
            )
        except McpProtocolError as exc:  # the inner error, as the provider's server gave it
            return JSONRPCError(jsonrpc="2.0", id=message.id, error=_error_data(exc))
        except rpc_error as exc:  # an outer (binding) error: the client sees its code and text
            error = McpProtocolError(exc.code, exc.message, getattr(exc, "data", None))
            return JSONRPCError(jsonrpc="2.0", id=message.id, error=_error_data(error))
        if not isinstance(result, dict):
            error = McpProtocolError(
                limits.MCP_INVALID_PARAMS, f"the inner MCP result is not an object: {result!r}"
            )
            return JSONRPCError(jsonrpc="2.0", id=message.id, error=_error_data(error))
        return JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)

    def _notified(self, note: McpNotification) -> None:
        notification = JSONRPCNotification(jsonrpc="2.0", method=note.method, params=note.params)
        self.to_client.send_nowait(SessionMessage(notification))  # unbounded: never blocks


def _error_data(error: McpProtocolError) -> ErrorData:
    return ErrorData(code=error.code, message=error.message, data=error.data)


@asynccontextmanager
async def mcp_client_session(
    caller: McpCaller, server: AcpServer | str, **client_options: Any
) -> AsyncIterator[Client]:
    """A real `mcp.Client` on one `acp` server of `caller`'s peer, while inside. It speaks MCP
    2026-07-28 (the binding's one revision) unless `client_options` say otherwise (`mode`,
    `client_info`, callbacks: `mcp.Client`'s own fields)."""
    carrier = _Carrier(caller, server if isinstance(server, str) else server.server_id)
    client_options.setdefault("mode", limits.MCP_PROTOCOL_VERSION)

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        async with carrier.to_client, carrier.client_reads, carrier.client_writes:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(carrier.pump)
                try:
                    yield carrier.client_reads, carrier.client_writes
                finally:
                    tasks.cancel_scope.cancel()

    async with Client(transport(), **client_options) as client:
        yield client
