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
  and `handle(note)`: a notification's handler (both through the connection's `handle`);
- `on_result(method, params, result)`: the peer's answer to one of our calls, checked and recorded.

What differs between protocol versions comes from the package's plan as data (plan.py): its
tables, its initialize checks, the methods it removed, and how its turns end: in ACP v1 with the
`session/prompt` answer (nothing to track), in ACP v2 with a `state_update` to idle after it
(`TurnsByUpdate`, whose lifecycle rules the agent's policy enforces).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Container, Mapping

from ..jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, wire
from ..jsonrpc.calls import Policy
from ..jsonrpc.errors import CapabilityError, NotInitializedError, ProtocolError
from . import rules

if TYPE_CHECKING:
    from ..jsonrpc.serving import Serving
    from .connection import Connection
    from .plan import PackagePlan

_NO_GUARDS: Mapping[str, Any] = {}
_TURN_ENDED_BY = rules.TURN_ENDED_BY

SendCheck = Callable[[str, Any], None]
SendStep = Callable[[str, Any], Any]  # a check that may replace the params: it returns them
Answer = Callable[[Any], Awaitable[Any]]
AfterServe = Callable[[Any, Any], None]
Step = Callable[[Any], Any]
Reason = Callable[[Any, Any], "str | None"]
# `serve`'s steps of a method: the side's own answer, before initialize, guards, result guards,
# answer check, the side's bookkeeping; `before_send`'s: the side's first check, why it is removed,
# before initialize, guards, whether it completes an interaction, the side's last check
_ServeSteps = tuple[
    "Answer | None", bool, "tuple[Reason, ...]", bool, "Reason | None", "AfterServe | None"
]
SendSteps = tuple[
    "SendStep | None", "str | None", bool, "tuple[Reason, ...]", bool, "SendCheck | None"
]


class TurnsByUpdate:
    """The turns of an agent's sessions that end in a `state_update` to idle after the prompt's
    answer (ACP v2): the policy refuses the updates that break that lifecycle."""

    def __init__(self, serving_in: Callable[[str, Any], list[Serving]]) -> None:
        self.serving_in = serving_in
        # session -> the user messageId its prompt answer acknowledged; the sessions whose turn is
        # open (answered, no idle yet); those of them a session/cancel has reached
        self.acknowledged: dict[Any, Any] = {}
        self.open: set[Any] = set()
        self.cancelling: set[Any] = set()

    def prompt_served(self, session_id: Any, *, unanswered: bool = False) -> bool:
        prompts = self.serving_in(rules.SESSION_PROMPT, session_id)
        return any(not (unanswered and s.answered) for s in prompts)

    def prompt_answered(self, params: Any, result: Any) -> None:
        """A `session/prompt` handler returned `result`: the turn stays open."""
        session_id = wire.get(params, rules.SESSION_ID)
        self.acknowledged[session_id] = wire.get(result, rules.MESSAGE_ID)
        self.open.add(session_id)

    def cancelled(self, session_id: Any) -> None:
        """A `session/cancel` (or `session/close`) reached an open turn, or one a prompt being
        answered opens."""
        if session_id in self.open or self.prompt_served(session_id):
            self.cancelling.add(session_id)

    def update_sent(self, method: str, params: Any, enforce: bool) -> None:
        """An outgoing `session/update`: refused when it breaks the turn lifecycle (`enforce`);
        the acknowledged user message is reported, an idle state ends the turn."""
        session_id = wire.get(params, rules.SESSION_ID)
        update = wire.get(params, rules.SESSION_UPDATE_FIELD)
        kind = wire.get(update, rules.UPDATE_KIND[1])
        idle = kind == rules.STATE_UPDATE and wire.get(update, rules.STATE) == rules.IDLE
        reason = self.breaks(session_id, update, kind, idle)
        if reason is not None and enforce:
            raise ProtocolError(f"{method}: {reason}")
        if kind in rules.USER_MESSAGE_KINDS:
            self.acknowledged.pop(session_id, None)
        elif idle:
            self.open.discard(session_id)
            self.cancelling.discard(session_id)

    def breaks(self, session_id: Any, update: Any, kind: Any, idle: bool) -> str | None:
        """Why an update of a session breaks the turn lifecycle, or None."""
        if kind in rules.USER_MESSAGE_KINDS and session_id in self.acknowledged:
            expected = self.acknowledged[session_id]
            if wire.get(update, rules.MESSAGE_ID) != expected:
                return rules.v2_rule(
                    "user-message",
                    f"the turn's user message is {expected!r}, as the prompt answer acknowledged",
                )
        if not idle:
            return None
        if self.prompt_served(session_id, unanswered=True):
            return rules.v2_rule(
                "prompt-acknowledges",
                "the turn ends after the session/prompt answer, which only acknowledges it",
            )
        stop = wire.get(update, rules.STOP_REASON)
        if session_id in self.cancelling and stop != rules.CANCELLED:
            return rules.v2_rule(
                "cancel-confirmed",
                f"after session/cancel the turn ends idle with stopReason cancelled, not {stop!r}",
            )
        return None


class AcpPolicy(Policy):
    """The rules both sides apply, from the plan of the connection's package. With
    `enforce=False` none is checked (interactions and turns are still tracked)."""

    def __init__(self, conn: Connection[Any], plan: PackagePlan, enforce: bool) -> None:
        self.conn = conn
        self.plan = plan
        self.enforce = enforce
        tables = plan.side(conn.side)
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
        self.turns = TurnsByUpdate(self.serving_in) if plan.v2 else None  # v2: turns end by update
        # the notifications `received_notification` acts on; any other passes untouched
        self.watched = rules.TURN_ENDED_BY | self.completing
        self.requests_watched: Container[str] | None = _TURN_ENDED_BY | self.completing
        self.sends_watched: Container[str] | None = _TURN_ENDED_BY  # `sent`'s
        self.turn_tasks: dict[Any, asyncio.Task[Any]] = {}  # v2 turns running after their answer
        self._send_steps: dict[str, SendSteps] = {}  # by method, made at its first send
        self._serve_steps: dict[str, _ServeSteps] = {}  # by method, made at its first request

    def serving_in(self, method: str, session_id: Any) -> list[Serving]:
        """The requests of `method` in that session this side is serving."""
        return [
            s
            for s in self.conn.serving.values()
            if s.method == method and wire.get(s.params, rules.SESSION_ID) == session_id
        ]

    # --- sending ----------------------------------------------------------------------------------

    def before_send(self, method: str, params: Any) -> Any:
        """Check an outgoing call or notification; returns the params to send."""
        steps = self._send_steps.get(method) or self._steps(method)
        before, removed, before_initialize, guards, completing, after = steps
        if before is not None:  # a side's own first step: it may replace the params
            replaced = before(method, params)
            if replaced is not None:
                params = replaced
        if removed is not None:
            raise ProtocolError(f"{method}: {removed}")
        conn = self.conn
        if self.enforce:
            params = conn.checked_params(method, params)
        if not before_initialize and not conn.initialized:
            raise NotInitializedError(f"{method}: initialize has not completed on this connection")
        if guards:
            initialize = conn.peer_initialize
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
        its first send): the side's checks before the others (`around_send`), why it is refused (a
        removed surface), whether it may go before initialize, its guards, whether it completes an
        interaction, and the side's checks of the checked params."""
        removed = self.removed(self.conn.schema, method) if self.removed is not None else None
        before, after = self.around_send(method)
        steps = (
            before,
            removed,
            not (self.requires_initialize and method not in rules.ALLOWED_BEFORE_INITIALIZE),
            tuple(self.send_guards.get(method, ())),
            method in self.completing,
            after,
        )
        if method in self.conn.schema.METHODS:  # not any name a caller makes up: a bounded table
            self._send_steps[method] = steps
        return steps

    def around_send(self, method: str) -> tuple[SendStep | None, SendCheck | None]:
        """A side's own checks of an outgoing `method`, before the others (returning the params
        to send instead, or None to keep them) and after them (on the checked params); they raise
        to refuse it."""
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
        return None, self.conn.notification_handler(method)

    def handle(self, message: Any) -> Awaitable[Any]:
        return self.conn.handle(message, is_request=False)

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
        conn = self.conn
        if not before_initialize and not conn.initialized:
            raise conn.rpc_error(
                INVALID_REQUEST, "Invalid request: initialize must be called first"
            )
        if guards:
            for check in guards:
                reason = check(request.params, conn.own_initialize)
                if reason is not None:
                    raise conn.rpc_error(INVALID_PARAMS, "Invalid params", {"message": reason})
        answer = conn.handle(request, is_request=True)
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
        if method in self.conn.schema.METHODS:  # not any name a peer makes up: a bounded table
            self._serve_steps[method] = steps
        return steps

    def around_serve(self, method: str) -> tuple[Answer | None, AfterServe | None]:
        """A side's own answer to a request of `method` instead of its handler's, and its
        bookkeeping of a result that passed every check (it raises to refuse it)."""
        return None, None

    def check_result(self, method: str, result: Any) -> None:
        for check in self.result_guards.get(method, ()):
            reason = check(result, self.conn.peer_initialize)
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
            raise self.conn.rpc_error(
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
        if self.turns is not None:
            self.turns.cancelled(session_id)
        turn = self.turn_tasks.get(session_id)
        if turn is not None:  # a v2 turn running after its answer (helpers.AgentSession.turn)
            turn.cancel()
        for method, result in self.turn_cancels.items():
            for serving in self.serving_in(method, session_id):
                serving.cancel_result = result
                serving.cancel()

    def track_turn(self, session_id: Any, task: asyncio.Task[Any]) -> None:
        """A v2 turn of `session_id` runs in `task` after its prompt was answered."""
        self.turn_tasks[session_id] = task

        def done(task: asyncio.Task[Any]) -> None:
            if self.turn_tasks.get(session_id) is task:
                del self.turn_tasks[session_id]

        task.add_done_callback(done)
        if self.turns is not None and session_id in self.turns.cancelling:  # before its work began
            task.cancel()
