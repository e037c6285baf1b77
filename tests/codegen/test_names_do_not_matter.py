"""The generator reads structure, not names: renaming every def changes nothing but the names."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from acpgen.build import build
from acpgen.schema import parse

from .conftest import SCHEMAS

SUFFIXES = ("Request", "Response", "Notification")


def renamed(name: str) -> str:
    """A scrambled name; the Request/Response/Notification suffix convention of the schema stays."""
    suffix = next((s for s in SUFFIXES if name.endswith(s)), "")
    return "Z" + hashlib.sha1(name.encode()).hexdigest()[:10] + suffix


def rename_defs(document: dict[str, Any]) -> dict[str, Any]:
    mapping = {name: renamed(name) for name in document["$defs"]}
    text = json.dumps(document)
    for old, new in mapping.items():
        text = text.replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"')
    out = json.loads(text)
    out["$defs"] = {
        mapping[k]: v for k, v in reversed(list(out["$defs"].items()))
    }  # and shuffle the order
    return out


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: p.stem)
def test_renamed_and_reordered_defs_give_the_same_methods_and_kinds(schema: Path) -> None:
    original = build(parse(schema.read_bytes(), schema.name))
    document = rename_defs(json.loads(schema.read_text()))
    scrambled = build(parse(json.dumps(document).encode(), schema.name))

    def methods(pkg: Any, name: Any) -> set[tuple[str, str, str, str, str | None]]:
        return {
            (m.wire, m.side, m.kind, name(m.params), name(m.result) if m.result else None)
            for m in pkg.methods
        }

    assert methods(scrambled, lambda n: n) == methods(
        original, lambda n: renamed(n) if n in json.loads(schema.read_text())["$defs"] else n
    )

    def shapes(pkg: Any) -> dict[str, int]:
        counts: dict[str, int] = {}
        for d in pkg.defs:
            key = (
                type(d).__name__
                + ("-native" if getattr(d, "native", True) else "-hook")
                + ("-open" if getattr(d, "open", False) else "")
            )
            counts[key] = counts.get(key, 0) + 1
        return counts

    assert shapes(scrambled) == shapes(original)
