"""Two revisions compared: pair the defs (match.py), then compare the methods and the types.

Each change is emitted with the rule it falls under, where it flows (for its severity) and the
methods that carry it. Changes only to descriptions are counted, never listed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .emitter import Emitter
from .match import match_defs
from .method_changes import compare_methods
from .model import Change
from .revision import Revision
from .type_changes import compare_types


@dataclass(frozen=True)
class Comparison:
    changes: tuple[Change, ...]  # in a stable order: methods, then types, by subject
    descriptions_changed: int


def compare(old: Revision, new: Revision) -> Comparison:
    out = Emitter(old, new, match_defs(old, new))
    compare_methods(out)
    compare_types(out)
    return Comparison(out.sorted_changes(), out.descriptions)
