"""What a listed change points at in one revision, and a schema narrowed so drawn values hit it.

A change's subject (`Type`, `Type.field`, `Type[value]`, `Union[tag].field`, `Type.field[value]`)
is read back into a `Target`: the def, the enum value or union variant, the field. `narrowed`
returns the revision's schema document with that def restricted to values that carry the target
(the field present, the enum value, the variant's branch, null where the change is about null),
so that values drawn from the def exercise the change instead of hitting it by luck.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..ir import EnumDef, Field, ObjectDef, UnionDef, Variant, all_fields
from ..pointer import unescape
from .model import Change
from .revision import Revision, variant_keys

_SUBJECT = re.compile(r"^(?P<root>[^.\[]+)(?:\[(?P<key>[^\]]*)\])?(?:\.(?P<field>[^.\[]+))?"
                      r"(?:\[(?P<value>[^\]]*)\])?$")  # fmt: skip
_NULL_RULES = {"became-nullable": "new", "became-non-nullable": "old"}  # the side that sends null
_ABSENT_RULES = {"field-became-optional": "new", "field-became-required": "old"}
# ^ the side whose senders leave the field out: its values are drawn as they come (the first
#   draw holds only required fields), never with the field forced in

Obj = dict[str, Any]


@dataclass(frozen=True)
class Target:
    """Where a change sits in one revision: `root` is a def name of that revision."""

    root: str
    key: str | None = None  # an enum value or a union variant key: `Type[key]`
    field: str | None = None  # a field wire name: `Type.field`, `Union[key].field`
    value: str | None = None  # a value of an inline enum: `Type.field[value]`

    @property
    def member(self) -> bool:
        """Whether the change is about one part of the def rather than the def as a whole."""
        return self.key is not None or self.field is not None


def target(change: Change, side: str) -> Target | None:
    """The change's target in the old or the new revision (`side`); None for a method."""
    if change.scope == "method":
        return None
    subject = change.old_subject if side == "old" else change.subject
    m = _SUBJECT.match(subject)
    if m is None:
        return Target(subject.split(".")[0].split("[")[0])
    return Target(m["root"], m["key"], m["field"], m["value"])


def narrowed(rev: Revision, change: Change, t: Target, side: str) -> Obj:
    """The revision's schema document with `t.root` restricted to values that carry the target;
    the document as it is when the def has nothing to restrict (the member is not in it).

    A def the generator hoisted out of an inline object has no `$defs` entry of its own: it gets
    one (referred to from where it was), so that drawn values say where it is."""
    document = hoisted(rev, t.root)
    defs: Obj = document.get("$defs", {})
    body = defs.get(t.root)
    d = rev.defs.get(t.root)
    if body is None or d is None:
        return document
    restricted = body
    owner: Any = d  # the def that would declare the field: the object, or the union's variant
    if isinstance(d, UnionDef) and t.key is not None:
        variant = variant_keys(d).get(t.key)
        restricted = _only_branch(rev, d, variant, body) if variant is not None else body
        owner = rev.defs.get(variant.type) if variant is not None else None
    elif isinstance(d, EnumDef) and t.key is not None:
        restricted = _with(body, _enum_value(d, t.key))
    if t.field is not None:
        extra: Obj = {"required": [t.field]}
        if _NULL_RULES.get(change.rule) == side:
            extra["properties"] = {t.field: {"type": "null"}}
        elif t.value is not None:
            extra["properties"] = {t.field: {"const": t.value}}
        if _declares(rev, owner, t.field) and _ABSENT_RULES.get(change.rule) != side:
            restricted = _with(restricted, extra)
    if restricted is body:
        return document
    return {**document, "$defs": {**defs, t.root: restricted}}


_BEYOND = {"type-widened": "new", "type-narrowed": "old"}
# ^ the side whose senders may send values the other revision's type does not take


def beyond(document: Obj, change: Change, t: Target, side: str, other: Revision) -> Obj | None:
    """`document` (a narrowed schema of the revision `side`) with the target restricted further
    to values the other revision's type does not take, when the change says there are such values
    (a type that now also takes more, or no longer takes some): drawn values then exercise what
    changed instead of what both revisions take. None when the change is not such a one or the
    other revision's schema node is not found.

    The other revision's defs are copied in under a prefix of their own, so that its node keeps
    its meaning (`not` of it, with its `$ref`s to the copies)."""
    if _BEYOND.get(change.rule) != side:
        return None
    theirs = target(change, "old" if side == "new" else "new")
    defs: Obj = document.get("$defs", {})
    assert theirs is not None  # a value change is about a def or a field
    their_body = other.schema.defs.get(theirs.root)
    if t.root not in defs or their_body is None or theirs.key is not None:
        return None
    node = their_body if theirs.field is None else property_schema(their_body, theirs.field)
    if node is None:
        return None
    prefix = "__old__" if side == "new" else "__new__"
    while any(name.startswith(prefix) for name in defs):
        prefix += "_"
    moved = f"#/$defs/{prefix}"
    copies = {prefix + name: _refs_moved(body, moved) for name, body in other.schema.defs.items()}
    excluded = {"not": _refs_moved(node, moved)}
    extra: Obj = (
        excluded if t.field is None else {"required": [t.field], "properties": {t.field: excluded}}
    )
    return {**document, "$defs": {**defs, **copies, t.root: {"allOf": [defs[t.root], extra]}}}


