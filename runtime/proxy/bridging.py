"""MCP over ACP through the conductor (the Proxy Chains RFD): `acp` MCP servers that a proxy (or
the client) provides, for a final agent whether or not it speaks that transport.

The conductor always advertises the `acp` MCP transport in the agent's `initialize` answer, at
the place the schema gives it (v1 `agentCapabilities.mcpCapabilities.acp`, v2
`capabilities.session.mcp.acp`: found by walking the package's types, never by revision). When
the agent advertises it itself, nothing else changes. When it does not:

- each `acp` entry of a request to the agent that takes `mcpServers` (session/new, load, ...)
  becomes an `http` entry on the loopback bridge (`runtime/mcp/bridge.py`: 127.0.0.1, a bearer
  token per server), when the agent takes `http` MCP servers; else it is dropped, with a notice
  naming it (the guard of `runtime/protocol/guards.py` refuses `acp` servers to such an agent);
- each bridge request is an `mcp/message` request sent into the chain as if from the agent, so the
  proxy that declared the server answers it; the `mcp/message` notifications sent toward the agent
  go to the bridge's caller instead.

Only those requests, the agent's initialize answer and those notifications are decoded; all else
stays routed by the envelope.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from msgspec import inspect

from ..jsonrpc import wire
from ..mcp.caller import McpCaller
from ..mcp.limits import MCP_MESSAGE
from ..protocol.guards import supported
from .envelope import UNSET, Envelope, decode

if TYPE_CHECKING:
    from ..mcp.bridge import McpBridge

Path = tuple[str, ...]


class Deliver(Protocol):
    def __call__(
        self,
        target: int,
        from_successor: bool,
        source: Any,
        request_id: Any,
        method: str,
        params: msgspec.Raw,
    ) -> None: ...


class _Error(msgspec.Struct):
    code: int
    message: str
    data: Any = UNSET


def _tag(struct: Any) -> str:
    tag: str = struct.__struct_config__.tag
    return tag


def _members(info: inspect.Type) -> list[inspect.Type]:
    if isinstance(info, inspect.UnionType):
        return list(info.types)
    return [info]


def capabilities_path(schema: ModuleType, method: str) -> tuple[Path, dict[str, Any]] | None:
    """Where the result of `method` (initialize) holds the MCP transports an agent takes: the
    path of encoded names to the object whose fields are the transports' tags (`acp`, `http`),
    and for each such field whether it is a bool (else an object); None if it has none."""
    wanted = {_tag(schema.McpServerAcp), _tag(schema.McpServerHttp)}
    seen: set[Any] = set()

    def find(info: inspect.Type, path: Path) -> tuple[Path, dict[str, Any]] | None:
        for member in _members(info):
            if not isinstance(member, inspect.StructType) or member.cls in seen:
                continue
            seen.add(member.cls)
            fields = {f.encode_name: f.type for f in member.fields}
            if wanted <= fields.keys():
                kinds = {
                    name: any(isinstance(t, inspect.BoolType) for t in _members(fields[name]))
                    for name in wanted
                }
                return path, kinds
            for field in member.fields:
                found = find(field.type, (*path, field.encode_name))
                if found is not None:
                    return found
        return None

    return find(inspect.type_info(schema.methods.REQUESTS[method].result), ())


def server_list_fields(schema: ModuleType) -> dict[str, str]:
    """The agent's requests whose params take a list of MCP servers (an `acp` one among them),
    with that field's encoded name."""
    found = {}
    for method, info in schema.methods.REQUESTS.items():
        if info.side != "agent":
            continue
        params = inspect.type_info(info.params)
        if not isinstance(params, inspect.StructType):
            continue
        for field in params.fields:
            for member in _members(field.type):
                if isinstance(member, (inspect.ListType, inspect.VarTupleType)) and any(
                    _is_server(schema, t) for t in _members(member.item_type)
                ):
                    found[method] = field.encode_name
    return found


def _is_server(schema: ModuleType, info: inspect.Type) -> bool:
    """An MCP server entry: the package's `McpServer` (an open union: a custom type) or a
    union with its `acp` member."""
    if isinstance(info, inspect.CustomType):
        return info.cls is schema.McpServer
    return isinstance(info, inspect.StructType) and info.cls is schema.McpServerAcp


class ChainConnection:
    """What `McpCaller` needs of a connection, on the conductor: each request goes into the chain
    as the agent's, to position `agent - 1`, and its answer comes back to `link`."""

    def __init__(self, schema: ModuleType, deliver: Deliver, agent: int) -> None:
        self.schema = schema
        self.rpc_error_type = schema.errors.RpcError
        self.deliver = deliver
        self.agent = agent
        self.link: Any = None  # set by ChainMcp.open
        self.ids = itertools.count(1)
        self.waiting: dict[Any, asyncio.Future[Envelope]] = {}

    def rpc_error(self, code: int, message: str, data: Any = UNSET) -> Exception:
        error: Exception = self.rpc_error_type(message, data, code=code)
        return error

    async def request(self, method: str, params: Any, timeout: Any = None) -> Any:
        request_id = next(self.ids)
        future: asyncio.Future[Envelope] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        raw = msgspec.Raw(self.schema.codec.encode(params))
        self.deliver(self.agent - 1, True, self.link, request_id, method, raw)
        try:
            env = await future
        finally:
            self.waiting.pop(request_id, None)
        if env.error:
            err = msgspec.json.decode(env.error, type=_Error)
            raise self.rpc_error(err.code, err.message, err.data)
        result_type = self.schema.methods.REQUESTS[method].result
        return self.schema.codec.decode(env.result or b"null", result_type, lenient=True)

    def answered(self, data: bytes) -> None:
        """An answer the conductor routes back to the bridge (`link`'s write)."""
        env = decode(data)
        future = self.waiting.get(env.id)
        if future is not None and not future.done():
            future.set_result(env)

    def close(self) -> None:
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the proxy chain ended"))


