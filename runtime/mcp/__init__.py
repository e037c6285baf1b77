"""MCP over ACP (`mcp/message`): MCP servers provided by one side of an ACP connection (the
client, or a proxy) and called by the other (the agent), the connection itself their transport.

`McpProvider` serves servers (`provider.py`), `McpCaller` calls them (`caller.py`), `limits` holds
the binding's codes and bounds. These import msgspec only; the adapters to the official `mcp`
SDK (`acp_runtime.mcp.sdk`) and the loopback HTTP bridge need the `mcp` extra. See docs/runtime.md.
"""

from .caller import AcpServer, McpCaller, McpNotification, McpServerSession
from .caller import agent_accepts_acp_servers as agent_accepts_acp_servers
from .limits import MAX_ACTIVE_REQUESTS, MAX_MESSAGE_BYTES, MCP_MESSAGE, McpProtocolError
from .provider import Backend, McpOperation, McpProvider, McpRegistration

__all__ = [
    "AcpServer",
    "Backend",
    "MAX_ACTIVE_REQUESTS",
    "MAX_MESSAGE_BYTES",
    "MCP_MESSAGE",
    "McpCaller",
    "McpNotification",
    "McpOperation",
    "McpProtocolError",
    "McpProvider",
    "McpRegistration",
    "McpServerSession",
    "agent_accepts_acp_servers",
]
