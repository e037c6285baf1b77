"""Severity per role, from the rule's effect on sender and receiver and the way the thing flows.

A role that sends the changed thing gets the rule's sender level, a role that receives it the
receiver level, a role that does both the worse of the two, a role that does neither `compatible`.
`--fail-on` and `--role` decide here which changes make the command fail.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .model import LEVELS, ROLES, Change, Level, Severity, worst
from .reach import Flow
from .rules import RULES

FAIL_ON = ("breaking", "warning", "any", "none")
ROLE_CHOICES = ("agent", "client", "both")


def assess(
    rule_id: str,
    flows: Iterable[Flow],
    names: Iterable[Flow] = (),
    forgiven: tuple[bool, bool] = (False, False),
    moved: tuple[Iterable[Flow], Iterable[Flow]] = ((), ()),
) -> Severity:
    """The severity per role of a change that flows `flows` between peers of the two revisions.

    `names` are ways it flows only in methods one of the revisions lacks: no exchange between
    the revisions carries it there, but code written against the generated package still names
    it, so a role there gets the rule's level at most `python-api`.

    `forgiven` says whether the old and the new revision's receivers replace a bad value by its
    default or skip it (`x-deserialize-*` on every use of the changed value): a rule then breaks
    nobody at that revision's receiving end, the value is only lost, so it is a `warning` at most
    (for the senders when the new receivers forgive, for the receivers when the old ones do).

    `moved` are the ways a method flows only in the old and only in the new revision (it is now
    received by another side). A way that is gone is judged as a removed method's: its senders
    get the rule's sender level (their calls meet "method not found"), its receivers the
    receiver level (their handlers are just never called). A way that is new gives its receivers
    the sender level: an old receiver answers such a call "method not found", the break an old
    caller meets on a gone way, met from the other end (its senders never sent it)."""
    rule = RULES[rule_id]
    sender_level, receiver_level = rule.sender, rule.receiver
    if rule.category in ("value", "type"):
        sender_level = _at_most(sender_level, Level.WARNING) if forgiven[1] else sender_level
        receiver_level = _at_most(receiver_level, Level.WARNING) if forgiven[0] else receiver_level
    levels: dict[str, list[Level]] = {role: [] for role in ROLES}
    for sender, receiver in flows:
        levels[sender].append(sender_level)
        levels[receiver].append(receiver_level)
    for sender, receiver in moved[0]:
        levels[sender].append(rule.sender)
        levels[receiver].append(rule.receiver)
    for _, receiver in moved[1]:
        levels[receiver].append(rule.sender)
    for sender, receiver in names:
        levels[sender].append(_at_most_python_api(rule.sender))
        levels[receiver].append(_at_most_python_api(rule.receiver))
    return Severity(agent=worst(levels["agent"]), client=worst(levels["client"]))


def _at_most_python_api(level: Level) -> Level:
    return _at_most(level, Level.PYTHON_API)


def _at_most(level: Level, cap: Level) -> Level:
    return level if level.rank <= cap.rank else cap


def fails(change: Change, fail_on: str, role: str) -> bool:
    """Whether a change counts toward `--fail-on` for `--role` (accepted changes never do)."""
    if change.accepted is not None or fail_on == "none":
        return False
    if fail_on == "any":
        return True
    threshold = LEVELS[: LEVELS.index(Level(fail_on)) + 1]
    roles = ROLES if role == "both" else (role,)
    return any(change.severity.of(r) in threshold for r in roles)


@dataclass(frozen=True)
class Gate:
    """`--fail-on` and `--role`: which listed changes make the command exit 1."""

    fail_on: str = "none"
    role: str = "both"

    def failing(self, changes: Iterable[Change]) -> tuple[Change, ...]:
        return tuple(c for c in changes if fails(c, self.fail_on, self.role))
