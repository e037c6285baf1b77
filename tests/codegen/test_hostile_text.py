"""Issue 40 item 1: nothing a schema or its file name says runs as code, and every string comes
back exactly.

Hypothesis draws a file name and a schema whose descriptions, property names, enum values,
defaults and method names mix every hostile character class: each kind of line break, quotes and
triple quotes, backslashes, NUL, lone surrogates, jinja syntax, encoding declarations and code that
would make a marker folder. Each package is generated, written and imported in process (inside a
scratch folder the marker would land in); then each string is read back where the package keeps
it: the header comment, the module docstrings, `SCHEMA`, class and field docstrings, the encoded
names of fields, enum values, method names. A schema holding a lone surrogate is refused (the
CLI's exit 2) with its pointer.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import itertools
import json
import os
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from acpgen.errors import SchemaError
from acpgen.escape import read_docstring
from acpgen.pipeline import files_of, read
from acpgen.write import write_package

MARK = "pwned"
PAYLOADS = (
    f'\nimport os;os.mkdir("{MARK}")\n#',
    f'"""+__import__("os").mkdir("{MARK}")+"""',
    f"'''+__import__('os').mkdir('{MARK}')+'''",
    f"'+__import__('os').mkdir('{MARK}')+'",
    f'"+__import__("os").mkdir("{MARK}")+"',
    f"{{{{ cycler.__init__.__globals__.os.mkdir('{MARK}') }}}}",
    f"{{% set x = cycler.__init__.__globals__.os.mkdir('{MARK}') %}}",
    f"\r__import__('os').mkdir('{MARK}')#",
    f"\\\n__import__('os').mkdir('{MARK}')",
)
BREAKS = ("\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
PIECES = (
    *PAYLOADS,
    *BREAKS,
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "\\n",
    "\x00",
    "\t",
    " ",
    "  ",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "#",
    "# -*- coding: utf-7 -*-",
    "coding=latin-1",
    "+AAo-",
    "é",
    "\U0001f600",
    "\xa0",
    "x",
)
SURROGATES = ("\ud800", "\udfff")
FILE_SURROGATES = ("\udc80", "\udcff")  # what a file name of bytes that are not UTF-8 reads as
SETTINGS = settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "12")),
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # a failing case prints as drawn: shrinking is slow
    report_multiple_bugs=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_COUNTER = itertools.count()


def texts(extra: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    piece = st.sampled_from(PIECES + extra) | st.characters(codec="utf-8")
    return st.lists(piece, max_size=6).map("".join)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(texts(FILE_SURROGATES).filter(lambda t: "/" not in t and "\x00" not in t))
    name = name.encode("utf-8", "surrogateescape")[:200].decode("utf-8", "surrogateescape")
    text = texts(SURROGATES) if draw(st.booleans()) else texts()
    wire = draw(text.filter(lambda t: t not in ("kind", "")))
    values = draw(st.lists(text, min_size=1, max_size=3, unique=True))
    schema = {
        "$defs": {
            "ThingNotification": {
                "type": "object",
                "title": draw(text),
                "description": draw(text),
                "properties": {
                    wire: {"type": "string", "description": draw(text), "default": draw(text)},
                    "kind": {"$ref": "#/$defs/Kind"},
                },
                "x-method": draw(text.filter(lambda t: t.strip() != "")),
                "x-side": "agent",
            },
            "Kind": {"type": "string", "enum": values, "description": draw(text)},
        }
    }
    return name + ".json", schema


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in (k, *_strings(v))]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def _refusal(schema: dict[str, Any]) -> str | None:
    """What the generator must refuse the schema for, or None."""
    if not all(_text(s) for s in _strings(schema)):
        return "lone surrogate"
    (wire,) = (w for w in schema["$defs"]["ThingNotification"]["properties"] if w != "kind")
    if any(ch in '\\"' or ord(ch) < 0x20 for ch in wire):
        return "msgspec takes no backslash"
    return None


def _text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@SETTINGS
@given(case=cases())
def test_no_file_name_or_schema_string_runs_and_each_reads_back(
    case: tuple[str, dict[str, Any]],
) -> None:
    file_name, schema = case
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        path = Path(tmp) / file_name
        path.write_text(json.dumps(schema, ensure_ascii=True))
        refused = _refusal(schema)
        try:
            pkg = read(path)
        except SchemaError as exc:  # the CLI's exit 2
            assert refused is not None and refused in exc.message, exc
            assert exc.pointer.startswith("/$defs/"), exc
            return
        assert refused is None, f"not refused: {refused}"
        package = f"hostile_{next(_COUNTER)}"
        files = files_of(pkg, package)
        write_package(Path(tmp) / "out" / package, files, check_import=False)
        sys.path.insert(0, str(Path(tmp) / "out"))
        try:
            module = importlib.import_module(package)
            assert not Path(MARK).exists(), "code from the schema ran"
            _reads_back(module, files, file_name, schema["$defs"])
        finally:
            sys.path.remove(str(Path(tmp) / "out"))
            for name in [m for m in sys.modules if m.split(".")[0] == package]:
                del sys.modules[name]


def _reads_back(module: Any, files: dict[str, str], file_name: str, defs: Any) -> None:
    assert module.SCHEMA == file_name
    for rel, text in files.items():
        if rel.endswith(".py"):
            first = next(tokenize.generate_tokens(io.StringIO(text).readline))
            assert first.type == tokenize.COMMENT, rel
            said = first.string.removeprefix("# Generated by acpgen from ")
            assert ast.literal_eval(said[: said.rindex(" (sha256 ")]) == file_name, rel
    doc = module.types.__doc__
    assert doc.startswith(
        f"The types of the Agent Client Protocol, one per definition of {file_name}.\n"
    )
    thing, kind = defs["ThingNotification"], defs["Kind"]
    tree = ast.parse(files["types.py"])
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    if thing["description"].strip():
        got = ast.get_docstring(classes["ThingNotification"], clean=False)
        assert read_docstring(got or "", 4) == thing["description"].strip()
    (wire,) = (w for w in thing["properties"] if w != "kind")
    fields = {f.encode_name: f for f in msgspec.structs.fields(module.types.ThingNotification)}
    assert set(fields) == {wire, "kind"}
    field = fields[wire]
    assert field.default == thing["properties"][wire]["default"]
    described = thing["properties"][wire]["description"].strip()
    body = classes["ThingNotification"].body
    for stmt, after in zip(body, body[1:], strict=False):
        if isinstance(stmt, ast.AnnAssign) and ast.unparse(stmt.target) == field.name:
            said = after.value.value if isinstance(after, ast.Expr) else ""
            assert read_docstring(said, 4) == described
    for value in kind["enum"]:
        decoded = module.codec.decode(json.dumps(value), module.types.Kind)
        assert getattr(decoded, "value", decoded) == value
    assert list(module.methods.METHODS) == [thing["x-method"]]


HOSTILE_NAMES = (
    'x\nimport os;os.mkdir("pwned")\n#.json',
    'y"""+__import__("os").mkdir("pwned")+""".json',
    "# coding: utf-7 +AAo-__import__('os').mkdir('pwned').json",
)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_acpgen_generate_and_diff_prove_run_nothing_from_a_file_name(
    tmp_path: Path, name: str
) -> None:
    schema = tmp_path / name
    schema.write_text('{"$defs": {"A": {"type": "string"}}}')
    acpgen = [sys.executable, "-m", "acpgen"]
    run = subprocess.run(
        [*acpgen, "generate", name, "--out", "out", "--package", "p"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "pwned").exists()
    said = subprocess.run(
        [sys.executable, "-c", "import p; print(repr(p.SCHEMA))"],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert said.returncode == 0 and ast.literal_eval(said.stdout) == name
    other = tmp_path / "other.json"
    other.write_text('{"$defs": {"A": {"type": "string", "description": "a"}}}')
    run = subprocess.run(
        [*acpgen, "diff", "--prove", name, "other.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "pwned").exists()
