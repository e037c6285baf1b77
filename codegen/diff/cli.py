"""`acpgen diff OLD NEW [options]` and `acpgen diff --list-rules`.

Exit status: 0 when no change reaches `--fail-on` (default `none`), 1 when one does, 2 on bad
input (a file that is not a schema, a bad accept file, bad options), with one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import SchemaError, problem
from . import diff_revisions
from .accept import AcceptError, load_accepts
from .listing import list_rules
from .render_json import render_json
from .render_markdown import render_markdown
from .render_text import render_text
from .revision import Revision, load_revision
from .severity import FAIL_ON, ROLE_CHOICES, Gate

FORMATS = ("text", "markdown", "json")


class _BadSchema(Exception):
    """A schema file the generator cannot read; the message names the file and what is wrong."""


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has already explained
        return exc.code if isinstance(exc.code, int) else 2
    if args.list_rules:
        sys.stdout.write(list_rules(args.format))
        return 0
    if args.old is None or args.new is None:
        parser.print_usage(sys.stderr)
        print("acpgen diff: give OLD and NEW schema files (or --list-rules)", file=sys.stderr)
        return 2
    try:
        accepts = load_accepts(args.accept) if args.accept else ()
        old, new = _load(args.old, "old"), _load(args.new, "new")
    except (AcceptError, _BadSchema) as exc:
        print(f"acpgen diff: {exc}", file=sys.stderr)
        return 2
    report = diff_revisions(old, new, accepts)
    gate = Gate(args.fail_on, args.role)
    if args.format == "json":
        sys.stdout.write(render_json(report, gate))
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(report, gate))
    else:
        sys.stdout.write(
            render_text(report, gate, colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
        )
    return 1 if gate.failing(report.changes) else 0


def _load(path: str, which: str) -> Revision:
    try:
        return load_revision(path)
    except SchemaError as exc:
        raise _BadSchema(f"{which} schema {problem(path, exc)}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acpgen diff",
        description=(
            "What changed between two ACP schema revisions, and for which side it is breaking."
        ),
        epilog="Exit status: 0 nothing reaches --fail-on, 1 something does, 2 bad input.",
    )
    parser.add_argument("old", nargs="?", help="the older schema.json")
    parser.add_argument("new", nargs="?", help="the newer schema.json")
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="none",
        help=(
            "exit 1 when a change is at least this severe (any: every listed change; default: none)"
        ),
    )
    parser.add_argument(
        "--role",
        choices=ROLE_CHOICES,
        default="both",
        help="count toward --fail-on only what this side must fix (default: both)",
    )
    parser.add_argument(
        "--accept",
        metavar="FILE",
        help="TOML file of reviewed changes that do not count toward --fail-on",
    )
    parser.add_argument(
        "--list-rules",
        action="store_true",
        help="print every rule with its explanation and migration hint",
    )
    return parser
