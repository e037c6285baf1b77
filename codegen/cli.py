"""The `acpgen` command: `acpgen generate`, `diff`, `bump`, `check`, `acpgen --version`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .errors import SchemaError, problem

# acpgen is not on PyPI: the README's Install section installs it, with this extra, from a clone.
CODEGEN_EXTRA = (
    "in the acpgen clone's root, install the codegen extra: pip install -e '.[codegen]'"
    " (acpgen is not on PyPI; see Install in its README)"
)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["diff"]:
        from .diff.cli import main as diff_main  # its own options; see `acpgen diff --help`

        return diff_main(argv[1:])
    if argv[:1] == ["check"]:
        from .check.cli import main as check_main  # its own options; see `acpgen check --help`

        return check_main(argv[1:])
    if argv[:1] == ["bump"]:
        try:
            from .bump import main as bump_main  # its own options; see `acpgen bump --help`
        except ImportError as exc:
            needs = f"acpgen: bumping needs {exc.name}, which is not installed: {CODEGEN_EXTRA}"
            print(needs, file=sys.stderr)
            return 2
        return bump_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="acpgen",
        description="Generate msgspec packages from the Agent Client Protocol JSON Schema.",
    )
    parser.add_argument("--version", action="version", version=f"acpgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser(
        "diff",
        help=(
            "what changed between two schema revisions, and whom it breaks (see acpgen diff --help)"
        ),
    )
    commands.add_parser(
        "bump", help="move to a new schema revision: diff, check, regenerate, log it (bump --help)"
    )
    commands.add_parser(
        "check", help="check an ACP agent's conformance over stdio (see acpgen check --help)"
    )
    gen = commands.add_parser("generate", help="write a package for a schema.json")
    gen.add_argument("schema", type=Path, help="the ACP schema.json to read")
    gen.add_argument("--out", type=Path, required=True, help="the folder the package goes into")
    gen.add_argument("--package", required=True, help="the package name (a Python identifier)")
    gen.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the package on disk is stale"
    )
    gen.add_argument(
        "--strict",
        action="store_true",
        help="refuse (exit 2) when a construct takes the general form instead of a typed one",
    )

    args = parser.parse_args(argv)
    if args.command == "generate":
        return _generate(args)
    parser.error(f"unknown command {args.command}")
    return 2


def _generate(args: argparse.Namespace) -> int:
    try:
        from .pipeline import files_of, read
        from .shadow import package_problem
        from .write import BrokenPackage, WriteError, stale_files, write_package
    except ImportError as exc:
        print(
            f"acpgen: generating needs {exc.name}, which is not installed: {CODEGEN_EXTRA}",
            file=sys.stderr,
        )
        return 2
    problem_of_name = package_problem(args.package)
    if problem_of_name is not None:
        print(f"acpgen: --package {args.package!r} {problem_of_name}", file=sys.stderr)
        return 2
    try:
        package = read(args.schema)
    except SchemaError as exc:
        print(f"acpgen: {problem(args.schema, exc)}", file=sys.stderr)
        return 2
    for warning in package.warnings:
        print(f"acpgen: warning: {args.schema}: {warning}", file=sys.stderr)
    level = "error" if args.strict else "warning"
    for notice in package.notices:
        print(f"acpgen: {level}: {args.schema}: {notice}", file=sys.stderr)
    if args.strict and package.notices:
        print(
            f"acpgen: --strict: {len(package.notices)} construct(s) have no typed form; nothing"
            " written",
            file=sys.stderr,
        )
        return 2
    files = files_of(package, args.package)
    target = args.out / args.package
    if args.check:
        problems = stale_files(target, files)
        for line in problems:
            print(f"{target}: {line}")
        if problems:
            print(
                "acpgen: the package is stale: run `make generate` (or acpgen generate without"
                " --check)",
                file=sys.stderr,
            )
            return 1
        return 0
    try:
        write_package(target, files)
    except (WriteError, OSError) as exc:
        print(f"acpgen: {exc}", file=sys.stderr)
        return 2
    except BrokenPackage as exc:  # a bug of acpgen's, never the schema's: say so, write nothing
        print(f"acpgen: {exc}; please report it with the schema", file=sys.stderr)
        return 3
    print(f"acpgen: wrote {target} ({len(files)} files) from {args.schema}")
    return 0
