"""acp_runtime.http: ACP over Streamable HTTP and WebSocket (the `http` extra).

    from acp_runtime.http import AcpApp, connect_agent, serve

    await serve(AcpApp(MyAgent), "127.0.0.1:8000")                   # agent: http://.../acp and ws://.../acp
    async with connect_agent("http://127.0.0.1:8000/acp", MyClient()) as conn:  # client
        ...

Implements `rfds/streamable-http-websocket-transport.mdx`. Importing `acp_runtime` never imports
this package (nor Hypercorn, httpx or websockets); see docs/runtime.md, "Remote agents".
"""

from .client import connect_agent, reattach_session
from .connections import RemoteAgentConnection
from .guard import CONNECTION_ID_HEADER, SESSION_ID_HEADER, RequestInfo
from .remote import RefusedConnectionError
from .serve import config, listen_socket, run, serve, url_of
from .server import AcpApp

__all__ = [
    "AcpApp",
    "CONNECTION_ID_HEADER",
    "RefusedConnectionError",
    "RemoteAgentConnection",
    "RequestInfo",
    "SESSION_ID_HEADER",
    "config",
    "connect_agent",
    "listen_socket",
    "reattach_session",
    "run",
    "serve",
    "url_of",
]
