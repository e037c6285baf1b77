"""Schema -> IR for the JSON-RPC vocabulary beyond methods: the error codes the schema names."""

from __future__ import annotations

from . import naming
from .ir import Def, EnumDef, ErrorCode, ObjectDef, Ref


def error_codes(defs: tuple[Def, ...]) -> tuple[ErrorCode, ...]:
    """The members of the integer enum typing the `code` of an error object (`code` + `message`)."""
    by_name = {d.name: d for d in defs}
    codes: list[ErrorCode] = []
    for d in defs:
        if not isinstance(d, ObjectDef):
            continue
        fields = {f.wire: f for f in d.fields}
        if "code" not in fields or "message" not in fields:
            continue
        code = fields["code"].type
        target = by_name.get(code.name) if isinstance(code, Ref) else None
        if isinstance(target, EnumDef) and target.kind == "int":
            for m in target.members:
                title = naming.pascal(m.name.lower())
                cls = title if title.endswith("Error") else title + "Error"
                codes.append(ErrorCode(int(m.value), m.name, cls, m.doc))
    unique: dict[int, ErrorCode] = {}
    names: set[str] = set()
    for c in codes:
        if c.code not in unique and c.class_name not in names:
            unique[c.code] = c
            names.add(c.class_name)
    return tuple(sorted(unique.values(), key=lambda c: -c.code))
