"""Generated names never shadow the names the generated code itself uses.

A def is a name of `types.py` (elsewhere the package reaches it as `t.NAME` or `types.NAME`),
an error class a name of `errors.py`. Each takes a trailing `_` where it would be a name that
module uses: any builtin (`str`, `int`, `list`, ...), or a name the module as generated binds
or refers to (`msgspec` and `typing` under their import names, the package's helpers). Those
are not listed by hand: they are read from the modules as rendered for a schema without defs,
so a template that starts using a name protects it too. What the templates write per def
refers to builtins and to the `_`-prefixed module names only, which no schema name takes.

A field is a name of its Struct's body, where msgspec reads the annotations of every field: a
field takes a trailing `_` where its Struct's annotations or defaults refer to its name.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import keyword
import sys
import unicodedata
from functools import cache
from typing import Callable

from .ir import (
    AliasDef,
    Def,
    EnumDef,
    Field,
    ListOf,
    MapOf,
    ObjectDef,
    Package,
    Ref,
    TypeExpr,
    UnionDef,
    UnionOf,
)

# The generated modules whose names a def, a field or an error class takes.
_DEF_MODULES = ("types.py",)
_ERROR_MODULES = ("errors.py",)


@cache
def used(module: str) -> frozenset[str]:
    """Every builtin, and every name `module` binds or refers to when generated without defs."""
    from .render import render_templates  # render uses this module

    empty = Package(schema_name="", schema_sha256="", defs=(), methods=(), error_codes=())
    names = set(dir(builtins))
    for node in ast.walk(ast.parse(render_templates(empty, "package")[module])):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return frozenset(names)


@cache
def imported() -> frozenset[str]:
    """The top-level modules the generated package imports (`msgspec` and standard modules)."""
    from .render import render_templates  # render uses this module

    empty = Package(schema_name="", schema_sha256="", defs=(), methods=(), error_codes=())
    names: set[str] = set()
    for rel, text in render_templates(empty, "package").items():
        if rel.endswith(".py"):
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return frozenset(names - {"__future__"})


def package_problem(name: str) -> str | None:
    """Why `name` cannot name a generated package, or None: it must be an identifier as Python
    reads it (NFKC form), and no module of the standard library or one the package imports, which
    it would stand in for."""
    if not name.isidentifier() or keyword.iskeyword(name):
        return "is not a Python identifier"
    read_as = unicodedata.normalize("NFKC", name)
    if read_as != name:
        return f"is not in NFKC form: Python would import it as {read_as!r}"
    if name in sys.stdlib_module_names or name in imported():
        return "is the name of a module the package or the standard library needs"
    return None


def _taken(modules: tuple[str, ...]) -> frozenset[str]:
    return frozenset().union(*(used(m) for m in modules))


def def_name(name: str) -> str:
    """The Python name of a def named `name` (its own, unless that would shadow)."""
    return _free(name, _taken(_DEF_MODULES))


def shadows(name: str) -> bool:
    """A def of this name would shadow a name the generated code uses (and is renamed)."""
    return def_name(name) != name


def _free(name: str, taken: frozenset[str] | set[str]) -> str:
    while name in taken:
        name += "_"
    return name


def names_in(source: str) -> set[str]:
    """The names a Python expression refers to."""
    return {n.id for n in ast.walk(ast.parse(source, mode="eval")) if isinstance(n, ast.Name)}


def rename_fields(pkg: Package, referenced: Callable[[ObjectDef], set[str]]) -> Package:
    """The package with each field renamed that its Struct's annotations or defaults refer to by
    name (`referenced`): msgspec reads them in the class's namespace, where a field `int` is not
    the builtin."""
    defs = tuple(
        (
            dataclasses.replace(d, fields=_fields(d.fields, referenced(d)))
            if isinstance(d, ObjectDef)
            else d
        )
        for d in pkg.defs
    )
    return pkg if defs == pkg.defs else dataclasses.replace(pkg, defs=defs)


def rename_defs(pkg: Package) -> Package:
    """The package with every def and error class that would shadow renamed."""
    own = {d.name for d in pkg.defs}
    renames: dict[str, str] = {}
    for d in pkg.defs:
        if shadows(d.name):
            new = _free(d.name, _taken(_DEF_MODULES) | own | set(renames.values()))
            renames[d.name] = new
    defs = tuple(_def(d, renames) for d in pkg.defs)
    error_taken = set(_taken(_ERROR_MODULES))
    errors = []
    for e in pkg.error_codes:
        name = _free(e.class_name, error_taken)
        error_taken.add(name)
        errors.append(dataclasses.replace(e, class_name=name))
    methods = tuple(
        dataclasses.replace(
            m,
            params=renames.get(m.params, m.params),
            result=renames.get(m.result, m.result) if m.result else m.result,
        )
        for m in pkg.methods
    )
    if not renames and defs == pkg.defs and tuple(errors) == pkg.error_codes:
        return pkg
    return dataclasses.replace(pkg, defs=defs, methods=methods, error_codes=tuple(errors))


def _def(d: Def, renames: dict[str, str]) -> Def:
    name = renames.get(d.name, d.name)
    if isinstance(d, ObjectDef):
        return dataclasses.replace(
            d,
            name=name,
            base=renames.get(d.base, d.base) if d.base else d.base,
            fields=tuple(dataclasses.replace(f, type=_type(f.type, renames)) for f in d.fields),
        )
    if isinstance(d, UnionDef):
        variants = tuple(
            dataclasses.replace(v, type=renames.get(v.type, v.type)) for v in d.variants
        )
        return dataclasses.replace(d, name=name, variants=variants)
    if isinstance(d, AliasDef):
        return dataclasses.replace(d, name=name, type=_type(d.type, renames))
    assert isinstance(d, EnumDef)
    return dataclasses.replace(d, name=name)


def _fields(fields: tuple[Field, ...], taken: set[str]) -> tuple[Field, ...]:
    names = {f.name for f in fields}
    out = []
    for f in fields:
        if f.name in taken:
            name = _free(f.name, taken | names)
            names.add(name)
            f = dataclasses.replace(f, name=name)
        out.append(f)
    return tuple(out)


def _type(t: TypeExpr, renames: dict[str, str]) -> TypeExpr:
    if isinstance(t, Ref):
        return dataclasses.replace(t, name=renames.get(t.name, t.name))
    if isinstance(t, ListOf):
        return dataclasses.replace(t, item=_type(t.item, renames))
    if isinstance(t, MapOf):
        return dataclasses.replace(t, value=_type(t.value, renames))
    if isinstance(t, UnionOf):
        return dataclasses.replace(t, options=tuple(_type(o, renames) for o in t.options))
    return t


__all__ = [
    "def_name",
    "imported",
    "package_problem",
    "names_in",
    "rename_defs",
    "rename_fields",
    "shadows",
    "used",
]
