"""What the runtime needs from a generated package, written as typing Protocols.

A generated package (`acp_schema`, or one vendored under any name) is passed to a connection as a
module: `AgentSideConnection(handler, reader, writer, schema=my_acp)`. Type checkers accept a
module wherever a Protocol is expected when the module has the Protocol's members, so these
classes are both the runtime's typed view of the package and what lets a checker infer, from the
module alone, which proxy a connection carries and which handler it serves:

    AgentPackage[ClientProxy, AgentHandler]   # what an agent's connection needs
    ClientPackage[AgentProxy, ClientHandler]  # what a client's connection needs

The members follow the package contract (`generated/acp_schema/README.md`). Values that are
protocol data (params, results, the JSON-RPC envelope fields) are `Any`, written inline: a generated
object or decoded JSON, read by the runtime only through `acp_runtime.jsonrpc.wire`, by wire name.

Its Protocols are for type checkers: they exist under `TYPE_CHECKING` only, so import them the same
way. At run time the module holds only the type variables the runtime's generic classes take, each
declared once here (the engine's `PackageT` among them):

    if TYPE_CHECKING:
        from acp_runtime.jsonrpc.package import AgentPackage
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, TypeAlias, TypeVar

from ..jsonrpc import RequestId

if TYPE_CHECKING:
    import acp_schema

TypeForm: TypeAlias = Any
"""A type the package decodes into: a Struct class, a union alias, an enum (None: untyped)."""

ProxyT_co = TypeVar("ProxyT_co", covariant=True)
ProxyT = TypeVar("ProxyT")
HandlerT = TypeVar("HandlerT")


if TYPE_CHECKING:
    # Typing only: nothing below exists at run time (importing acp_runtime stays cheap).

    class Peer(Protocol):
        """What a generated proxy calls: a connection's `request` and `notify`."""

        async def request(self, method: str, params: Any, result_type: TypeForm) -> Any: ...

        async def notify(self, method: str, params: Any) -> None: ...

    class MethodInfoLike(Protocol):
        """One row of the package's method tables."""

        @property
        def method(self) -> str: ...
        @property
        def side(self) -> str: ...
        @property
        def kind(self) -> str: ...
        @property
        def params(self) -> TypeForm: ...
        @property
        def result(self) -> TypeForm: ...
        @property
        def handler(self) -> str: ...

    class ErrorObjectLike(Protocol):
        """The JSON-RPC error object of an `ErrorResponse`."""

        @property
        def code(self) -> int: ...
        @property
        def message(self) -> str: ...
        @property
        def data(self) -> Any: ...

    class NotificationMessage(Protocol):
        """A JSON-RPC notification envelope."""

        def __init__(self, *, method: str, params: Any = ...) -> None: ...
        @property
        def method(self) -> str: ...
        @property
        def params(self) -> Any: ...

    class RequestMessage(NotificationMessage, Protocol):
        """A JSON-RPC request envelope: a notification's members, and its id."""

        def __init__(self, *, id: RequestId, method: str, params: Any = ...) -> None: ...
        @property
        def id(self) -> RequestId: ...

    class ResponseMessage(Protocol):
        """A JSON-RPC success answer."""

        def __init__(self, *, id: RequestId, result: Any) -> None: ...
        @property
        def id(self) -> RequestId: ...
        @property
        def result(self) -> Any: ...

    class ErrorResponseMessage(Protocol):
        """A JSON-RPC error answer (`error` is given as an error object or its dict)."""

        def __init__(self, *, id: RequestId, error: Any) -> None: ...
        @property
        def id(self) -> RequestId: ...
        @property
        def error(self) -> ErrorObjectLike: ...

    class MessageDecoderLike(Protocol):
        """A connection's decoder of incoming messages."""

        def decode(self, data: bytes, /) -> object: ...

    class MessageDecoderFactory(Protocol):
        """`MessageDecoder(side, result_types, lenient=...)`: pending request id -> result type."""

        def __call__(
            self, side: str, result_type: Mapping[Any, TypeForm], /, *, lenient: bool = ...
        ) -> MessageDecoderLike: ...

    class Package(Protocol):
        """The members of a generated package that the runtime uses, on either side."""

        @property
        def METHODS(self) -> Mapping[str, MethodInfoLike]: ...
        @property
        def REQUESTS(self) -> Mapping[str, MethodInfoLike]: ...
        @property
        def NOTIFICATIONS(self) -> Mapping[str, MethodInfoLike]: ...
        @property
        def SIDES(self) -> tuple[str, ...]: ...
        @property
        def Request(self) -> type[RequestMessage]: ...
        @property
        def Notification(self) -> type[NotificationMessage]: ...
        @property
        def Response(self) -> type[ResponseMessage]: ...
        @property
        def ErrorResponse(self) -> type[ErrorResponseMessage]: ...
        @property
        def RpcError(self) -> type[Exception]: ...
        @property
        def MessageDecoder(self) -> MessageDecoderFactory: ...
        @property
        def encode_message(self) -> Callable[[Any], bytes]: ...
        def decode(
            self, data: bytes | str, type: TypeForm, *, lenient: bool = ..., strict: bool = ...
        ) -> Any: ...
        def decode_message(self, data: bytes, side: str) -> object: ...
        def error_for(self, code: int, message: str | None = ..., data: Any = ...) -> Exception: ...

    class AgentPackage(Package, Protocol[ProxyT_co, HandlerT]):
        """A package as an agent uses it: `ClientProxy` calls the client, `AgentHandler` serves."""

        @property
        def ClientProxy(self) -> Callable[[Peer], ProxyT_co]: ...

        AgentHandler: type[HandlerT]

    class ClientPackage(Package, Protocol[ProxyT_co, HandlerT]):
        """A package as a client uses it: `AgentProxy` calls the agent, `ClientHandler` serves."""

        @property
        def AgentProxy(self) -> Callable[[Peer], ProxyT_co]: ...

        ClientHandler: type[HandlerT]

    class RpcException(Exception):
        """The package's `RpcError` as the runtime reads it. Type checkers only: no Protocol can say
        "an exception with these members", so the runtime views one through
        `acp_runtime.jsonrpc.engine.as_rpc_error`."""

        code: int
        message: str
        data: Any
        id: RequestId
        notification: bool

        def to_error_object(self) -> dict[str, Any]: ...

    from typing_extensions import TypeVar as DefaultTypeVar

    PackageT = DefaultTypeVar("PackageT", bound=Package, default=Package)
    """The package type a connection is driven by (`Connection` alone: any package)."""

    # The peer's proxy a connection carries; `acp_schema`'s when not given (PEP 696 defaults, seen
    # by type checkers only), so `conn: AgentSideConnection` means the default package's.
    AgentProxyT = DefaultTypeVar("AgentProxyT", default=acp_schema.AgentProxy)
    ClientProxyT = DefaultTypeVar("ClientProxyT", default=acp_schema.ClientProxy)
else:
    PackageT = TypeVar("PackageT")
    AgentProxyT = TypeVar("AgentProxyT")
    ClientProxyT = TypeVar("ClientProxyT")
