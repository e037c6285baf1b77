"""Every behavioural sentence of the README's wire and generator sections has a test that names it.

A behavioural sentence is any sentence of those sections' prose (tests/docs/readme.py says how
prose is split into sentences: code blocks and tables aside) that is not listed in NOT_CLAIMS,
the sentences that only point elsewhere or introduce a code block, each with why. A test names a
sentence with `@claim(fragment)` (tests/docs/claims.py): a piece of at least 30 characters of its
text. So a new or reworded sentence fails here until a test names it (or it is listed below as no
claim, with a reason), and a fragment no sentence holds any more fails too.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import tests.docs
from tests.docs.readme import CHECKED_SECTIONS, README, normalized, sentences

NOT_CLAIMS = {
    "The package's contract (modules, tables, naming rule, stubs) is in": "a pointer",
    "Or generate your own:": "introduces the code block that follows",
    'What "the same JSON value" allows, and what each case looks like:': "a pointer",
}


def fragments() -> dict[str, list[str]]:
    """Each claim fragment of the tests in tests/docs, with the tests that name it."""
    out: dict[str, list[str]] = {}
    for info in pkgutil.iter_modules(tests.docs.__path__):
        if not info.name.startswith("test_"):
            continue
        module = importlib.import_module(f"tests.docs.{info.name}")
        for name, test in inspect.getmembers(module, inspect.isfunction):
            for fragment in getattr(test, "readme_claims", ()):
                out.setdefault(normalized(fragment), []).append(f"{info.name}::{name}")
    return out


def all_sentences(text: str) -> list[str]:
    return [normalized(s) for heading in CHECKED_SECTIONS for s in sentences(heading, text)]


def untested(text: str, named: dict[str, list[str]]) -> list[str]:
    """The behavioural sentences of `text` that no fragment names."""
    return [
        s
        for s in all_sentences(text)
        if not any(f in s for f in named) and not any(n in s for n in NOT_CLAIMS)
    ]


def stale(text: str, named: dict[str, list[str]]) -> list[str]:
    """The fragments (of tests and of NOT_CLAIMS) that no sentence of `text` holds."""
    found = all_sentences(text)
    return [f for f in [*named, *NOT_CLAIMS] if not any(f in s for s in found)]


def test_every_behavioural_sentence_has_a_test_that_names_it() -> None:
    missing = untested(README.read_text("utf-8"), fragments())
    assert not missing, "README sentences without a test naming them (tests/docs):\n" + "\n".join(
        f"- {s}" for s in missing
    )


def test_every_named_sentence_is_still_in_the_readme() -> None:
    gone = stale(README.read_text("utf-8"), fragments())
    assert not gone, "claims whose README sentence is gone or reworded:\n" + "\n".join(gone)


def test_the_check_sees_a_new_sentence_and_a_reworded_one() -> None:
    text = README.read_text("utf-8")
    heading = f"## {CHECKED_SECTIONS[1]}\n"
    added = text.replace(heading, heading + "\nMessages are compressed on the wire.\n\n", 1)
    assert untested(added, fragments()) == ["Messages are compressed on the wire."]
    reworded = text.replace("Field names are snake_case", "Field names are camelCase", 1)
    assert untested(reworded, fragments()) == [
        normalized(s) for s in sentences(CHECKED_SECTIONS[1], reworded) if "camelCase" in s
    ]
    assert any("snake_case" in f for f in stale(reworded, fragments()))
