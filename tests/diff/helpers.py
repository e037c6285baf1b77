"""Helpers of the diff tests: fixture revisions built once per session, and the rule cases."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from acpgen.diff import Report, diff_revisions
from acpgen.diff.revision import Revision, from_schema, load_revision
from acpgen.schema import parse

SCHEMAS = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
CASES = Path(__file__).resolve().parent / "cases"


@functools.cache
def fixture_revision(name: str) -> Revision:
    """A schema revision from tests/fixtures/schemas, e.g. `v1-stable-2026-01-15` (built once)."""
    return load_revision(SCHEMAS / f"{name}.json", label=f"{name}.json")


@functools.cache
def fixture_diff(old: str, new: str) -> Report:
    return diff_revisions(fixture_revision(old), fixture_revision(new))


def case_names() -> list[str]:
    return sorted(p.stem for p in CASES.glob("*.json"))


@functools.cache
def case(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.json").read_text())  # type: ignore[no-any-return]


def case_revisions(name: str) -> tuple[Revision, Revision]:
    body = case(name)
    return (
        from_schema(parse(json.dumps(body["old"]).encode(), f"{name}-old.json"), "old.json"),
        from_schema(parse(json.dumps(body["new"]).encode(), f"{name}-new.json"), "new.json"),
    )
