"""`@claim(fragment, ...)`: marks a test as the check of the README sentences holding `fragment`.

tests/docs/test_every_claim_is_tested.py reads the marks: every behavioural sentence of the
README's checked sections must hold the fragment of some test, and every fragment must still be
in one of those sentences (a test of a sentence that is gone, or was reworded, fails).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
MIN_FRAGMENT = 30  # characters: a fragment names one sentence, not a common phrase


def claim(*fragments: str) -> Callable[[F], F]:
    for fragment in fragments:
        if len(fragment) < MIN_FRAGMENT:
            raise ValueError(f"claim fragment too short to name a sentence: {fragment!r}")

    def mark(test: F) -> F:
        test.readme_claims = (*getattr(test, "readme_claims", ()), *fragments)  # type: ignore[attr-defined]
        return test

    return mark
