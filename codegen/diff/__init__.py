"""`acpgen diff OLD NEW`: what changed between two schema revisions, and whom it breaks.

One module a step, all reading the generator's IR (no second parser)::

    revision.py  load + build, and what the diff derives: reach.py (who sends what to whom)
    match.py     which def is which (same name, or a rename recognised by structure)
    compare.py   the changes, with exprs.py for type expressions
    rules.py     every rule: id, effect on sender and receiver, explanation, hint
    severity.py  severity per role, and `--fail-on` / `--role`
    accept.py    the `--accept` file
    python_api.py  the names of the generated package renamed or removed
    render_*.py  text, markdown, json; listing.py for `--list-rules`
    cli.py       the command
"""

from __future__ import annotations

from pathlib import Path

from .accept import Entry, apply
from .compare import compare
from .model import Report
from .python_api import python_api_changes
from .revision import Revision, load_revision


def diff_revisions(old: Revision, new: Revision, accepts: tuple[Entry, ...] = ()) -> Report:
    comparison = compare(old, new)
    changes, stale = apply(comparison.changes, accepts)
    return Report(
        old=old.label,
        new=new.label,
        old_sha256=old.schema.sha256,
        new_sha256=new.schema.sha256,
        changes=changes,
        descriptions_changed=comparison.descriptions_changed,
        stale=stale,
        python_api=python_api_changes(old, new, changes),
    )


def diff_files(old: str | Path, new: str | Path, accepts: tuple[Entry, ...] = ()) -> Report:
    """Compare two schema files; SchemaError when one is not a schema the generator can read."""
    return diff_revisions(load_revision(old), load_revision(new), accepts)


__all__ = ["Report", "Revision", "diff_files", "diff_revisions", "load_revision"]
