"""The agent side: serves the generated Agent handler interface and calls the client."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar, overload

from . import negotiation, rules, wire
from .connection import Connection, as_rpc_error
from .errors import CapabilityError, ProtocolError
from .framing import ByteReader, ByteWriter
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND

if TYPE_CHECKING:
    from typing_extensions import Unpack

    import acp_schema

    from .connection import ConnectionOptions
    from .package import AgentPackage, ClientProxyT, HandlerT, ProxyT, RequestMessage

    _Base = Connection[AgentPackage[ClientProxyT, Any]]
else:  # at run time: a plain type variable (type checkers see its default, acp_schema's proxy)
    ClientProxyT = TypeVar("ClientProxyT")
    _Base = Connection


class AgentSideConnection(_Base[ClientProxyT], Generic[ClientProxyT]):
    """An agent's end of a connection.

    `handler` serves what the agent receives: an object with the generated `AgentHandler` methods
    (`session_prompt(params)` ...), plus `ext_method(name, params)` / `ext_notification(name,
    params)` for `_` extensions. Pass a class or a function instead to have it built with this
    connection as its only argument, so it can keep `conn.client`, the generated `ClientProxy`.

    Typed: `conn.client` is the package's `ClientProxy` (`AgentSideConnection` alone means
    `acp_schema`'s; `AgentSideConnection[my_acp.ClientProxy]` another package's, inferred from
    `schema=my_acp`), and the handler is an instance of the package's `AgentHandler` or a factory
    taking this connection and returning one.

    `initialize` is answered by the runtime's rules around the handler: the protocol version is
    negotiated from `protocol_versions` (the requested one if supported, else the latest) and
    written into the handler's response; a handler that does not implement `initialize` gets a
    response with the version alone. Until initialize has been answered, other requests get
    -32600. Calls to the client are refused locally (`CapabilityError`, nothing sent) when the
    client did not advertise them (fs/*, terminal/*, elicitation modes) or a path is relative, and
    so is history sent to a session while its session/resume is served (`ProtocolError`); a
    session/new or session/fork answering the id of a session already created, loaded, resumed,
    forked or listed on this connection is answered -32603 (uniqueness across connections is the
    application's). `enforce_protocol=False` turns every such rule off.
    """

    side = "agent"

    if TYPE_CHECKING:

        @overload
        def __init__(
            self: AgentSideConnection[acp_schema.ClientProxy],
            handler: (
                acp_schema.AgentHandler
                | Callable[[AgentSideConnection[acp_schema.ClientProxy]], acp_schema.AgentHandler]
            ),
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: None = None,
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

        @overload
        def __init__(
            self: AgentSideConnection[ProxyT],
            handler: HandlerT | Callable[[AgentSideConnection[ProxyT]], HandlerT],
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: AgentPackage[ProxyT, HandlerT],
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

        def __init__(
            self,
            handler: object,
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: AgentPackage[Any, Any] | None = None,
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

    def _setup(self) -> None:
        self.client: ClientProxyT = self.schema.ClientProxy(self)
        self.client_info: Any = None
        self._sessions_known: set[Any] = set()  # ids of the sessions created, named or listed here
        self._v2_setup()

    def _bound(self) -> None:
        self.client = self.schema.ClientProxy(self)

    def _v2_setup(self) -> None:
        # ACP v2 turns: session -> the user messageId its prompt answer acknowledged; the sessions
        # whose turn is open (answered, no idle yet); those of them a session/cancel has reached
        self._acknowledged: dict[Any, Any] = {}
        self._open_turns: set[Any] = set()
        self._cancelling: set[Any] = set()

    def _cancel_turn(self, params: Any) -> None:
        session_id = wire.get(params, rules.SESSION_ID)
        if self._v2 and (
            session_id in self._open_turns
            or any(  # a prompt being answered: the turn it opens is cancelled
                s.method == rules.SESSION_PROMPT and s.session_id == session_id
                for s in self._serving.values()
            )
        ):
            self._cancelling.add(session_id)
        super()._cancel_turn(params)

    def _turn_update_sent(self, params: Any) -> None:
        """What a v2 session/update does to its session's turn: the acknowledged user message is
        reported, an idle state ends the turn."""
        session_id = wire.get(params, rules.SESSION_ID)
        update = wire.get(params, rules.SESSION_UPDATE_FIELD)
        kind = wire.get(update, rules.UPDATE_KIND[1])
        if kind in rules.USER_MESSAGE_KINDS:
            self._acknowledged.pop(session_id, None)
        elif kind == rules.STATE_UPDATE and wire.get(update, rules.STATE) == rules.IDLE:
            self._open_turns.discard(session_id)
            self._cancelling.discard(session_id)

    def _turn_breaks(self, params: Any) -> str | None:
        """Why a session/update breaks the v2 turn lifecycle, or None."""
        session_id = wire.get(params, rules.SESSION_ID)
        update = wire.get(params, rules.SESSION_UPDATE_FIELD)
        kind = wire.get(update, rules.UPDATE_KIND[1])
        if kind in rules.USER_MESSAGE_KINDS and session_id in self._acknowledged:
            expected = self._acknowledged[session_id]
            if wire.get(update, rules.MESSAGE_ID) != expected:
                return rules.v2_rule(
                    "user-message",
                    f"the turn's user message is {expected!r}, as the prompt answer acknowledged",
                )
        if kind != rules.STATE_UPDATE or wire.get(update, rules.STATE) != rules.IDLE:
            return None
        if any(
            s.method == rules.SESSION_PROMPT and s.session_id == session_id and not s.answered
            for s in self._serving.values()
        ):
            return rules.v2_rule(
                "prompt-acknowledges",
                "the turn ends after the session/prompt answer, which only acknowledges it",
            )
        stop = wire.get(update, rules.STOP_REASON)
        if session_id in self._cancelling and stop != rules.CANCELLED:
            return rules.v2_rule(
                "cancel-confirmed",
                f"after session/cancel the turn ends idle with stopReason cancelled, not {stop!r}",
            )
        return None

    def _receive(self, line: bytes) -> None:
        if not self._routed and isinstance(self.versions, negotiation.AgentRoutes):  # by initialize
            requested = negotiation.requested_version(line)
            if type(requested) is int:
                self._route(self.versions.choose(requested))
                if requested not in self.versions.routes:
                    self._receive_newer_initialize(line)
                    return
        super()._receive(line)

    def _receive_newer_initialize(self, line: bytes) -> None:
        """An initialize asking for a version this agent does not speak: answered with its latest
        version, the params read in any shape of a version it speaks that fits them (its latest
        first); -32602 naming each version's reason when none does."""
        assert self.versions is not None
        message, refusals = negotiation.read_newer_initialize(
            self.versions.routes, self.side, line, lenient=self.lenient
        )
        self._observe("in", line, message)
        if message is not None:
            self._on_request(message)
            return
        if not refusals:  # nested too deep for the decoder: as any other message
            super()._receive(line)
            return
        why = "; ".join(f"as version {v}: {as_rpc_error(err).message}" for v, err in refusals)
        err = self._error(
            INVALID_PARAMS,
            f"Invalid params: no protocol version this agent speaks reads them ({why})",
            {str(v): as_rpc_error(e).to_error_object() for v, e in refusals},
        )
        self._send_error_nowait(as_rpc_error(refusals[0][1]).id, err)

    async def _dispatch_request(self, request: RequestMessage) -> Any:
        if request.method == rules.INITIALIZE:
            return await self._initialize(request)
        result = await super()._dispatch_request(request)
        if self.enforce_protocol:  # 24: a unique session id, per connection
            reason = rules.reused_session_id(
                request.method, request.params, result, self._sessions_known
            )
            if reason is not None:
                raise ProtocolError(
                    f"{request.method}: {reason}; each session gets a unique id"
                    " (ACP v1 requirement 24)"
                )
            self._sessions_known.update(
                rules.sessions_known_after(request.method, request.params, result)
            )
        if self._v2 and request.method == rules.SESSION_PROMPT:  # the turn goes on after it
            session_id = wire.get(request.params, rules.SESSION_ID)
            self._acknowledged[session_id] = wire.get(result, rules.MESSAGE_ID)
            self._open_turns.add(session_id)
        return result

    def turn_cancelled(self, session_id: Any) -> bool:
        """Whether a `session/cancel` (or `session/close`) reached the open v2 turn of a session."""
        return session_id in self._cancelling

    def track_turn(self, session_id: Any, task: asyncio.Task[Any]) -> None:
        super().track_turn(session_id, task)
        if session_id in self._cancelling:  # the cancel came before the turn's work started
            task.cancel()

    def _outgoing(self, method: str, params: Any) -> Any:
        if method != rules.SESSION_UPDATE:
            return super()._outgoing(method, params)
        if self._message_kinds:
            reason = rules.missing_message_id(params, self._message_kinds)
            if reason is not None:
                raise ProtocolError(f"{method}: {reason}")
        params = super()._outgoing(method, params)
        if self._v2:
            reason = self._turn_breaks(params)
            if reason is not None and self.enforce_protocol:
                raise ProtocolError(f"{method}: {reason}")
            if reason is None or not self.enforce_protocol:
                self._turn_update_sent(params)
        if (
            self.enforce_protocol
            and self._serving
            and any(s.method == rules.NO_HISTORY_DURING for s in self._serving.values())
            and wire.get(params, *rules.UPDATE_KIND) in rules.HISTORY
        ):  # 33
            session_id = wire.get(params, rules.SESSION_ID)
            if any(
                s.method == rules.NO_HISTORY_DURING and s.session_id == session_id
                for s in self._serving.values()
            ):
                raise ProtocolError(
                    f"{method}: session {session_id!r} is being resumed, which replays no history"
                )
        return params

    async def _initialize(self, request: RequestMessage) -> Any:
        params = request.params
        requested = wire.get(params, rules.PROTOCOL_VERSION)
        version = requested if requested in self.protocol_versions else self.protocol_versions[-1]
        if not self._routed:  # not routed by the line (never for a valid initialize): as chosen
            self._route(version)
        self.protocol_version = version
        self.peer_initialize = params
        self.client_info = rules.info_of(params, "client")
        try:
            result = await self._call_handler(request, is_request=True)
        except self.schema.RpcError as err:
            if as_rpc_error(err).code != METHOD_NOT_FOUND:
                raise
            result = None
        info = self.schema.REQUESTS[rules.INITIALIZE]
        if self._v2 and self.enforce_protocol:
            reason = rules.initialize_breaks(result) or rules.promises_breaks(
                result, self.handler, self.schema.AgentHandler, self.schema
            )
            if reason is not None:
                raise ProtocolError(f"{rules.INITIALIZE}: the handler's answer breaks {reason}")
        if result is None:
            result = wire.build(self.schema, {rules.PROTOCOL_VERSION: version}, info.result)
        else:
            result = wire.replace(result, rules.PROTOCOL_VERSION, version)
        for check in self._result_guards.get(rules.INITIALIZE, ()):
            reason = check(result, self.peer_initialize)
            if reason is not None:
                raise CapabilityError(
                    rules.INITIALIZE, f"the handler's result breaks a protocol rule: {reason}"
                )
        self.own_initialize = result
        self.initialized = True
        return result
