"""Mechanical naming rules: every Python name of the package comes from the schema through here."""

from __future__ import annotations

import re

# The names a generated attribute, method or member must not take, fixed here rather than read from
# the running interpreter's `keyword` module: the generated package is the same bytes whatever
# Python runs the generator (3.12 made `type` a soft keyword, which would rename
# `ElicitationSchema.type` to `type_`). The hard keywords of Python 3.11 to 3.13, and the soft
# keywords of 3.11 (`_`, `case`, `match`), which the committed packages were generated with; a
# soft keyword is a valid name, so later ones (`type`) are not added.
RESERVED = frozenset(
    {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield",
        "_", "case", "match",
    }
)  # fmt: skip

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9]|\b|_|$)|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")


def words(text: str) -> list[str]:
    """Split a wire name into words: `currentModeId` -> current, mode, id; `_meta` -> meta."""
    out: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", text):
        out.extend(m.group(0) for m in _WORD.finditer(chunk))
    return out


def snake(text: str) -> str:
    """An attribute or method name: `sessionId` -> `session_id`, `session/new` -> `session_new`."""
    name = "_".join(w.lower() for w in words(text))
    return safe_identifier(name or "value")


def pascal(text: str, default: str | None = None) -> str:
    """A class name part: `agent_message_chunk` -> `AgentMessageChunk`.

    Text without a letter or digit gives `default`, or a ValueError when there is none.
    """
    name = "".join(w[:1].upper() + w[1:] for w in words(text))
    if not name:
        if default is not None:
            return default
        raise ValueError(f"cannot make a class name from {text!r}")
    return name if name[0].isalpha() else "V" + name


def constant(text: str) -> str:
    """An enum member name: `end_turn` -> `END_TURN`, `-32700` -> `MINUS_32700`."""
    prefix = "MINUS_" if text.startswith("-") else ""
    name = prefix + "_".join(w.upper() for w in words(text))
    if not name:
        name = "EMPTY"
    if name[0].isdigit():
        name = "V_" + name
    return safe_identifier(name)


def verbatim(text: str) -> str:
    """A wire name kept as it is, but for characters a Python name cannot hold (`_`)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text).lstrip("_")
    return name or "value"


def safe_identifier(name: str) -> str:
    if name[0].isdigit():
        name = "v_" + name
    if name in RESERVED:
        name += "_"
    return name
