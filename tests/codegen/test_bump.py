"""`acpgen bump NEW_SCHEMA`, run end to end in a copy of the repository (schema/, generated/).

Each test checks the three things a bump may touch afterwards: schema/schema.json, the generated
package and SCHEMA-CHANGES.md. They are either all moved to the new revision or all as they were.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acpgen.render import MARKER

from .conftest import REPO

OLDER_ENTRY = "\n\n".join(
    ["# Schema changes", "Intro kept as it is.", "## 2026-01-01: `a.json` → `b.json`", "An older bump.\n"]
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """What a bump reads and writes: the schema, the package, a change log of one entry."""
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    shutil.copytree(
        REPO / "generated", tmp_path / "generated", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "SCHEMA-CHANGES.md").write_text(OLDER_ENTRY)
    return tmp_path


def bump(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acpgen", "bump", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def derived(repo: Path, name: str, edit: Any) -> Path:
    """The repository's schema with one edit, written beside it as `name`."""
    document = json.loads((repo / "schema" / "schema.json").read_text())
    edit(document["$defs"])
    path = repo / name
    path.write_text(json.dumps(document, indent=2))
    return path


def add_optional_field(defs: dict[str, Any]) -> None:
    defs["Implementation"]["properties"]["vendor"] = {
        "type": "string",
        "description": "Who made it.",
    }


def add_required_field(defs: dict[str, Any]) -> None:
    defs["CancelNotification"]["properties"]["reason"] = {"type": "string"}
    defs["CancelNotification"]["required"].append("reason")


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every byte of the schema, the package and the change log, by path."""
    paths = [
        repo / "SCHEMA-CHANGES.md",
        *sorted((repo / "schema").rglob("*")),
        *sorted((repo / "generated").rglob("*")),
    ]
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in paths
        if p.is_file() and "__pycache__" not in p.parts
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def types_module(repo: Path) -> str:
    return (repo / "generated" / "acp_schema" / "types.py").read_text()


def test_a_compatible_bump_replaces_the_schema_regenerates_the_package_and_logs_the_report_first(
    repo: Path,
) -> None:
    old_sha = sha256(repo / "schema" / "schema.json")
    new = derived(repo, "new.json", add_optional_field)

    run = bump(repo, "new.json")

    assert run.returncode == 0, run.stderr
    assert (repo / "schema" / "schema.json").read_bytes() == new.read_bytes()
    assert f"sha256 {sha256(new)}" in types_module(repo).splitlines()[0]
    assert "vendor:" in types_module(repo)
    log = (repo / "SCHEMA-CHANGES.md").read_text()
    assert log.startswith("# Schema changes\n\nIntro kept as it is.\n\n## ")
    assert log.index("`schema/schema.json` → `new.json`") < log.index("An older bump.")
    assert f"old sha256: `{old_sha}`" in log and f"new sha256: `{sha256(new)}`" in log
    assert "`Implementation.vendor`" in log and "field-added-optional" in log
    assert "field-added-optional" in run.stdout  # the report is printed too


def test_a_breaking_bump_is_refused_and_changes_nothing(repo: Path) -> None:
    derived(repo, "new.json", add_required_field)
    before = snapshot(repo)

    run = bump(repo, "new.json")

    assert run.returncode == 1
    assert "field-added-required CancelNotification.reason" in run.stderr
    assert "nothing changed" in run.stderr
    assert snapshot(repo) == before


def test_a_breaking_change_listed_in_the_accept_file_lets_the_bump_through_with_its_reason_logged(
    repo: Path,
) -> None:
    new = derived(repo, "new.json", add_required_field)
    (repo / "accept.toml").write_text(
        '[[accept]]\nrule = "field-added-required"\nsubject = "CancelNotification.reason"\n'
        'reason = "our clients always say why"\n'
    )

    run = bump(repo, "new.json", "--accept", "accept.toml")

    assert run.returncode == 0, run.stderr
    assert (repo / "schema" / "schema.json").read_bytes() == new.read_bytes()
    assert f"sha256 {sha256(new)}" in types_module(repo).splitlines()[0]
    assert "reason: str" in types_module(repo)
    log = (repo / "SCHEMA-CHANGES.md").read_text()
    assert "_(accepted: our clients always say why)_" in log
    assert log.index("`CancelNotification.reason`") < log.index("An older bump.")


def test_a_bump_whose_package_cannot_be_written_puts_the_schema_and_the_change_log_back(
    repo: Path,
) -> None:
    derived(repo, "new.json", add_optional_field)
    (repo / "generated" / "acp_schema" / MARKER).unlink()  # no longer acpgen's to replace
    before = snapshot(repo)

    run = bump(repo, "new.json")

    assert run.returncode == 2
    assert "not generated by acpgen" in run.stderr and "nothing changed" in run.stderr
    assert snapshot(repo) == before
    assert not [
        p.name
        for p in repo.rglob(".*")
        if p.name.startswith((".schema.json.", ".SCHEMA-CHANGES.md."))
    ]


def test_a_new_schema_that_is_not_one_is_bad_input_and_changes_nothing(repo: Path) -> None:
    (repo / "new.json").write_text('{"$defs": {"Broken": {"type": 7}}}')
    before = snapshot(repo)

    run = bump(repo, "new.json")

    assert run.returncode == 2
    assert "new schema new.json: /$defs/Broken" in run.stderr
    assert snapshot(repo) == before