def property_schema(body: Any, wire: str) -> Any:
    """The schema of an object def's property (in it or in the parts of its `allOf`)."""
    if not isinstance(body, dict):
        return None
    props = body.get("properties")
    found = props.get(wire) if isinstance(props, dict) else None
    for part in body.get("allOf", []):
        found = found if found is not None else property_schema(part, wire)
    return found


def _refs_moved(node: Any, to: str) -> Any:
    """A copy of a schema node whose `#/$defs/X` refs point at `to + X`."""
    if isinstance(node, list):
        return [_refs_moved(item, to) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _refs_moved(value, to) for key, value in node.items()}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        out["$ref"] = to + ref[len("#/$defs/") :]
    return out


def _with(body: Any, extra: Obj | None) -> Any:
    return body if extra is None else {"allOf": [body, extra]}


def _enum_value(d: EnumDef, key: str) -> Obj | None:
    for m in d.members:
        if (m.value if isinstance(m.value, str) else json.dumps(m.value)) == key:
            return {"const": m.value}
    return None


def _declares(rev: Revision, d: Any, wire: str) -> bool:
    """Whether the def (an object, or any variant of a union) has a field of that wire name."""
    if isinstance(d, ObjectDef):
        return any(f.wire == wire for f in _fields(rev, d))
    if isinstance(d, UnionDef):
        return any(
            isinstance(v, ObjectDef) and any(f.wire == wire for f in _fields(rev, v))
            for v in (rev.defs.get(x.type) for x in d.variants)
        )
    return False


def _fields(rev: Revision, d: ObjectDef) -> list[Field]:
    return all_fields(d, rev.defs.get)


def _only_branch(rev: Revision, union: UnionDef, variant: Variant, body: Any) -> Any:
    """The union's def with only the branch (of its `oneOf` / `anyOf`) the variant comes from."""
    if not isinstance(body, dict):
        return body
    for keyword in ("oneOf", "anyOf"):
        branches = body.get(keyword)
        if isinstance(branches, list):
            kept = [b for i, b in enumerate(branches) if _is_branch(rev, union, variant, b, i)]
            if kept:
                return {**body, keyword: kept}
    return body


def _is_branch(rev: Revision, union: UnionDef, variant: Variant, branch: Any, i: int) -> bool:
    d = rev.defs.get(variant.type)
    pointer = getattr(d, "pointer", "")
    if pointer.startswith(union.pointer + "/") and pointer.rsplit("/", 1)[-1] == str(i):
        return True
    if not isinstance(branch, dict):
        return False
    refs = [branch.get("$ref")] + [
        s.get("$ref") for s in branch.get("allOf", []) if isinstance(s, dict)
    ]
    if f"#/$defs/{variant.type}" in refs:
        return True
    if variant.tag is not None and _tag_of(branch, variant.tag.field) == variant.tag.value:
        return True
    return bool(variant.title) and branch.get("title") == variant.title


def _tag_of(branch: Obj, tag_field: str) -> Any:
    for part in [branch, *(s for s in branch.get("allOf", []) if isinstance(s, dict))]:
        prop = part.get("properties", {}).get(tag_field)
        if isinstance(prop, dict) and "const" in prop:
            return prop["const"]
    return None


def hoisted(rev: Revision, name: str) -> Obj:
    """The schema document, with the IR def `name` as a def of its own when it is an inline one."""
    document = rev.schema.document
    d = rev.defs.get(name)
    pointer = getattr(d, "pointer", "")
    steps = [unescape(s) for s in pointer.split("/")[1:]]
    if name in rev.schema.defs or len(steps) < 3 or steps[0] != "$defs":
        return document
    node = rev.schema.node(pointer)
    if node is None:
        return document
    out = _replaced(document, steps, {"$ref": f"#/$defs/{name}"})
    return {**out, "$defs": {**out["$defs"], name: node}}


def _replaced(node: Any, steps: list[str], value: Any) -> Any:
    """A copy of `node` with the value at `steps` replaced (copies only along the way)."""
    if not steps:
        return value
    head, rest = steps[0], steps[1:]
    if isinstance(node, list):
        i = int(head)
        return [*node[:i], _replaced(node[i], rest, value), *node[i + 1 :]]
    return {**node, head: _replaced(node[head], rest, value)}
