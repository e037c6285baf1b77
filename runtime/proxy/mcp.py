"""MCP servers a proxy provides to the agent behind it (MCP over ACP through a chain).

    class Notes(Proxy[acp.AgentProxy, acp.ClientProxy]):
        def __init__(self) -> None:
            self.mcp = McpProvider(ProxyMcpConnection(self, acp))
            self.notes = self.mcp.register("notes", backend)

        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            params.mcp_servers = [*params.mcp_servers, *self.mcp.declarations]
            return await self.successor.session_new(params)

        async def mcp_message(self, params: acp.MessageMcpRequest) -> acp.MessageMcpResponse:
            if params.server_id in self.mcp.servers:
                return await self.mcp.mcp_message(params)
            return await self.predecessor.mcp_message(params)  # another hop's server

The `mcp/message` requests for the proxy's servers come back from its successor (through the
conductor, in `proxy/successor`); the provider's request-scoped notifications go to the
successor. The conductor advertises the `acp` transport to every proxy and bridges it for an
agent that lacks it (bridging.py), so the proxy need not look at the agent's capabilities.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..jsonrpc.framing import DEFAULT_MAX_LINE_BYTES
from .base import Proxy


class ProxyMcpConnection:
    """What `acp_runtime.mcp.McpProvider` needs of a connection, on a proxy: the package, its
    errors, and notifications sent to the successor by the method's typed call."""

    max_line_bytes = DEFAULT_MAX_LINE_BYTES

    def __init__(self, proxy: Proxy[Any, Any], schema: ModuleType) -> None:
        self.proxy = proxy
        self.schema = schema
        self.rpc_error_type = schema.errors.RpcError

    def rpc_error(self, code: int, message: str, data: Any = None) -> Exception:
        error: Exception = self.rpc_error_type(message, data, code=code)
        return error

    async def notify(self, method: str, params: Any) -> None:
        """Send `method` (a notification the agent's side receives) to the successor."""
        info = self.schema.methods.NOTIFICATIONS[method]
        if info.side != "agent":
            raise ValueError(f"{method} is not a notification the agent receives")
        await getattr(self.proxy.successor, info.handler)(params)