class ChainMcp:
    """The conductor's MCP-over-ACP part (see the module doc) for one chain."""

    def __init__(
        self,
        schemas: list[ModuleType],
        initialize: str,
        notice: Callable[[str], None],
    ) -> None:
        self.schemas = schemas
        self.initialize = initialize
        self.notice = notice
        self.schema: ModuleType | None = None
        self.bridging = False  # the agent lacks the acp transport
        self.agent_http = False
        self.connection: ChainConnection | None = None
        self.bridge: McpBridge | None = None
        self.caller: McpCaller | None = None

    def agent_initialized(self, result: msgspec.Raw) -> msgspec.Raw:
        """The agent's initialize answer, the acp transport advertised in it."""
        try:
            value = msgspec.json.decode(result or b"null")
        except msgspec.DecodeError:
            return result
        if not isinstance(value, dict):
            return result
        schema, found = self._package(value)
        if schema is None or found is None:
            return result
        path, kinds = found
        acp, http = _tag(schema.McpServerAcp), _tag(schema.McpServerHttp)
        transports = wire.get(value, *path)
        if supported(wire.get(transports, acp)):  # v1's `true`, v2's object
            return result
        self.schema, self.bridging = schema, True
        self.agent_http = supported(wire.get(transports, http))
        node = value
        for name in path:
            child = node.get(name)
            if not isinstance(child, dict):
                child = node[name] = {}
            node = child
        node[acp] = True if kinds[acp] else {}
        return msgspec.Raw(msgspec.json.encode(value))

    def _package(self, value: dict[str, Any]) -> tuple[Any, Any]:
        """The package whose initialize answer this is: the first whose capabilities' path
        starts in it, else the first that has one."""
        first: tuple[Any, Any] = (None, None)
        for schema in self.schemas:
            found = capabilities_path(schema, self.initialize)
            if found is None:
                continue
            if found[0][:1] and found[0][0] in value:
                return schema, found
            if first[0] is None:
                first = (schema, found)
        return first

    def open(
        self, deliver: Deliver, agent: int, make_link: Callable[[Callable[[bytes], None]], Any]
    ) -> None:
        """Start the bridge (the `mcp` extra's Hypercorn) for an agent that takes http; its
        requests come from a link of the conductor, `make_link(write)`."""
        assert self.schema is not None
        from ..mcp.bridge import McpBridge  # the mcp extra, only when it bridges

        self.connection = ChainConnection(self.schema, deliver, agent)
        self.connection.link = make_link(self.connection.answered)
        self.caller = McpCaller(self.connection, client_info={"name": "acp-conductor"})
        self.bridge = McpBridge(self.caller)
        self.bridge.open_now()

    def to_agent(self, method: str, request_id: Any, params: msgspec.Raw) -> msgspec.Raw | None:
        """What goes to the agent instead of `params` (None: nothing goes)."""
        schema = self.schema
        if not self.bridging or schema is None:
            return params
        if method == MCP_MESSAGE and request_id is UNSET:  # for a bridge request, if any
            info = schema.methods.NOTIFICATIONS[MCP_MESSAGE]
            try:
                note = schema.codec.decode(params or b"null", info.params, lenient=True)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                self.notice(f"an {MCP_MESSAGE} notification toward the agent is dropped: {exc}")
                return None
            if self.caller is not None:  # (one for no bridge request is dropped, counted)
                asyncio.ensure_future(self.caller.mcp_message_notification(note))
            return None
        field = server_list_fields(schema).get(method)
        if field is None:
            return params
        try:
            value = msgspec.json.decode(params or b"null")
        except msgspec.DecodeError:
            return params
        servers = value.get(field) if isinstance(value, dict) else None
        if not isinstance(servers, list):
            return params
        acp = _tag(schema.McpServerAcp)
        if not any(wire.get(s, "type") == acp for s in servers):
            return params
        value[field] = [
            self._bridged(s, method) if wire.get(s, "type") == acp else s for s in servers
        ]
        value[field] = [s for s in value[field] if s is not None]
        return msgspec.Raw(msgspec.json.encode(value))

    def _bridged(self, server: dict[str, Any], method: str) -> Any:
        schema = self.schema
        assert schema is not None
        name, server_id = server.get("name"), server.get("serverId")
        bridge = self.bridge
        if bridge is None or not isinstance(server_id, str) or not isinstance(name, str):
            if not self.agent_http:
                why = "the agent takes neither acp nor http MCP servers"
            elif bridge is None:
                why = "the agent takes http MCP servers, but the MCP bridge could not be opened"
            else:
                why = "the entry has no string name and serverId"
            self.notice(
                f"{why}: the acp MCP server {name!r} ({server_id!r}) of {method} is dropped"
            )
            return None
        endpoint = bridge.expose(server_id)
        headers = [schema.HttpHeader(name=k, value=v) for k, v in endpoint.headers.items()]
        entry = schema.McpServerHttp(name=name, url=endpoint.url, headers=headers)
        return msgspec.json.decode(schema.codec.encode(entry))

    async def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
        if self.bridge is not None:
            await self.bridge.close()
