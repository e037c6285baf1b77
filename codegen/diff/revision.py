"""One schema revision as the diff sees it: the generator's IR plus what the diff derives from it.

Derived here, not in the IR: which defs are synthetic union variants (they are compared as part of
their union), how variants are keyed (by tag; see `variant_keys`), the descriptions of union
branches (the IR keeps no per-variant description; they tell UNSTABLE variants apart) and which
methods carry each def (reach.py).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import naming
from ..build import build
from ..errors import SchemaError
from ..ir import Def, Method, ObjectDef, Package, UnionDef, Variant
from ..schema import Schema, load
from ..types import annotation, shape, unwrap
from .reach import Reach, compute


@dataclass(frozen=True)
class Revision:
    label: str  # how the user named the file
    schema: Schema
    package: Package
    defs: Mapping[str, Def]
    reach: Reach
    variant_of: Mapping[str, str]  # synthetic variant def -> the union it belongs to
    branch_docs: Mapping[str, Mapping[str, str]]  # union -> tag value or title -> description

    @property
    def methods(self) -> tuple[Method, ...]:
        return self.package.methods

    def is_variant(self, name: str) -> bool:
        return name in self.variant_of

    def is_synthetic(self, name: str) -> bool:
        """A def the generator made up (a union variant): it has no def of its own in the schema."""
        return _synthetic(self.defs[name])

    def method_defs(self) -> set[str]:
        """The params and result defs of every method."""
        return {n for m in self.methods for n in (m.params, m.result) if n is not None}

    def branch_doc(self, union: UnionDef, variant: Variant) -> str:
        """The description written on the union branch a variant comes from."""
        key = variant.title or (_text(variant.tag.value) if variant.tag else "")
        return self.branch_docs.get(union.name, {}).get(key, "")


def load_revision(path: str | Path, label: str | None = None) -> Revision:
    """Load and build a schema file; SchemaError (from the generator) when it is not one."""
    return from_schema(load(path), str(path) if label is None else label)


def from_schema(schema: Schema, label: str) -> Revision:
    try:
        package = build(schema)
    except RecursionError:
        raise SchemaError(
            "", "the schema nests or refers to itself more deeply than the generator can follow"
        ) from None
    defs = {d.name: d for d in package.defs}
    unions = [d for d in package.defs if isinstance(d, UnionDef)]
    variant_of = {v.type: u.name for u in unions for v in u.variants if _synthetic(defs[v.type])}
    branch_docs = {u.name: _branch_docs(schema, u) for u in unions}
    return Revision(label, schema, package, defs, compute(schema, package), variant_of, branch_docs)


def variant_keys(union: UnionDef) -> dict[str, Variant]:
    """Each variant under a key that stays the same across revisions: its tag value.

    Variants that share a tag value (a branch whose payload is itself a union) add the part of
    their name that tells them apart; untagged variants use their title, else their name.
    """
    counts = Counter(v.tag.value for v in union.variants if v.tag is not None)
    keys: dict[str, Variant] = {}
    for v in union.variants:
        if v.tag is None:
            key = v.title or _after(v.type, union.name)
        elif counts[v.tag.value] == 1:
            key = _text(v.tag.value)
        else:
            tag = _text(v.tag.value)
            key = f"{tag}/{v.title or _after(v.type, union.name + naming.pascal(str(v.tag.value)))}"
        keys[key if key not in keys else f"{key}/{v.type}"] = v
    return keys


VariantPair = tuple[str, str, Variant, Variant]  # old key, new key, old variant, new variant


def pair_variants(
    a: UnionDef, b: UnionDef, defs: Mapping[str, str] | None = None
) -> tuple[list[VariantPair], dict[str, Variant], dict[str, Variant]]:
    """The variants of two revisions of a union: the pairs, the removed and the added.

    Variants pair up by key. Untagged ones left over then pair by payload (`defs` maps old def
    names to new ones), then by title whatever its case, and a lone untagged variant left on each
    side pairs with the other (a new title does not make a single-variant union another one).
    """
    olds, news = variant_keys(a), variant_keys(b)
    pairs = [(key, key, olds[key], news[key]) for key in olds if key in news]
    removed = {k: v for k, v in olds.items() if k not in news}
    added = {k: v for k, v in news.items() if k not in olds}
    paired = defs or {}
    _pair_untagged(pairs, removed, added, lambda va, vb: paired.get(va.type) == vb.type)
    _pair_untagged(
        pairs, removed, added, lambda va, vb: va.title.casefold() == vb.title.casefold() != ""
    )
    _pair_untagged(pairs, removed, added, lambda va, vb: True)
    return pairs, removed, added


def _pair_untagged(
    pairs: list[VariantPair],
    removed: dict[str, Variant],
    added: dict[str, Variant],
    alike: Callable[[Variant, Variant], bool],
) -> None:
    """Move untagged variants that are alike from removed and added to pairs, where the likeness is
    unique both ways."""
    olds = {k: v for k, v in removed.items() if v.tag is None}
    news = {k: v for k, v in added.items() if v.tag is None}
    for key_a, va in olds.items():
        hits = [key_b for key_b, vb in news.items() if alike(va, vb)]
        if len(hits) == 1 and [k for k, v in olds.items() if alike(v, news[hits[0]])] == [key_a]:
            pairs.append((key_a, hits[0], removed.pop(key_a), added.pop(hits[0])))


def _synthetic(d: Def) -> bool:
    return isinstance(d, ObjectDef) and d.synthetic


def _after(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) and len(name) > len(prefix) else name


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _branch_docs(schema: Schema, union: UnionDef) -> dict[str, str]:
    node = schema.node(union.pointer)
    if not isinstance(node, dict):
        return {}
    s = shape(unwrap(node))
    docs: dict[str, str] = {}
    for branch in s.get("oneOf") or s.get("anyOf") or []:
        if not isinstance(branch, dict):
            continue
        doc = annotation(branch, "description")
        prop = shape(unwrap(branch)).get("properties", {}).get(union.tag_field or "")
        key = (
            _text(prop["const"])
            if isinstance(prop, dict) and "const" in prop
            else branch.get("title", "")
        )
        if isinstance(doc, str) and key:
            docs.setdefault(key, doc.strip())
    return docs
