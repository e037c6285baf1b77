"""What the object and union builders use of the def builder (`build.Builder`), as a Protocol: they
sit below it, so they name the part they call, never the class that calls them."""

from __future__ import annotations

from typing import Any, Protocol

from .ir import Def, Tag, TypeExpr


class DefBuilder(Protocol):
    """The schema's defs, the defs built so far, and the builder's operations on them."""

    defs: dict[str, Any]
    built: dict[str, Def]
    ref_counts: dict[str, int]
    tags: dict[str, Tag]

    def get(self, name: str) -> Def: ...

    def add(self, d: Def) -> None: ...

    def synthetic_name(self, *parts: str) -> str: ...

    def check(self, pointer: str, node: Any) -> str: ...

    def type_or_checked(self, node: Any, pointer: str) -> TypeExpr: ...
