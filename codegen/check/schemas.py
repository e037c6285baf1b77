"""The generated package each protocol version is checked with: the installed default
(`acp_schema` for v1, `acp_schema_v2` for v2), or one generated on the fly from `--schema FILE`
into a cache folder (once per schema content) with the project's generator."""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

DEFAULTS = {1: "acp_schema", 2: "acp_schema_v2"}


class SchemaProblem(Exception):
    """--schema names a file the generator cannot turn into a package; the message says why."""


def default_package(version: int) -> ModuleType:
    return importlib.import_module(DEFAULTS[version])


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "acpgen" / "check"


def package_for_schema(schema: Path, cache: Path | None = None) -> ModuleType:
    """The package generated from `schema` (generated at most once per content, then reused)."""
    try:
        data = schema.read_bytes()
    except OSError as exc:
        raise SchemaProblem(f"--schema {schema}: {exc.strerror or exc}") from exc
    name = f"acpgen_check_{hashlib.sha256(data).hexdigest()[:16]}"
    root = cache or cache_root()
    target = root / name
    if not (target / "__init__.py").is_file():
        try:
            from ..errors import SchemaError, problem
            from ..pipeline import files_of, read
            from ..write import write_package
        except ImportError as exc:
            raise SchemaProblem(
                f"--schema needs the codegen extra ({exc.name} is not installed):"
                " pip install -e '.[codegen]' in the acpgen clone"
            ) from exc
        try:
            package = read(schema)
        except SchemaError as exc:
            raise SchemaProblem(problem(schema, exc)) from exc
        write_package(target, files_of(package, name))
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


def auth_call(package: ModuleType) -> str | None:
    """The request that runs an agent's auth flow in `package`: the one the agent receives whose
    params declare `methodId` (v1 `authenticate`, v2 `auth/login`), as the schema says; None when
    the package has none."""
    import msgspec

    for method, info in package.REQUESTS.items():
        params = info.params
        if info.side != "agent" or not isinstance(params, type):
            continue
        if issubclass(params, msgspec.Struct):
            if any(f.encode_name == "methodId" for f in msgspec.structs.fields(params)):
                return str(method)
    return None
