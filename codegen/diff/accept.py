"""`--accept FILE`: changes a project has reviewed and accepted, each with its reason.

The file is TOML, one `[[accept]]` table per entry::

    [[accept]]
    rule = "method-removed"          # a rule id (acpgen diff --list-rules)
    subject = "session/set_model"    # as the diff names it; `*` matches any run of characters
    reason = "we never called it"

Accepted changes stay listed, marked with their reason, and never count toward `--fail-on`.
An entry that matches no change is reported as stale.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from .model import Change, StaleAccept
from .rules import RULES

_KEYS = ("rule", "subject", "reason")


class AcceptError(Exception):
    """The accept file cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class Entry:
    rule: str
    subject: str
    reason: str

    def matches(self, change: Change) -> bool:
        pattern = ".*".join(re.escape(part) for part in self.subject.split("*"))
        return change.rule == self.rule and re.fullmatch(pattern, change.subject) is not None


def load_accepts(path: str | Path) -> tuple[Entry, ...]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise AcceptError(f"{path}: cannot read the accept file: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AcceptError(f"{path}: not TOML: {exc}") from None
    extra = sorted(set(data) - {"accept"})
    if extra:
        raise AcceptError(
            f"{path}: unknown top-level key {extra[0]!r}; entries go in [[accept]] tables"
        )
    tables = data.get("accept", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise AcceptError(f"{path}: 'accept' must be a list of [[accept]] tables")
    return tuple(_entry(path, i, t) for i, t in enumerate(tables, start=1))


def _entry(path: str | Path, number: int, table: dict[str, object]) -> Entry:
    where = f"{path}: [[accept]] entry {number}"
    for key in sorted(set(table) - set(_KEYS)):
        raise AcceptError(f"{where}: unknown key {key!r} (expected rule, subject, reason)")
    for key in _KEYS:
        value = table.get(key)
        if not isinstance(value, str) or not value.strip():
            raise AcceptError(f"{where}: {key!r} must be a non-empty string")
    if table["rule"] not in RULES:
        raise AcceptError(f"{where}: unknown rule {table['rule']!r} (see acpgen diff --list-rules)")
    return Entry(str(table["rule"]), str(table["subject"]), str(table["reason"]).strip())


def apply(
    changes: tuple[Change, ...], entries: tuple[Entry, ...]
) -> tuple[tuple[Change, ...], tuple[StaleAccept, ...]]:
    """Mark the changes the entries name (the first matching entry gives the reason); list the
    entries that match no change at all."""
    reasons: dict[int, str] = {}
    stale = []
    for entry in entries:
        hits = [i for i, change in enumerate(changes) if entry.matches(change)]
        for i in hits:
            reasons.setdefault(i, entry.reason)
        if not hits:
            stale.append(StaleAccept(entry.rule, entry.subject, entry.reason))
    marked = tuple(
        replace(c, accepted=reasons[i]) if i in reasons else c for i, c in enumerate(changes)
    )
    return marked, tuple(stale)
