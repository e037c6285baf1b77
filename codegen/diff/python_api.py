"""What a regenerated package renames or removes: the names code written against the old one uses.

The wire changes say what each side must do on the wire; this says what breaks at import or
attribute lookup in code that uses the generated package: classes (renamed or removed), handler
and proxy methods (removed, or moved to the other side), attributes of Structs and enum members.
It compares the names the two revisions generate; a class counts as renamed when the diff
recognised the rename (`type-renamed`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir import EnumDef, ObjectDef, received_by, sides_of
from .model import ApiChange, Change
from .revision import Revision


def python_api_changes(
    old: Revision, new: Revision, changes: tuple[Change, ...]
) -> tuple[ApiChange, ...]:
    """Every class, method, attribute and enum member of the old package the new one lacks."""
    renamed = {c.old_subject: c.subject for c in changes if c.rule == "type-renamed"}
    return tuple([*_classes(old, new, renamed), *_methods(old, new), *_members(old, new, renamed)])


def _classes(old: Revision, new: Revision, renamed: dict[str, str]) -> Iterator[ApiChange]:
    for name in sorted(set(old.defs) - set(new.defs)):
        yield ApiChange("class", name, renamed.get(name, ""))


def _stub_names(rev: Revision) -> dict[str, set[str]]:
    """The methods of each handler and proxy class: `AgentHandler` -> {"session_new", ...}."""
    names: dict[str, set[str]] = {}
    sides = sides_of(rev.methods)
    for side in sides:
        received = {m.handler for m in rev.methods if received_by(side, m, sides)}
        for cls in (f"{side.capitalize()}Handler", f"{side.capitalize()}Proxy"):
            names[cls] = received
    return names


def _methods(old: Revision, new: Revision) -> Iterator[ApiChange]:
    before, after = _stub_names(old), _stub_names(new)
    for cls in before:
        for method in sorted(before[cls] - after.get(cls, set())):
            kind = "Handler" if cls.endswith("Handler") else "Proxy"
            other = next(
                (c for c in after if c != cls and c.endswith(kind) and method in after[c]), ""
            )
            yield ApiChange("method", f"{cls}.{method}", f"{other}.{method}" if other else "")


def _members(old: Revision, new: Revision, renamed: dict[str, str]) -> Iterator[ApiChange]:
    """Attributes of Structs and members of enums that are gone from a class that is still there."""
    for name, a in sorted(old.defs.items()):
        b = new.defs.get(renamed.get(name, name))
        if isinstance(a, ObjectDef) and isinstance(b, ObjectDef):
            kept = {f.name for f in b.fields}
            by_wire = {f.wire: f.name for f in b.fields}
            for f in a.fields:
                if f.name not in kept:
                    now = by_wire.get(f.wire, "")
                    yield ApiChange(
                        "attribute", f"{name}.{f.name}", f"{b.name}.{now}" if now else ""
                    )
        elif isinstance(a, EnumDef) and isinstance(b, EnumDef):
            kept = {m.name for m in b.members}
            by_value = {m.value: m.name for m in b.members}
            for m in a.members:
                if m.name not in kept:
                    now = by_value.get(m.value, "")
                    yield ApiChange("member", f"{name}.{m.name}", f"{b.name}.{now}" if now else "")
