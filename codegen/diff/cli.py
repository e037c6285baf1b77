"""`acpgen diff OLD NEW [options]` and `acpgen diff --list-rules`.

Exit status: 0 when no change reaches `--fail-on` (default `none`), 1 when one does, 2 on bad
input (a file that is not a schema, a bad accept file, bad options), with one line on stderr; 3
when `--prove` finds a verdict the exchanges contradict (a bug in acpgen, each one on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..cli_args import parse_args, usage_error
from ..errors import SchemaError, problem
from . import diff_revisions, render_proof
from .accept import AcceptError, load_accepts
from .listing import list_rules
from .model import Report
from .prove import Proof, prove
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
    args, status = parse_args(parser, argv)
    if args is None:
        return status
    if args.list_rules:
        sys.stdout.write(list_rules(args.format))
        return 0
    if args.old is None or args.new is None:
        return usage_error(parser, "give OLD and NEW schema files (or --list-rules)")
    try:
        accepts = load_accepts(args.accept) if args.accept else ()
        old, new = _load(args.old, "old"), _load(args.new, "new")
    except (AcceptError, _BadSchema) as exc:
        print(f"acpgen diff: {exc}", file=sys.stderr)
        return 2
    report = diff_revisions(old, new, accepts)
    gate = Gate(args.fail_on, args.role)
    proof = prove(report, old, new) if args.prove else None
    sys.stdout.write(_render(report, gate, args.format, proof))
    if proof is not None and proof.disagreements:
        print(
            f"acpgen diff: the proof contradicts {len(proof.disagreements)} verdict(s): a bug in"
            " acpgen's diff rules or generator (please report it with both schemas)",
            file=sys.stderr,
        )
        for change, problem in proof.disagreements:
            print(f"  {change.rule} {change.subject}: {problem}", file=sys.stderr)
        return 3
    return 1 if gate.failing(report.changes) else 0


def _render(report: Report, gate: Gate, fmt: str, proof: Proof | None) -> str:
    if fmt == "json":
        out = render_json(report, gate)
        if proof is None:
            return out
        document = json.loads(out)
        document["proof"] = render_proof.json_value(proof)
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        out = render_markdown(report, gate)
        return out if proof is None else out + "\n" + "\n".join(render_proof.markdown_lines(proof))
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    out = render_text(report, gate, colour=colour)
    return out if proof is None else out + "\n".join(render_proof.text_lines(proof)) + "\n"


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
        epilog=(
            "Exit status: 0 nothing reaches --fail-on, 1 something does, 2 bad input, 3 --prove"
            " contradicts a verdict (an acpgen bug)."
        ),
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
        "--prove",
        action="store_true",
        help=(
            "check every verdict against real exchanges between both revisions' generated"
            " packages; exit 3 when one is contradicted"
        ),
    )
    parser.add_argument(
        "--list-rules",
        action="store_true",
        help="print every rule with its explanation and migration hint",
    )
    return parser
