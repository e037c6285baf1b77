"""What type checkers are told matches what the runtime does, and ships with it."""

from __future__ import annotations

import ast
import inspect
import shutil
import subprocess
import sys
import tomllib
import typing
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_runtime import run_agent, serve_agent, spawn_agent
from acp_runtime.jsonrpc.engine import Engine
from acp_runtime.protocol.connection import Connection

ROOT = Path(__file__).resolve().parents[2]


def typed_dict_keys(path: Path, name: str) -> set[str]:
    """The keys of a TypedDict declared for type checkers only (under `if TYPE_CHECKING:`), with
    those of the TypedDicts of the same file it extends."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == name:
            keys = {
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id != "TypedDict":
                    keys |= typed_dict_keys(path, base.id)
            return keys
    raise AssertionError(f"{path.name} declares no {name}")


CONNECTION = ROOT / "runtime" / "protocol" / "connection.py"
OPTIONS = typed_dict_keys(CONNECTION, "ConnectionOptions")


def keywords(fn: Callable[..., object]) -> dict[str, inspect._ParameterKind]:
    """Each named parameter and its kind; `**options` stands for the `ConnectionOptions`."""
    found: dict[str, inspect._ParameterKind] = {}
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            found.update(dict.fromkeys(OPTIONS, param.KEYWORD_ONLY))
        else:
            found[name] = param.kind
    return found


def test_connection_options_name_every_keyword_option_of_a_connection() -> None:
    """Its own keyword options, and those it passes on to the engine (`**options`), which are
    the engine's keyword options but `strict` (the connection's `enforce_protocol`) and `screen`."""
    params = inspect.signature(Connection.__init__).parameters.values()
    options = {p.name for p in params if p.kind is p.KEYWORD_ONLY} - {"schema"}
    assert any(p.kind is p.VAR_KEYWORD for p in params)
    passed_on = typed_dict_keys(CONNECTION, "EngineOptions")
    assert options | passed_on == OPTIONS
    engine = inspect.signature(Engine.__init__).parameters.values()
    assert {p.name for p in engine if p.kind is p.KEYWORD_ONLY} - {"strict", "screen"} == passed_on


@pytest.mark.parametrize("fn", [spawn_agent, run_agent, serve_agent], ids=lambda fn: fn.__name__)
def test_each_typed_signature_of_an_entry_point_has_the_parameters_it_takes(
    fn: Callable[..., object],
) -> None:
    overloads = typing.get_overloads(fn)
    assert len(overloads) == 2  # the default package's, and another's given as schema=
    for overload in overloads:
        assert keywords(overload) == keywords(fn)


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The files of a wheel built from a copy of the project (what `pip install .` installs)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "src"
    for name in ("codegen", "templates", "runtime", "generated"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run([*command, "--wheel-dir", str(tmp_path), str(source)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("acpgen-*.whl")
    return zipfile.ZipFile(wheel).namelist()


def test_a_wheel_ships_py_typed_for_the_runtime_and_the_generated_package(
    wheel_names: list[str],
) -> None:
    assert "acp_runtime/py.typed" in wheel_names
    assert "acp_schema/py.typed" in wheel_names
    assert "acp_schema_v2/py.typed" in wheel_names


def test_a_wheel_ships_every_module_of_every_package(wheel_names: list[str]) -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_dirs = config["tool"]["setuptools"]["package-dir"]
    modules = {
        f"{package.replace('.', '/')}/{path.relative_to(ROOT / folder).as_posix()}"
        for package, folder in package_dirs.items()
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    missing = sorted(modules - set(wheel_names))
    assert not missing, "not in the wheel (add their packages to pyproject.toml): " + ", ".join(
        missing
    )
