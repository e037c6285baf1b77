"""README's Layout table against the tree: every module and package of `codegen/`, `runtime/` (with
`jsonrpc/`, `protocol/` and `http/`) and `examples/` is mentioned, and every path and module the
table names exists.

A module `D/m.py` is mentioned when the row of `D/` names it (`m.py` in backquotes) or a row of
its own (`D/m.py`) exists; a package `D/p/` when a row of its own exists or the row of `D/` names
`p/`. Package markers (`__init__.py`, `__main__.py`) are the package's row. The list comes from the
tree, never from a fixed list here: a module added or removed fails until the table says so.
"""

from __future__ import annotations

import re

from tests.docs.readme import ROOT, section

LISTED = (
    "codegen",
    "runtime",
    "runtime/jsonrpc",
    "runtime/protocol",
    "runtime/http",
    "examples",
)  # folders whose modules are listed
MARKERS = {"__init__.py", "__main__.py"}


def rows(text: str | None = None) -> dict[str, str]:
    """Layout table: path (as written, without backquotes) -> the rest of the row."""
    out = {}
    for line in section("Layout", text).splitlines():
        match = re.match(r"\| `([^`]+)` \|(.*)\|\s*$", line)
        if match:
            out[match.group(1)] = match.group(2)
    return out


def unmentioned(table: dict[str, str]) -> list[str]:
    missing = []
    for folder in LISTED:
        where = table.get(folder + "/", "")
        for path in sorted((ROOT / folder).iterdir()):
            name = path.name
            if path.is_file() and name.endswith(".py") and name not in MARKERS:
                if f"`{name}`" not in where and f"{folder}/{name}" not in table:
                    missing.append(f"{folder}/{name}")
            elif path.is_dir() and (path / "__init__.py").exists():
                if f"{folder}/{name}/" not in table and f"`{name}/`" not in where:
                    missing.append(f"{folder}/{name}/")
    return missing


def absent(table: dict[str, str]) -> list[str]:
    """Paths the table names that the tree does not have, and modules named in the row of a folder
    of `codegen/`, `runtime/` or `examples/` that the folder does not have."""
    gone = [path for path in table if not (ROOT / path).exists()]
    for path, text in table.items():
        if path.endswith("/") and path.startswith(LISTED) and (ROOT / path).is_dir():
            gone += [
                f"{path}{m}"
                for m in re.findall(r"`([A-Za-z_][\w]*\.py)`", text)
                if not (ROOT / path / m).exists()
            ]
    return gone


def test_every_module_is_in_the_layout_table() -> None:
    missing = unmentioned(rows())
    assert not missing, "README's Layout table does not mention: " + ", ".join(missing)


def test_everything_the_layout_table_names_exists() -> None:
    gone = absent(rows())
    assert not gone, "README's Layout table names what the tree lacks: " + ", ".join(gone)


def test_the_check_sees_a_module_the_table_leaves_out() -> None:
    table = rows()
    table["runtime/"] = table["runtime/"].replace("`session.py`", "`sessions`")
    assert unmentioned(table) == ["runtime/session.py"]
    table["runtime/http/"] += " `nowhere.py`"
    assert absent(table) == ["runtime/http/nowhere.py"]
