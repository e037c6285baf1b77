"""`acpgen generate --check` on a package folder that is not there: a mistyped `--out` or
`--package` must read as stale (every file missing), never as up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from acpgen.cli import main

SCHEMA = Path(__file__).resolve().parents[2] / "schema" / "schema.json"


@pytest.mark.parametrize("missing", ["out", "package"])
def test_check_fails_when_the_package_folder_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], missing: str
) -> None:
    out = tmp_path / ("genreated" if missing == "out" else "generated")
    (tmp_path / "generated").mkdir()
    code = main(["generate", str(SCHEMA), "--out", str(out), "--package", "pkg", "--check"])
    printed = capsys.readouterr()
    assert code == 1, f"--check on the absent folder {out / 'pkg'} exited {code}"
    assert "missing: __init__.py" in printed.out and "stale" in printed.err
    assert not (out / "pkg").exists(), "--check wrote the package"
