"""The caller of MCP over ACP, on the agent's side: MCP requests to the servers a client (or proxy)
declared with `type: "acp"` in session/new, each one `mcp/message` request on the ACP connection.

    caller = McpCaller(conn, client_info={"name": "my-agent", "version": "1"})
    for server in caller.servers(params):            # session/new's acp entries
        tools = await caller.session(server).list_tools()

and the agent's handler's `mcp_message_notification(params)` hands each `mcp/message`
notification to `caller.mcp_message_notification(params)`, so each reaches the request it names;
one for a request no longer in flight is dropped (counted in `dropped`).

A request's inner params get the MCP 2026-07-28 `_meta` (protocol version, client capabilities,
client info) unless they hold them already. An inner MCP error raises `McpProtocolError`; an outer
one (the binding's, `limits`) raises the package's `RpcError`. Cancelling the awaiting task sends
`$/cancel_request` for the outer request.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, Callable

import msgspec

from ..jsonrpc import wire
from ..jsonrpc.calls import DEFAULT
from . import limits
from .limits import McpProtocolError

log = logging.getLogger("acp_runtime.mcp")


class McpNotification(msgspec.Struct, frozen=True):
    """An inner MCP notification received for a request in flight."""

    method: str
    params: dict[str, Any] | None = None
    envelope_meta: dict[str, Any] | None = None


Listener = Callable[[McpNotification], None]


class AcpServer(msgspec.Struct, frozen=True):
    """A server declared with `type: "acp"`: its name and id."""

    name: str
    server_id: str


def agent_accepts_acp_servers(capabilities: Any) -> bool:
    """Whether an agent's capabilities advertise `acp` MCP servers: v1's
    `mcpCapabilities.acp: true`, or v2's `session.mcp.acp` object."""
    if wire.get(capabilities, "mcpCapabilities", "acp") is True:
        return True
    acp = wire.get(capabilities, "session", "mcp", "acp")
    return acp is not None and acp is not False


class McpCaller:
    """Calls the `acp` MCP servers a peer declared, over one ACP connection (`conn`)."""

    def __init__(
        self,
        conn: Any,
        *,
        client_info: dict[str, Any] | None = None,
        client_capabilities: dict[str, Any] | None = None,
    ) -> None:
        self.conn = conn
        self.client_info = client_info
        self.client_capabilities = client_capabilities if client_capabilities is not None else {}
        self.dropped = 0  # notifications for no request in flight
        self._routes: dict[tuple[str, str], Listener | None] = {}
        self._prefix = f"mcp-request:{uuid.uuid4().hex}"
        self._next = 0

    @property
    def in_flight(self) -> int:
        return len(self._routes)

    def servers(self, session_params: Any) -> list[AcpServer]:
        """The `acp` servers of a session/new (or load, resume, fork) request's `mcpServers`."""
        found = []
        for server in wire.items(session_params, "mcpServers"):
            if wire.get(server, "type") != "acp":
                continue
            name, server_id = wire.get(server, "name"), wire.get(server, "serverId")
            if isinstance(name, str) and isinstance(server_id, str):
                found.append(AcpServer(name, server_id))
        return found

    def session(self, server: AcpServer | str) -> McpServerSession:
        """An MCP client session on one declared server."""
        return McpServerSession(self, server if isinstance(server, str) else server.server_id)

    def new_request_id(self) -> str:
        """A request id never used before by this caller."""
        self._next += 1
        return f"{self._prefix}-{self._next}"

    def with_meta(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """`params` with the per-request MCP `_meta`, keeping what they supply themselves."""
        base = dict(params) if params else {}
        given = base.get("_meta")
        meta = dict(given) if isinstance(given, dict) else {}
        meta.setdefault(limits.META_PROTOCOL_VERSION, limits.MCP_PROTOCOL_VERSION)
        meta.setdefault(limits.META_CLIENT_CAPABILITIES, self.client_capabilities)
        if self.client_info is not None:
            meta.setdefault(limits.META_CLIENT_INFO, self.client_info)
        base["_meta"] = meta
        return base

    async def request(
        self,
        server_id: str,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        request_id: str | None = None,
        on_notification: Listener | None = None,
        envelope_meta: dict[str, Any] | None = None,
        timeout: Any = DEFAULT,
    ) -> Any:
        """One MCP request to `server_id`; returns its inner result. `on_notification` gets the
        notifications of this request while it is in flight."""
        request_id = request_id if request_id is not None else self.new_request_id()
        key = (server_id, request_id)
        if key in self._routes:
            raise ValueError(f"MCP request {request_id!r} is already active for {server_id!r}")
        schema = self.conn.schema
        fields: dict[str, Any] = {}
        if envelope_meta is not None:
            fields["meta"] = envelope_meta
        message = schema.MessageMcpRequest(
            server_id=server_id,
            request_id=request_id,
            method=method,
            params=self.with_meta(params),
            **fields,
        )
        self._routes[key] = on_notification
        try:
            answer = await self.conn.request(limits.MCP_MESSAGE, message, timeout=timeout)
        finally:
            del self._routes[key]
        if isinstance(answer, schema.MessageMcpResponseResult):
            return answer.result
        if isinstance(answer, schema.MessageMcpResponseError) and isinstance(answer.error, dict):
            raise McpProtocolError.from_error(answer.error)
        raise self.conn.rpc_error(
            limits.BACKEND_FAILED, "Invalid MCP-over-ACP response carrier", {"response": answer}
        )

    async def mcp_message_notification(self, params: Any) -> None:
        """Handle an `mcp/message` notification (the agent interface's handler method)."""
        key = (params.server_id, params.request_id)
        if key not in self._routes:
            self.dropped += 1
            log.debug("dropped an MCP notification for no request in flight: %r", key)
            return
        listener = self._routes[key]
        if listener is None:
            return
        inner = params.params if isinstance(params.params, dict) else None
        meta = params.meta if isinstance(params.meta, dict) else None
        try:
            listener(McpNotification(params.method, inner, meta))
        except Exception:
            log.exception("an MCP notification listener failed")


class McpServerSession:
    """An MCP client session on one `acp` server: MCP's tool calls, each an `mcp/message`."""

    def __init__(self, caller: McpCaller, server_id: str) -> None:
        self.caller = caller
        self.server_id = server_id

    async def request(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        return await self.caller.request(self.server_id, method, params, **kw)

    async def discover(self) -> Any:
        """`server/discover`: the server's info and capabilities (MCP 2026-07-28)."""
        return await self.request("server/discover")

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, walking `nextCursor` pages."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = await self.request("tools/list", params)
            tools.extend(wire.items(page, "tools"))
            cursor = wire.get(page, "nextCursor")
            if not isinstance(cursor, str):
                return tools
            params = {"cursor": cursor}

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        on_notification: Listener | None = None,
    ) -> dict[str, Any]:
        """`tools/call`; its result (`content`, `isError` ...)."""
        result = await self.request(
            "tools/call",
            {"name": name, "arguments": arguments or {}},
            on_notification=on_notification,
        )
        if not isinstance(result, dict):
            raise McpProtocolError(limits.MCP_INVALID_PARAMS, "tools/call result is not an object")
        return result
