"""Issue 40 item 8: every schema value that cannot be generated is refused with exit 2 and its
JSON pointer (it was exit 3, "internal error", or a traceback), and so are package names and
`--out` links that cannot be written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acpgen.cli import main
from acpgen.limits import MAX_ENUM, MAX_SCHEMA_BYTES, MAX_STRING

A = "/$defs/A"
BAD = {
    "nul-is-fine-but-a-surrogate-is-not": (
        '{"$defs": {"A": {"type": "string", "description": "a\\u0000\\ud800"}}}',
        A + "/description",
    ),
    "nfkc-def-name": (
        '{"$defs": {"\\uff30\\uff29\\uff2e\\uff27": {"type": "string"}}}',
        "/$defs/\uff30\uff29\uff2e\uff27",
    ),
    "quote-in-property-name": (
        '{"$defs": {"A": {"type": "object", "properties": {"a\\"b": {}}}}}',
        A + '/properties/a"b',
    ),
    "newline-in-property-name": (
        '{"$defs": {"A": {"type": "object", "properties": {"a\\nb": {}}}}}',
        A + "/properties/a\nb",
    ),
    "1e400": ('{"$defs": {"A": {"type": "number", "maximum": 1e400}}}', A + "/maximum"),
    "NaN": ('{"$defs": {"A": {"type": "number", "maximum": NaN}}}', A + "/maximum"),
    "multipleOf-0": ('{"$defs": {"A": {"type": "integer", "multipleOf": 0}}}', A + "/multipleOf"),
    "enum-over-2**63": (
        '{"$defs": {"A": {"type": "integer", "enum": [1, 9223372036854775808]}}}',
        A + "/enum/1",
    ),
    "5000-digits": (
        '{"$defs": {"A": {"type": "integer", "maximum": 1' + "0" * 5000 + "}}}",
        A + "/maximum",
    ),
    "invalid-pattern": ('{"$defs": {"A": {"type": "string", "pattern": "(["}}}', A + "/pattern"),
    "minLength-true": ('{"$defs": {"A": {"type": "string", "minLength": true}}}', A + "/minLength"),
    "500-levels": (
        '{"$defs": {"A": ' + '{"items": ' * 500 + "{}" + "}" * 500 + "}}",
        A + "/items" * 199 + ":",
    ),
    "huge-enum": (json.dumps({"$defs": {"A": {"enum": list(range(MAX_ENUM + 1))}}}), A + "/enum"),
    "long-description": (
        json.dumps({"$defs": {"A": {"description": "x" * (MAX_STRING + 1)}}}),
        A + "/description",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_value_that_cannot_be_generated_is_refused_with_its_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text, pointer = BAD[name]
    schema = tmp_path / "s.json"
    schema.write_text(text)
    assert main(["generate", str(schema), "--out", str(tmp_path), "--package", "p"]) == 2
    err = capsys.readouterr().err
    assert f"s.json: {pointer}" in err, err
    assert not (tmp_path / "p").exists()
    assert main(["diff", str(schema), str(schema)]) == 2


def test_a_schema_over_the_size_bound_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    with schema.open("wb") as f:
        f.truncate(MAX_SCHEMA_BYTES + 10)
    assert main(["generate", str(schema), "--out", str(tmp_path), "--package", "p"]) == 2
    assert f"larger than {MAX_SCHEMA_BYTES} bytes" in capsys.readouterr().err


def test_a_backtracking_pattern_generates_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text('{"$defs": {"A": {"type": "string", "pattern": "^(a+)+$"}}}')
    assert main(["generate", str(schema), "--out", str(tmp_path), "--package", "p"]) == 0
    assert "warning: " in (err := capsys.readouterr().err) and f"{A}/pattern" in err


@pytest.mark.parametrize("package", ["os", "sys", "msgspec", "typing", "\uff4f\uff53"])
def test_a_package_name_that_would_stand_for_another_module_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], package: str
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text("{}")
    assert main(["generate", str(schema), "--out", str(tmp_path), "--package", package]) == 2
    assert f"--package {package!r}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [schema]


def test_a_package_folder_that_is_a_link_is_refused_and_left_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "s.json"
    schema.write_text("{}")
    assert main(["generate", str(schema), "--out", str(tmp_path / "real"), "--package", "p"]) == 0
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "p").symlink_to(tmp_path / "real" / "p")
    assert main(["generate", str(schema), "--out", str(tmp_path / "out"), "--package", "p"]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["p"]
    assert (tmp_path / "out" / "p").is_symlink()


def test_a_property_or_a_value_named_like_a_keyword_is_no_keyword(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    a = {
        "type": "object",
        "properties": {"minItems": {"type": "integer"}, "pattern": {"type": "string"}},
        "default": {"minItems": -1, "pattern": "(["},
    }
    schema.write_text(json.dumps({"$defs": {"A": a}}))
    assert main(["generate", str(schema), "--out", str(tmp_path), "--package", "p"]) == 0
