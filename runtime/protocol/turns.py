"""ACP turn rules by protocol version: how an agent's turns end, as the agent's policy tracks them.

In ACP v1 a turn ends with the `session/prompt` answer, which carries its stop reason: there is
nothing to track beyond the request (`Turns`, which does nothing). In ACP v2 the answer only
acknowledges the prompt, and the turn goes on until a `state_update` reports the session idle
(`TurnsByUpdate`): the runtime refuses updates that break that lifecycle (rules.py, "ACP v2").
Which one a package follows is read from the package (`rules.turn_ends_by_update`, in plan.py).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol

from ..jsonrpc import wire
from . import rules


class Request(Protocol):
    """A request being served, as the turn rules read it."""

    @property
    def method(self) -> str: ...

    @property
    def params(self) -> Any: ...

    answered: bool


Serving = Callable[[], Iterable[Request]]
"""The requests a connection is serving now."""


class Turns:
    """Turns whose end is the prompt's answer (ACP v1): no state."""

    tracked = False  # whether outgoing updates are read at all (none is, here)

    def prompt_answered(self, params: Any, result: Any) -> None:
        """A `session/prompt` handler returned `result`."""

    def cancelled(self, session_id: Any) -> None:
        """A `session/cancel` (or `session/close`) of that session passed."""

    def is_cancelling(self, session_id: Any) -> bool:
        """Whether a cancel reached the open turn of that session."""
        return False

    def update_breaks(self, params: Any) -> str | None:
        """Why an outgoing `session/update` breaks the turn lifecycle, or None."""
        return None

    def update_sent(self, params: Any) -> None:
        """An outgoing `session/update` passed."""


class TurnsByUpdate(Turns):
    """Turns that end in a `state_update` to idle after the prompt's answer (ACP v2)."""

    tracked = True

    def __init__(self, serving: Serving) -> None:
        self._serving = serving
        # session -> the user messageId its prompt answer acknowledged; the sessions whose turn is
        # open (answered, no idle yet); those of them a session/cancel has reached
        self._acknowledged: dict[Any, Any] = {}
        self._open: set[Any] = set()
        self._cancelling: set[Any] = set()

    def _prompt_served(self, session_id: Any, *, unanswered: bool = False) -> bool:
        return any(
            s.method == rules.SESSION_PROMPT
            and wire.get(s.params, rules.SESSION_ID) == session_id
            and not (unanswered and s.answered)
            for s in self._serving()
        )

    def prompt_answered(self, params: Any, result: Any) -> None:
        session_id = wire.get(params, rules.SESSION_ID)
        self._acknowledged[session_id] = wire.get(result, rules.MESSAGE_ID)
        self._open.add(session_id)

    def cancelled(self, session_id: Any) -> None:
        # an open turn, or one a prompt being answered opens
        if session_id in self._open or self._prompt_served(session_id):
            self._cancelling.add(session_id)

    def is_cancelling(self, session_id: Any) -> bool:
        return session_id in self._cancelling

    def update_breaks(self, params: Any) -> str | None:
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
        if self._prompt_served(session_id, unanswered=True):
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

    def update_sent(self, params: Any) -> None:
        """The acknowledged user message is reported, an idle state ends the turn."""
        session_id = wire.get(params, rules.SESSION_ID)
        update = wire.get(params, rules.SESSION_UPDATE_FIELD)
        kind = wire.get(update, rules.UPDATE_KIND[1])
        if kind in rules.USER_MESSAGE_KINDS:
            self._acknowledged.pop(session_id, None)
        elif kind == rules.STATE_UPDATE and wire.get(update, rules.STATE) == rules.IDLE:
            self._open.discard(session_id)
            self._cancelling.discard(session_id)
