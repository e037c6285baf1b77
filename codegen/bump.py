"""`acpgen bump NEW_SCHEMA`: move the project to a new schema revision in one step.

It diffs the current schema against the new one, proves every verdict against real exchanges
between the two revisions' generated packages (as `acpgen diff --prove`), and prints the report. A
verdict the exchanges contradict is an acpgen bug: it refuses (exit 3). When a change is breaking
(or at least `--fail-on`) for `--role` and not accepted, it refuses and changes nothing. Otherwise
it replaces the schema, regenerates the package atomically and prepends the markdown report to the
change log (newest first, with both sha256s and the date).

Everything that can fail without touching a file (reading the schemas and the accept file, the
diff, building and rendering the package) runs first. Then the schema and the change log are
replaced (each atomically, their old bytes kept) and the package is swapped in last; if that fails,
the schema and the change log get their old bytes back. So a failure at any step leaves the three
exactly as they were.

Exit status as `acpgen diff`: 0 bumped (or already at that revision), 1 refused because of a
change, 2 bad input or a failed step, with one line on stderr naming what is wrong; 3 an acpgen
bug, nothing changed: the new package would not import (as `acpgen generate` says it), or the proof
contradicts a verdict of the diff.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .diff import diff_revisions, render_proof
from .diff.accept import AcceptError, load_accepts
from .diff.model import Report
from .diff.prove import Proof, prove
from .diff.render_markdown import render_markdown
from .diff.render_text import render_text
from .diff.revision import Revision, from_schema
from .diff.severity import FAIL_ON, ROLE_CHOICES, Gate
from .errors import SchemaError, problem
from .pipeline import files_of
from .schema import load
from .shadow import package_problem
from .write import BrokenPackage, WriteError, write_package

CHANGES_TITLE = "# Schema changes"
CHANGES_INTRO = (
    "Every bump of `schema/schema.json` made with `acpgen bump` (`make bump SCHEMA=...`),\n"
    "newest first. Each entry is the `acpgen diff` report of the bump; its *Python API* section\n"
    "lists the names of the generated package that were renamed or removed."
)


class BumpError(Exception):
    """A step of the bump failed; the message names the file and what is wrong.

    `exit_code` is 2 (bad input, a failed write) or 3 (acpgen's own bug: a package that would not
    import, as `acpgen generate` says it)."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Paths:
    """The files a bump reads and replaces."""

    schema: Path  # the project's current schema (replaced)
    out: Path  # the folder the package lives in
    package: str  # the package name
    changes: Path  # the change log (prepended to)

    @property
    def target(self) -> Path:
        return self.out / self.package


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has already explained
        return exc.code if isinstance(exc.code, int) else 2
    paths = Paths(args.schema, args.out, args.package, args.changes)
    try:
        return bump(
            args.new, paths, Gate(args.fail_on, args.role), args.accept, args.strict, out, err
        )
    except BumpError as exc:
        print(f"acpgen bump: {exc}", file=err)
        print("acpgen bump: nothing changed", file=err)
        return exc.exit_code


