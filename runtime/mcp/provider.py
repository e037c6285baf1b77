"""The provider of MCP over ACP: MCP servers that live in this component (a client, or a proxy),
reached by the peer through `mcp/message` on the ACP connection.

    provider = McpProvider(conn)                      # one per connection
    tools = provider.register("tools", backend)       # backend(op) -> the inner MCP result
    await conn.agent.session_new(acp.NewSessionRequest(cwd=..., mcp_servers=[tools.declaration]))

and the connection's handler's `mcp_message(params)` returns `await provider.mcp_message(params)`.

Each request is routed by `serverId` to its backend, which runs in the request's own task (the
engine's): `$/cancel_request` cancels it and is answered -32800 by the engine. The outer errors
are the binding's only (`limits`): -33001 an unknown (or closed) server, -32602 a duplicate active
`(serverId, requestId)`, -33000 a server's requests in flight at its bound or a message over the
size bound, -33002 a backend that failed without an MCP outcome. An inner MCP error
(`McpProtocolError`) is a successful answer's `error` carrier. Server ids are generated (or
given), and never reused on the connection, as the schema requires.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any, Awaitable, Callable

import msgspec

from . import limits
from .limits import McpProtocolError

log = logging.getLogger("acp_runtime.mcp")

_encode = msgspec.json.encode


class McpOperation:
    """One inner MCP request, as a backend sees it."""

    __slots__ = (
        "server_id",
        "request_id",
        "method",
        "params",
        "protocol_version",
        "client_capabilities",
        "client_info",
        "envelope_meta",
        "_active",
        "_provider",
    )

    def __init__(
        self,
        provider: McpProvider,
        active: _Active,
        request: Any,
        params: dict[str, Any] | None,
        meta: dict[str, Any],
    ) -> None:
        self.server_id: str = request.server_id
        self.request_id: str = request.request_id
        self.method: str = request.method
        self.params = params  # the inner params (None: none), its `_meta` included
        self.protocol_version: str = meta[limits.META_PROTOCOL_VERSION]
        self.client_capabilities: dict[str, Any] = meta[limits.META_CLIENT_CAPABILITIES]
        self.client_info: Any = meta.get(limits.META_CLIENT_INFO)
        envelope_meta = request.meta
        self.envelope_meta: dict[str, Any] | None = (
            envelope_meta if isinstance(envelope_meta, dict) else None
        )
        self._active = active
        self._provider = provider

    @property
    def active(self) -> bool:
        """Whether the request is still in flight (its answer not yet made)."""
        return not self._active.done

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> bool:
        """Send an inner MCP notification scoped to this request (progress, say). Sent only while
        the request is in flight: a late one is dropped (False)."""
        return await self._provider.notify(self, method, params)


Backend = Callable[[McpOperation], Awaitable[Any]]
"""An MCP server: given one request, returns its inner result (any JSON value) or raises
`McpProtocolError` for an inner MCP error. Any other exception is answered -33002."""


class _Active:
    __slots__ = ("task", "done")

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.done = False


class McpRegistration:
    """An MCP server registered on one connection."""

    def __init__(
        self, provider: McpProvider, name: str, server_id: str, backend: Backend, max_active: int
    ) -> None:
        self.name = name
        self.server_id = server_id
        self.backend = backend
        self.max_active_requests = max_active
        self.active: dict[str, _Active] = {}  # by requestId
        self.closed = False
        self._provider = provider

    @property
    def declaration(self) -> Any:
        """The `McpServerAcp` entry (`type: "acp"`) for a session's `mcpServers`."""
        return self._provider.schema.McpServerAcp(name=self.name, server_id=self.server_id)

    async def close(self) -> None:
        """Unregister: later requests are answered -33001, those in flight are cancelled (answered
        -32800); returns once they have ended."""
        if self.closed:
            return
        self.closed = True
        self._provider.unregister(self)
        tasks = [a.task for a in self.active.values() if a.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


class McpProvider:
    """The MCP servers this side provides on one ACP connection (`conn`)."""

    def __init__(self, conn: Any, *, max_message_bytes: int = limits.MAX_MESSAGE_BYTES) -> None:
        if max_message_bytes < 1:
            raise ValueError("max_message_bytes must be a positive integer")
        self.conn = conn
        self.schema = conn.schema
        self.max_message_bytes = max_message_bytes
        self.servers: dict[str, McpRegistration] = {}
        self._used: set[str] = set()  # every server id registered on the connection, ever

    def register(
        self,
        name: str,
        backend: Backend,
        *,
        server_id: str | None = None,
        max_active_requests: int = limits.MAX_ACTIVE_REQUESTS,
    ) -> McpRegistration:
        """Serve `backend` as the MCP server `name`; publish its `declaration` after this returns.
        `server_id` defaults to a fresh one; an id registered before on this connection (even if
        closed since) raises ValueError."""
        if server_id is None:
            server_id = f"{name}:{uuid.uuid4()}"
            while server_id in self._used:  # (never, but the schema's MUST is kept by this loop)
                server_id = f"{name}:{uuid.uuid4()}"
        elif server_id in self._used:
            raise ValueError(f"MCP server id {server_id!r} was registered on this connection")
        if type(max_active_requests) is not int or max_active_requests < 1:
            raise ValueError("max_active_requests must be a positive integer")
        self._used.add(server_id)
        registration = McpRegistration(self, name, server_id, backend, max_active_requests)
        self.servers[server_id] = registration
        return registration

    def unregister(self, registration: McpRegistration) -> None:
        if self.servers.get(registration.server_id) is registration:
            del self.servers[registration.server_id]

    @property
    def declarations(self) -> list[Any]:
        """The `mcpServers` entries of every server registered now."""
        return [server.declaration for server in self.servers.values()]

    @property
    def in_flight(self) -> int:
        return sum(len(server.active) for server in self.servers.values())

    async def mcp_message(self, params: Any) -> Any:
        """Serve one `mcp/message` request (the handler method of the client's interface)."""
        request, conn = params, self.conn
        server = self.servers.get(request.server_id)
        if server is None:
            raise conn.rpc_error(
                limits.SERVER_UNAVAILABLE,
                "MCP server registration unavailable",
                {"serverId": request.server_id},
            )
        request_id = request.request_id
        route = {"serverId": request.server_id, "requestId": request_id}
        if request_id in server.active:
            raise conn.rpc_error(
                limits.INVALID_PARAMS, "Invalid params: duplicate active MCP request ID", route
            )
        if len(server.active) >= server.max_active_requests:
            raise conn.rpc_error(
                limits.RESOURCE_LIMIT_EXCEEDED,
                "MCP-over-ACP active request limit exceeded",
                {**route, "limit": server.max_active_requests},
            )
        params = request.params if isinstance(request.params, dict) else None
        if params is not None and conn.max_line_bytes > self.max_message_bytes:
            # the framing lets bigger lines through: measure the inner params themselves
            self._bounded(len(_encode(params)), "params", route)
        active = _Active(asyncio.current_task())
        server.active[request_id] = active
        try:
            outcome = await self._run(server, active, request, params)
        finally:
            active.done = True  # no notification goes out after this point
            del server.active[request_id]
        return outcome

    async def _run(
        self, server: McpRegistration, active: _Active, request: Any, params: dict[str, Any] | None
    ) -> Any:
        schema = self.schema
        meta = params.get("_meta") if params is not None else None
        version = meta.get(limits.META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
        if not isinstance(meta, dict) or not isinstance(version, str):
            return _inner_error(
                schema,
                limits.MCP_INVALID_PARAMS,
                f"Invalid params: missing {limits.META_PROTOCOL_VERSION} in params._meta",
            )
        if version != limits.MCP_PROTOCOL_VERSION:
            return _inner_error(
                schema,
                limits.MCP_UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                {"supported": [limits.MCP_PROTOCOL_VERSION], "requested": version},
            )
        if not isinstance(meta.get(limits.META_CLIENT_CAPABILITIES), dict):
            return _inner_error(
                schema,
                limits.MCP_INVALID_PARAMS,
                f"Invalid params: missing {limits.META_CLIENT_CAPABILITIES} in params._meta",
            )
        operation = McpOperation(self, active, request, params, meta)
        try:
            result = await server.backend(operation)
        except McpProtocolError as exc:
            return schema.MessageMcpResponseError(error=exc.to_error())
        except Exception as exc:
            log.warning("MCP server %s failed on %s: %r", server.server_id, request.method, exc)
            data: dict[str, Any] = {"details": str(exc) or type(exc).__name__}
            if isinstance(exc, schema.RpcError):
                data["code"] = getattr(
                    exc, "code", None
                )  # its own ACP code never poses as the binding's
            raise self.conn.rpc_error(
                limits.BACKEND_FAILED, "MCP server backend failed", data
            ) from None
        try:
            raw = _encode(result)  # the inner result encoded once: its envelope takes it as it is
        except (TypeError, msgspec.EncodeError) as exc:
            raise self.conn.rpc_error(
                limits.BACKEND_FAILED,
                "MCP server backend returned a result that is not JSON",
                {"details": str(exc)},
            ) from None
        self._bounded(
            len(raw), "result", {"serverId": request.server_id, "requestId": request.request_id}
        )
        return schema.MessageMcpResponseResult(result=msgspec.Raw(raw))

    def _bounded(self, size: int, what: str, route: dict[str, Any]) -> None:
        if size > self.max_message_bytes:
            raise self.conn.rpc_error(
                limits.RESOURCE_LIMIT_EXCEEDED,
                f"MCP message too large: its inner {what} are {size} bytes,"
                f" over the limit of {self.max_message_bytes}",
                {**route, "bytes": size, "limit": self.max_message_bytes},
            )

    async def notify(
        self, operation: McpOperation, method: str, params: dict[str, Any] | None
    ) -> bool:
        """Send `operation`'s notification while it is in flight (see `McpOperation.notify`)."""
        if not operation.active:
            return False
        fields: dict[str, Any] = {}
        if params is not None:
            raw = _encode(params)
            if len(raw) > self.max_message_bytes:
                raise ValueError(
                    f"MCP notification params are {len(raw)} bytes, over the limit of"
                    f" {self.max_message_bytes}"
                )
            fields["params"] = msgspec.Raw(raw)  # encoded once, as the result is
        notification = self.schema.MessageMcpNotification(
            server_id=operation.server_id, request_id=operation.request_id, method=method, **fields
        )
        await self.conn.notify(limits.MCP_MESSAGE, notification)
        return True


def _inner_error(schema: Any, code: int, message: str, data: Any = None) -> Any:
    return schema.MessageMcpResponseError(error=McpProtocolError(code, message, data).to_error())
