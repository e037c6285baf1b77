"""Generator behaviours no other test pinned (issue 41), each named after what a user sees: a
union whose tag is optional in a branch, an integer field whose default is `true`, the rollback
of `acpgen generate`'s atomic write, the lenient path at exactly `maxItems`, and `acpgen bump`
keeping the file modes of the schema and the change log."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acpgen.bump import main as bump_main
from tests.support.tiny import accepts, agrees, document, package_from

STR = {"type": "string"}


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


# --- a union whose tag const is optional in a branch is not a tagged union ----------------------

A = _object({"kind": {"const": "a"}, "x": STR}, ["kind", "x"])  # the tag required
B = _object({"kind": {"const": "b"}, "y": STR}, ["y"])  # the tag only pinned: optional


def _optional_tag_unions() -> dict[str, dict[str, Any]]:
    """The union of issue 41, with its optional-tag branch spelled each way a branch is built."""
    return {
        "inline": document({"U": {"anyOf": [A, B]}}),
        "ref": document({"B": B, "U": {"anyOf": [A, {"$ref": "#/$defs/B"}]}}),
        "allOf-wrapped": document({"U": {"anyOf": [A, {"allOf": [B, _object({"z": STR}, [])]}]}}),
        "tag optional in every branch": document(
            {"U": {"anyOf": [_object({"kind": {"const": "a"}, "x": STR}, ["x"]), B]}}
        ),
    }


UNIONS = _optional_tag_unions()


@pytest.mark.parametrize("spelling", sorted(UNIONS))
def test_a_union_whose_tag_is_optional_in_a_branch_is_not_a_tagged_union(
    tmp_path: Path, spelling: str
) -> None:
    doc = UNIONS[spelling]
    pkg = package_from(doc, tmp_path)
    ok, value = accepts(pkg, "U", {"kind": "b", "y": "v"})  # refused as "Invalid value 'b'"
    assert ok, value
    assert msgspec.to_builtins(value) == {"kind": "b", "y": "v"}
    ok, value = accepts(pkg, "U", {"y": "v"})  # no tag: told apart by its keys
    assert ok and msgspec.to_builtins(value) == {"y": "v"}, value
    for instance in (
        {"kind": "a", "x": "1"},
        {"x": "1"},  # valid only where branch a leaves its tag out too
        {"kind": "a", "y": "v"},  # neither branch: a lacks x, b pins kind to "b"
        {"kind": "b", "x": "1"},
        {"kind": "c", "y": "v"},
        {"kind": 7, "y": "v"},
    ):
        agrees(pkg, doc, "U", instance)


# --- an integer field whose default is `true` is not given a Python True ------------------------


def test_an_integer_field_whose_default_is_true_is_not_given_true(tmp_path: Path) -> None:
    doc = document(
        {
            "Thing": _object(
                {"count": {"type": "integer", "default": True}, "size": {"type": "integer"}}, []
            )
        }
    )
    notices: list[str] = []
    pkg = package_from(doc, tmp_path, notices)
    ok, thing = accepts(pkg, "Thing", {})
    assert ok, thing
    assert thing.count is msgspec.UNSET and pkg.types.Thing().count is msgspec.UNSET
    assert json.loads(pkg.encode(thing)) == {}  # no `"count": true` on the wire
    assert any("count/default" in n and "not applied" in n for n in notices), notices


# --- the lenient path accepts a list of exactly maxItems ----------------------------------------


@pytest.mark.parametrize(("size", "ok"), [(9, False), (10, True), (11, True), (12, False)])
def test_the_lenient_path_accepts_a_list_of_exactly_max_items(
    tmp_path: Path, size: int, ok: bool
) -> None:
    """Items whose bad values their schema forgives, more than a decode repairs in place (8), are
    decoded on the careful path, item by item: then the list is held to its item counts, bounds
    included (10 to 11 items here)."""
    lenient = {"type": ["integer", "null"], "x-deserialize-default-on-error": True}
    item = _object({"n": lenient, "label": STR}, ["label"])
    items = {"type": "array", "items": item, "minItems": 10, "maxItems": 11}
    doc = document({"Thing": _object({"items": items}, ["items"])})
    pkg = package_from(doc, tmp_path)
    value = [{"n": "not a number", "label": str(i)} for i in range(size)]
    accepted, thing = accepts(pkg, "Thing", {"items": value})
    assert accepted is ok, thing
    if ok:
        assert [i.label for i in thing.items] == [str(i) for i in range(size)]
        assert all(i.n in (None, msgspec.UNSET) for i in thing.items)  # forgiven


# --- acpgen generate's atomic write rolls back ---------------------------------------------------

THING = _object({"name": STR}, ["name"])
WRITE = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from acpgen.build import build
    from acpgen.pipeline import render
    from acpgen.schema import parse
    from acpgen.write import write_package

    def refuse(event, args):  # the rename that moves the new package into place fails
        if event == "os.rename" and os.path.basename(args[0]).startswith(".tinyroll.new-"):
            raise OSError(28, "No space left on device (planted by the test)")

    schema, target, fail = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "fail"
    files = render(build(parse(schema.read_bytes(), schema.name)), target.name)
    if fail:
        sys.addaudithook(refuse)
    try:
        write_package(target, files, check_import=False)  # what acpgen generate writes with
    except OSError as exc:
        sys.exit(f"acpgen: {exc}")
    """)


def _write(schema: Path, target: Path, fail: bool) -> subprocess.CompletedProcess[str]:
    """Write the package of `schema` to `target` in a process of its own (an audit hook, which
    makes the final rename fail, stays for the life of its process)."""
    return subprocess.run(
        [sys.executable, "-c", WRITE, str(schema), str(target), "fail" if fail else "ok"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_package_write_puts_the_old_package_back_when_the_final_rename_fails(
    tmp_path: Path,
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(document({"Thing": THING})))
    new.write_text(json.dumps(document({"Thing": THING, "Other": _object({"n": STR}, [])})))
    out = tmp_path / "out"
    first = _write(old, out / "tinyroll", fail=False)
    assert first.returncode == 0, first.stderr
    before = _tree(out)
    assert "tinyroll/types.py" in before and "Other" not in before["tinyroll/types.py"].decode()

    run = _write(new, out / "tinyroll", fail=True)

    assert run.returncode == 1 and "planted by the test" in run.stderr, run.stderr
    assert _tree(out) == before  # the old package, where it was, every byte
    assert sorted(p.name for p in out.iterdir()) == ["tinyroll"]  # nothing left beside it


# --- acpgen bump keeps the file modes ------------------------------------------------------------


def test_bump_keeps_the_file_mode_of_the_schema_and_the_change_log(tmp_path: Path) -> None:
    schema, changes = tmp_path / "schema.json", tmp_path / "CHANGES.md"
    schema.write_text(json.dumps(document({"Thing": THING})))
    new = tmp_path / "new.json"
    size = {"name": STR, "size": {"type": "integer"}}
    new.write_text(json.dumps(document({"Thing": _object(size, ["name"])})))
    changes.write_text("# Schema changes\n")
    schema.chmod(0o664)  # neither the 0644 of a new file nor mkstemp's 0600
    changes.chmod(0o640)
    argv = [str(new), "--schema", str(schema), "--out", str(tmp_path / "out")]
    argv += ["--package", "tinybump", "--changes", str(changes)]
    err = io.StringIO()

    assert bump_main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()

    assert schema.read_bytes() == new.read_bytes()  # it did bump
    assert "Thing.size" in changes.read_text()
    assert schema.stat().st_mode & 0o7777 == 0o664
    assert changes.stat().st_mode & 0o7777 == 0o640