def bump(
    new_path: Path,
    paths: Paths,
    gate: Gate,
    accept: Path | None = None,
    strict: bool = False,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Bump `paths.schema` to the schema at `new_path`.

    BumpError when a step fails; nothing has changed then."""
    problem = package_problem(paths.package)
    if problem is not None:
        raise BumpError(f"--package {paths.package!r} {problem}")
    try:
        accepts = load_accepts(accept) if accept else ()
    except AcceptError as exc:
        raise BumpError(str(exc)) from None
    old = _revision(paths.schema, "current", paths.schema.name)
    new = _revision(
        new_path, "new", paths.schema.name
    )  # as generated once it is the project's schema
    new_schema = _read(new_path)
    if hashlib.sha256(new_schema).hexdigest() != new.schema.sha256:
        raise BumpError(f"{new_path} changed while it was being read")
    if old.schema.sha256 == new.schema.sha256:
        print(
            f"acpgen bump: {paths.schema} is already this revision ({new.schema.sha256});"
            " nothing to do",
            file=out,
        )
        return 0
    report = diff_revisions(old, new, accepts)
    proof = prove(report, old, new)
    out.write(render_text(report, gate) + "\n".join(render_proof.text_lines(proof)) + "\n")
    if proof.disagreements:
        raise BumpError(
            f"the proof contradicts {len(proof.disagreements)} verdict(s) of the diff: a bug in"
            " acpgen's diff rules or generator (please report it with both schemas): "
            + "; ".join(f"{c.rule} {c.subject}: {d}" for c, d in proof.disagreements),
            exit_code=3,
        )
    failing = gate.failing(report.changes)
    if failing:
        print(
            f"acpgen bump: refused: {len(failing)} change(s) are at least {gate.fail_on}"
            f" for --role {gate.role} and not accepted; review them and list the ones you accept,"
            " each with its reason, in an"
            " --accept file (see acpgen diff --help); nothing changed",
            file=err,
        )
        for c in failing:
            print(f"  {c.rule} {c.subject}: {c.detail}", file=err)
        return 1
    files = _files(new, new_path, paths.package, strict, err)
    entry = _entry(report, gate, accept, datetime.date.today(), proof)
    old_schema = _read(paths.schema)
    old_changes = _read(paths.changes) if paths.changes.exists() else None
    try:
        _replace(paths.schema, new_schema)
        _replace(paths.changes, _prepend(old_changes, entry).encode("utf-8"))
        write_package(paths.target, files)
    except BaseException as exc:  # an interrupt too: put the old bytes back before anything else
        _restore(paths.schema, old_schema)
        _restore(paths.changes, old_changes)
        if isinstance(exc, (WriteError, OSError)):
            raise BumpError(f"writing failed: {exc}") from None
        if isinstance(exc, BrokenPackage):
            raise BumpError(f"{exc}; please report it with the schema", exit_code=3) from None
        raise
    print(
        f"acpgen bump: {paths.schema} is now {new_path} ({new.schema.sha256}); wrote {paths.target}"
        f" ({len(files)} files); the report is at the top of {paths.changes}",
        file=out,
    )
    return 0


def _revision(path: Path, which: str, name: str) -> Revision:
    """A schema file as the diff sees it, built as the generator would build it under `name`
    (the file name is written into every generated file's header)."""
    try:
        return from_schema(dataclasses.replace(load(path), name=name), str(path))
    except SchemaError as exc:
        raise BumpError(f"{which} schema {problem(path, exc)}") from None


def _files(new: Revision, path: Path, package: str, strict: bool, err: TextIO) -> dict[str, str]:
    """The new package's files, rendered and formatted (nothing is written yet)."""
    level = "error" if strict else "warning"
    for notice in new.package.notices:
        print(f"acpgen bump: {level}: {path}: {notice}", file=err)
    if strict and new.package.notices:
        raise BumpError(
            f"--strict: {len(new.package.notices)} construct(s) of {path} have no typed form"
        )
    return files_of(new.package, package)


def _entry(
    report: Report, gate: Gate, accept: Path | None, day: datetime.date, proof: Proof
) -> str:
    """The change-log entry: the date, both sha256s, the markdown report and its proof."""
    head = [
        f"## {day.isoformat()}: `{report.old}` → `{report.new}`",
        "",
        f"- old sha256: `{report.old_sha256}`",
        f"- new sha256: `{report.new_sha256}`",
        f"- checked with `--fail-on {gate.fail_on} --role {gate.role}`"
        + (f", accepting what `{accept}` lists" if accept else ""),
        "",
    ]
    body = render_markdown(report, gate).split("\n", 2)[
        2
    ]  # drop its own title: the heading says it
    return "\n".join(head) + "\n" + body + "\n" + "\n".join(render_proof.markdown_lines(proof))


def _prepend(old: bytes | None, entry: str) -> str:
    """The change log with `entry` first, below the title and introduction."""
    text = old.decode("utf-8") if old is not None else ""
    if not text.startswith(CHANGES_TITLE):
        text = (
            f"{CHANGES_TITLE}\n\n{CHANGES_INTRO}\n\n{text}"
            if text
            else f"{CHANGES_TITLE}\n\n{CHANGES_INTRO}\n"
        )
    at = text.find("\n## ")
    head, rest = (text, "") if at < 0 else (text[: at + 1], text[at + 1 :])
    return f"{head.rstrip()}\n\n{entry.rstrip()}\n" + (f"\n{rest}" if rest else "")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BumpError(f"{path}: cannot read it: {exc.strerror}") from None


def _replace(path: Path, data: bytes) -> None:
    """Write a file atomically: a temporary file beside it, renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _restore(path: Path, data: bytes | None) -> None:
    """Put back the bytes a file had before the bump (None: it did not exist)."""
    if data is None:
        path.unlink(missing_ok=True)
    elif not path.exists() or path.read_bytes() != data:
        _replace(path, data)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acpgen bump",
        description="Move the project to a new ACP schema revision: diff, check, replace the"
        " schema,"
        " regenerate the package and record the report in the change log.",
        epilog="Exit status: 0 bumped, 1 refused (a change reaches --fail-on for --role and is not"
        " accepted), 2 bad input or a failed step, 3 an acpgen bug (the new package would not"
        " import, or the proof contradicts a verdict of the diff). Nothing changes unless it"
        " exits 0.",
    )
    parser.add_argument("new", type=Path, metavar="NEW_SCHEMA", help="the schema.json to move to")
    parser.add_argument(
        "--role",
        choices=ROLE_CHOICES,
        default="both",
        help="the side this project implements (default: both)",
    )
    parser.add_argument(
        "--accept",
        type=Path,
        metavar="FILE",
        help="TOML file of reviewed changes that do not block the bump",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="breaking",
        help="refuse when a change is at least this severe for --role (default: breaking)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse when a construct takes the general form instead of a typed one",
    )
    parser.add_argument(
        "--schema",
        type=Path,
        default=Path("schema/schema.json"),
        help="the current schema (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("generated"),
        help="the folder the package is in (default: %(default)s)",
    )
    parser.add_argument(
        "--package", default="acp_schema", help="the package name (default: %(default)s)"
    )
    parser.add_argument(
        "--changes",
        type=Path,
        default=Path("SCHEMA-CHANGES.md"),
        help="the change log (default: %(default)s)",
    )
    return parser
