"""ACP as policy: the protocol rules a connection applies around its JSON-RPC engine.

A connection holds one policy, made for the package (the protocol version) it is bound to and for
its side (`AgentPolicy`, `ClientPolicy`); binding to another package (version negotiation) makes a
new one. The engine knows no ACP method: it calls the policy through a few hooks:

- `before_send(method, params)`: capability guards, initialize first, interactions, session rules;
  returns the params to send (checked and typed by the engine's `checked_params`);
- `sent(method, params)`: a call or notification went out (a cancel ends a turn);
- `received_request(request)` / `received_notification(note)` as a message arrives (False: drop
  the notification), and `notification_step(method)`: what runs before its handler, and which;
- `serve(request)`: the handler's answer to a request, checked (guards, answer checks, sessions),
  and `handle(note)`: a notification's handler (both through `dispatch`, to the handler the
  connection shares with its policies, its `ConnectionState`);
- `on_result(method, params, result)`: the peer's answer to one of our calls, checked and recorded.

What differs between protocol versions comes from the package's plan as data (`PackagePlan`,
guards.py): its tables, its initialize checks, the methods it removed, and how its turns end: in
ACP v1 with the `session/prompt` answer (nothing to track), in ACP v2 with a `state_update` to idle
after it (whose lifecycle rules the agent's policy enforces).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Container, Mapping

from ..jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, wire
from ..jsonrpc.calls import Policy, Step
from ..jsonrpc.errors import CapabilityError, NotInitializedError, ProtocolError
from ..jsonrpc.tracing import extract
from . import rules

if TYPE_CHECKING:
    from ..jsonrpc.engine import Engine
    from ..jsonrpc.package import NotificationMessage, RequestMessage
    from ..jsonrpc.serving import Serving
    from .guards import PackagePlan


_NO_GUARDS: Mapping[str, Any] = {}
_TURN_ENDED_BY = rules.TURN_ENDED_BY

SendCheck = Callable[[str, Any], None]
SendStep = Callable[[str, Any], Any]  # a check that returns the params to send (or others)
Answer = Callable[[Any], Awaitable[Any]]
AfterServe = Callable[[Any, Any], None]
Reason = Callable[[Any, Any], "str | None"]
# `serve`'s steps of a method: the side's own answer, before initialize, guards, result guards,
# answer check, the side's bookkeeping; `before_send`'s: the side's first check, why it is removed,
# before initialize, guards, whether it completes an interaction, the side's last check
_ServeSteps = tuple[
    "Answer | None", bool, "tuple[Reason, ...]", bool, "Reason | None", "AfterServe | None"
]
SendSteps = tuple["SendStep | None", bool, "tuple[Reason, ...]", bool, "SendCheck | None"]


class ConnectionState:
    """What a connection shares with each policy it is bound to in turn (a base of `Connection`:
    the connection is its own state): its handler, and the initialize messages, the peer's and
    its own, once known."""

    handler: object = None  # what serves the messages this side receives (built)
    initialized = False  # whether initialize has completed on this connection
    peer_initialize: Any = None  # the peer's initialize message (request or result)
    own_initialize: Any = None  # this side's


class AcpPolicy(Policy):
    """The rules both sides apply, from the plan of the connection's package. With
    `enforce=False` none is checked (interactions and turns are still tracked)."""

    def __init__(
        self, engine: Engine[Any], state: ConnectionState, plan: PackagePlan, enforce: bool
    ) -> None:
        self.engine = engine
        self.checked_params = engine.checked_params  # (its engine's, bound to this package)
        self.state = state
        self.plan = plan
        self.enforce = enforce
        tables = plan.side(engine.side)
        # the handler method of each method this side serves (never another side's)
        self.handlers = (tables.notification_handlers, tables.request_handlers)
        self.requires_initialize = enforce and plan.requires_initialize
        self.send_guards = tables.send_guards if enforce else _NO_GUARDS
        self.receive_guards = tables.receive_guards if enforce else _NO_GUARDS
        self.result_guards = tables.result_guards if enforce else _NO_GUARDS
        self.turn_cancels = tables.turn_cancels
        self.answer_checks = plan.answer_checks if enforce else _NO_GUARDS
        self.completions = plan.completions if enforce else ()
        self.completing = plan.completing if enforce else frozenset()
        self.message_kinds = plan.message_kinds if enforce else frozenset()
        self.removed = plan.removed if enforce else None
        self.open_keys: dict[str, OrderedDict[Any, None]] = {
            c.closer: OrderedDict() for c in self.completions
        }
        # the notifications `received_notification` acts on (any other passes untouched), and
        # the requests `received_request` acts on (the agent's policy watches one more)
        self.watched = self.requests_watched = _TURN_ENDED_BY | self.completing
        self.sends_watched: Container[str] | None = _TURN_ENDED_BY  # `sent`'s
        self._send_steps: dict[str, SendSteps] = {}  # by method, made at its first send
        self._serve_steps: dict[str, _ServeSteps] = {}  # by method, made at its first request

    def serving_in(self, method: str, session_id: Any) -> list[Serving]:
        """The requests of `method` in that session this side is serving."""
        return [
            s
            for s in self.engine.serving.values()
            if s.request.method == method
            and wire.get(s.request.params, rules.SESSION_ID) == session_id
        ]

    # --- sending ----------------------------------------------------------------------------------

    def before_send(self, method: str, params: Any) -> Any:
        """Check an outgoing call or notification; returns the params to send."""
        steps = self._send_steps.get(method) or self._steps(method)
        before, before_initialize, guards, completing, after = steps
        if before is not None:  # a side's own first step: it may replace the params
            params = before(method, params)
        if self.enforce:
            params = self.checked_params(method, params)
        state = self.state
        if not before_initialize and not state.initialized:
            raise NotInitializedError(f"{method}: initialize has not completed on this connection")
        if guards:
            initialize = state.peer_initialize
            for check in guards:
                reason = check(params, initialize)
                if reason is not None:
                    raise CapabilityError(method, reason)
        if completing and not self.track_interaction(method, params, sending=True):
            raise ProtocolError(
                f"{method}: it completes an interaction this side never opened on this connection"
            )
        if after is not None:
            after(method, params)
        return params

    def _steps(self, method: str) -> SendSteps:
        """What `before_send` does with `method` (kept for the package's methods, worked out at
        its first send): the side's checks before the others (`around_send`), whether it may go
        before initialize, its guards, whether it completes an interaction, and the side's checks
        of the checked params. A method the package removed (v2) is refused here: no package
        method is, so none is kept."""
        removed = self.removed(self.plan.schema, method) if self.removed is not None else None
        if removed is not None:
            raise ProtocolError(f"{method}: {removed}")
        before, after = self.around_send(method)
        steps = (
            before,
            not (self.requires_initialize and method not in rules.ALLOWED_BEFORE_INITIALIZE),
            tuple(self.send_guards.get(method, ())),
            method in self.completing,
            after,
        )
        if method in self.plan.schema.METHODS:  # not any name a caller makes up: a bounded table
            self._send_steps[method] = steps
        return steps

    def around_send(self, method: str) -> tuple[SendStep | None, SendCheck | None]:
        """A side's own checks of an outgoing `method`, before the others (returning the params
        to send, the same or others) and after them (on the checked params); they raise to refuse
        it."""
        return None, None

    def sent(self, method: str, params: Any) -> None:
        if method in _TURN_ENDED_BY:
            self.cancel_turn(params)

    # --- receiving --------------------------------------------------------------------------------

    def received_request(self, method: str, params: Any) -> None:
        if method in self.completing:
            self.track_interaction(method, params, sending=False)
        if method in _TURN_ENDED_BY:
            self.cancel_turn(params)

    def received_notification(self, method: str, params: Any) -> bool:
        """False: drop it (it completes an interaction unknown or already completed here)."""
        if method not in self.watched:
            return True
        if method in rules.TURN_ENDED_BY:
            self.cancel_turn(params)
            return True
        return self.track_interaction(method, params, sending=False)

    def notification_step(self, method: str) -> tuple[Step | None, Step | None]:
        return None, self.notification_handler(method)

    def handle(self, message: Any) -> Awaitable[Any]:
        return self.dispatch(message, is_request=False)

    # --- serving ----------------------------------------------------------------------------------

    def serve(self, request: Any) -> Awaitable[Any]:
        """The handler's answer to a request, checked against the rules: it is refused at once
        when the rules refuse the request; when nothing is checked of its result, it is the
        handler's own awaitable (no coroutine of ours around it)."""
        method = request.method
        steps = self._serve_steps.get(method) or self._serve_plan(method)
        instead, before_initialize, guards, result_guards, answer_check, after = steps
        if instead is not None:
            return instead(request)
        state = self.state
        if not before_initialize and not state.initialized:
            raise self.engine.rpc_error(
                INVALID_REQUEST, "Invalid request: initialize must be called first"
            )
        if guards:
            for check in guards:
                reason = check(request.params, state.own_initialize)
                if reason is not None:
                    raise self.engine.rpc_error(
                        INVALID_PARAMS, "Invalid params", {"message": reason}
                    )
        answer = self.dispatch(request, is_request=True)
        if not result_guards and answer_check is None and after is None:
            return answer
        return self._checked(request, answer, steps)

    async def _checked(self, request: Any, answer: Awaitable[Any], steps: _ServeSteps) -> Any:
        """The handler's result, checked: its guards, its fit to the request, the side's own."""
        _, _, _, result_guards, answer_check, after = steps
        result = await answer
        if result_guards:
            self.check_result(request.method, result)
        reason = answer_check(request.params, result) if answer_check is not None else None
        if reason is not None:
            raise CapabilityError(
                request.method, f"the handler's result does not fit the request: {reason}"
            )
        if after is not None:
            after(request, result)
        return result

    def _serve_plan(self, method: str) -> _ServeSteps:
        """What `serve` does with a request of `method` (kept for the package's methods): the
        side's own answer instead (`around_serve`), whether it may come before initialize, its
        guards, whether its result has guards, its answer check, and the side's bookkeeping of a
        result that passed."""
        instead, after = self.around_serve(method)
        steps = (
            instead,
            not (self.requires_initialize and method not in rules.ALLOWED_BEFORE_INITIALIZE),
            tuple(self.receive_guards.get(method, ())),
            bool(self.result_guards.get(method)),
            self.answer_checks.get(method),
            after,
        )
        if method in self.plan.schema.METHODS:  # not any name a peer makes up: a bounded table
            self._serve_steps[method] = steps
        return steps

    def around_serve(self, method: str) -> tuple[Answer | None, AfterServe | None]:
        """A side's own answer to a request of `method` instead of its handler's, and its
        bookkeeping of a result that passed every check (it raises to refuse it)."""
        return None, None

    def check_result(self, method: str, result: Any) -> None:
        for check in self.result_guards.get(method, ()):
            reason = check(result, self.state.peer_initialize)
            if reason is not None:
                raise CapabilityError(
                    method, f"the handler's result breaks a protocol rule: {reason}"
                )

    # --- answers to our calls ---------------------------------------------------------------------

    def on_result(self, method: str, params: Any, result: Any) -> Any:
        """A peer's result that does not fit the request it answers fails the call (-32603)."""
        answer_check = self.answer_checks.get(method)
        reason = answer_check(params, result) if answer_check is not None else None
        if reason is not None:
            raise self.engine.rpc_error(
                INTERNAL_ERROR, f"Invalid result: {reason}", {"message": reason}
            )
        return result

    # --- interactions and turns -------------------------------------------------------------------

    def track_interaction(self, method: str, params: Any, *, sending: bool) -> bool:
        """Open and complete out-of-band interactions (`rules.COMPLETIONS`); False for a completion
        of one not open here (sent: refused; received: ignored, and a received one completes once).
        """
        if method not in self.completing:
            return True
        for c in self.completions:
            keys = self.open_keys[c.closer]
            if method == c.opener and wire.get(params, c.tag) == c.value:
                keys[wire.get(params, c.key)] = None
                while len(keys) > 4096:
                    keys.popitem(last=False)
            elif method == c.closer:
                key = wire.get(params, c.key)
                if key not in keys:
                    return False
                if not sending:
                    del keys[key]
        return True

    def cancel_turn(self, params: Any) -> None:
        """`session/cancel` passed: cancel this side's running handlers of that session's turn."""
        session_id = wire.get(params, rules.SESSION_ID)
        for method, result in self.turn_cancels.items():
            for serving in self.serving_in(method, session_id):
                serving.cancel_result = result
                serving.cancel()

    # --- the handler ------------------------------------------------------------------------------

    def dispatch(
        self, message: RequestMessage | NotificationMessage, *, is_request: bool
    ) -> Awaitable[Any]:
        """The handler's awaitable for a message; with a tracer, run in the trace context its
        message carries."""
        if self.engine.tracer is not None:
            return self._traced(message, is_request)
        return self._dispatch(message, is_request)

    async def _traced(self, message: Any, is_request: bool) -> Any:
        with extract(self.engine.tracer, message.params):
            return await self._dispatch(message, is_request)

    def _dispatch(self, message: Any, is_request: bool) -> Awaitable[Any]:
        """The handler's own awaitable for a message: the common case adds no frame of ours."""
        name = self.handlers[is_request].get(message.method)
        fn = getattr(self.state.handler, name, None) if name is not None else None
        if fn is not None:
            awaitable: Awaitable[Any] = fn(message.params)  # (no `cast`: a call per message)
            return awaitable
        if message.method.startswith(rules.EXTENSION_PREFIX):
            return self._call_extension(message, is_request=is_request)
        return self._unhandled(message.method, is_request=is_request)

    def notification_handler(self, method: str) -> Callable[[Any], Awaitable[Any]] | None:
        """The handler's own function of the params of `method`'s notifications (None: none)."""
        name = self.handlers[False].get(method)
        return getattr(self.state.handler, name, None) if name is not None else None

    async def _call_extension(
        self, message: RequestMessage | NotificationMessage, *, is_request: bool
    ) -> Any:
        """An extension method (`_vendor/...`): the handler's `ext_method` / `ext_notification`."""
        if not wire.structured(message.params):  # 226: JSON-RPC params are an object or an array
            if is_request:
                raise self.engine.rpc_error(
                    INVALID_REQUEST, "Invalid request: params must be an object or an array"
                )
            return None
        fn = getattr(self.state.handler, "ext_method" if is_request else "ext_notification", None)
        if fn is None:
            return await self._unhandled(message.method, is_request=is_request)
        return await fn(message.method, message.params)

    async def _unhandled(self, method: str, *, is_request: bool) -> Any:
        """A method the handler does not serve: a request is answered -32601, a notification
        dropped."""
        if is_request:
            raise self.engine.rpc_error(METHOD_NOT_FOUND, "Method not found", {"method": method})
        return None
