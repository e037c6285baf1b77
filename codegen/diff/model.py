"""What a diff is made of: severity levels, rules, changes and the report that holds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

ROLES = ("agent", "client")


class Level(StrEnum):
    """How much a change troubles one side, from worst to mildest."""

    BREAKING = "breaking"  # an implementation of the old schema fails against a peer of the new one
    WARNING = "warning"  # breaks only a strict receiver, or cannot be decided from the schema
    PYTHON_API = "python-api"  # the wire is unchanged, names in the generated package change
    COMPATIBLE = "compatible"  # nothing to do

    @property
    def rank(self) -> int:
        return len(LEVELS) - LEVELS.index(self)


LEVELS = tuple(Level)  # worst first


def worst(levels: list[Level]) -> Level:
    return max(levels, key=lambda level: level.rank, default=Level.COMPATIBLE)


@dataclass(frozen=True)
class Rule:
    """One kind of change: its effect on whoever sends the changed thing and on whoever receives it.

    For a method, the sender is the caller and the receiver the side that handles it.
    """

    id: str
    category: str
    sender: Level
    receiver: Level
    explanation: str
    hint: str
    mirror: str  # the rule the same edit gives when the two revisions are swapped


@dataclass(frozen=True)
class Severity:
    agent: Level
    client: Level

    def of(self, role: str) -> Level:
        return self.agent if role == "agent" else self.client

    def worst(self) -> Level:
        return worst([self.agent, self.client])


@dataclass(frozen=True)
class Change:
    """One listed change.

    `subject` names the thing in the new revision (the old one when it was removed): a method
    (`session/prompt`), a type (`Type`), a field (`Type.field`), an enum value or a union variant
    (`Type[value]`, `Union[tag].field`). `old_subject` is the same thing's name in the old revision.
    `affects` lists the wire names of the methods whose messages carry it.
    """

    rule: str
    subject: str
    detail: str
    severity: Severity
    affects: tuple[str, ...]
    old_subject: str
    scope: str  # "method" when the subject is a method, else "type"
    accepted: str | None = None  # the reason from the accept file


@dataclass(frozen=True)
class StaleAccept:
    """An accept-file entry that matched no change."""

    rule: str
    subject: str
    reason: str


@dataclass(frozen=True)
class ApiChange:
    """A Python name of the old generated package that is gone: `new` names its replacement, or
    is "" when there is none (python_api.py)."""

    kind: str  # "class" | "method" | "attribute" | "member"
    old: str  # `SetSessionModelRequest`, `AgentProxy.session_set_model`, `Type.attr`, `Enum.MEMBER`
    new: str = ""

    @property
    def line(self) -> str:
        what = f"renamed to `{self.new}`" if self.new else "removed"
        return f"{self.kind} `{self.old}` {what}"


@dataclass(frozen=True)
class Report:
    old: str  # the file names as given
    new: str
    old_sha256: str
    new_sha256: str
    changes: tuple[Change, ...]
    descriptions_changed: int  # counted, never listed
    stale: tuple[StaleAccept, ...] = field(default=())
    python_api: tuple[ApiChange, ...] = field(default=())  # names of the package renamed or removed
