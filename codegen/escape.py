"""Text from the input as Python source: one escaping function per place it can stand.

Everything the schema (or its file name) says reaches a generated module through one of these, and
nothing else: `comment` for a `#` comment, `docstring` for a whole docstring, `docstring_part` for
a piece of template prose inside one, `literal` for a value in code. Each gives back source that
reads back as exactly the text it was given (a comment holds a string literal of it), whatever the
text holds: newlines of any kind, quotes, backslashes, NUL, lone surrogates, an encoding
declaration. The output is what black leaves as it is, so formatting does not change the value.
"""

from __future__ import annotations

import math
from typing import Any


class Unwritable(ValueError):
    """A value that has no Python literal (a non-finite float, a value that is not JSON)."""


def _escaped(ch: str) -> str:
    """The escape sequence of one character, as a Python string literal spells it."""
    if ch == "\\":
        return "\\\\"
    if ch == '"':
        return "\\x22"
    if ch == " ":
        return "\\x20"
    return ch.encode("unicode_escape").decode("ascii")


def _inline(ch: str) -> str:
    """A character as it can stand anywhere inside a docstring's line: printable ones as they are
    (but the backslash), others escaped (line breaks of every kind, tabs, NUL, surrogates)."""
    if ch == "\\" or not ch.isprintable():
        return _escaped(ch)
    return ch


def docstring_part(text: str) -> str:
    """A piece of text inside a docstring's line, between template prose: it breaks no line and
    no quotes (every `"` is escaped)."""
    return "".join(_escaped(ch) if ch == '"' else _inline(ch) for ch in text)


def docstring(text: str, indent: int = 0) -> str:
    """A triple-quoted docstring literal whose value is `text`, continuation lines indented by
    `indent` spaces (black's indentation at that depth); "" for an empty text (no docstring).

    Read back: the value's first line, then each further line without the indent, the last line
    (the indent alone, before the closing quotes) left out; `read_docstring` does it.
    """
    if not text:
        return ""
    pad = " " * indent
    lines = [_line(line) for line in text.split("\n")]
    lines[0] = _lead(lines[0])
    rest = [line for line in lines[1:] if line]
    if rest and all(line.startswith(" ") for line in rest):
        # black dedents continuation lines that all start with a space: keep one as it is
        first = lines.index(rest[0], 1)
        lines[first] = _lead(lines[first])
    if len(lines) == 1:
        body = _quote_ends(lines[0])
        return f'"""{body}"""'
    lines[0] = _quote_ends(lines[0], end=False)
    body = "\n".join((pad + line) if line else "" for line in lines[1:])
    return f'"""{lines[0]}\n{body}\n{pad}"""'


def read_docstring(value: str, indent: int = 0) -> str:
    """The text `docstring(text, indent)` was given, from the docstring's value."""
    lines = value.split("\n")
    if len(lines) == 1:
        return value
    pad = " " * indent
    if lines[-1] != pad:
        raise ValueError(f"not a docstring of indent {indent}: {value!r}")
    return "\n".join([lines[0], *(line[len(pad) :] for line in lines[1:-1])])


def _line(line: str) -> str:
    """One line of a docstring: no quote run of three, no trailing space (black strips it)."""
    out: list[str] = []
    quotes = 0
    for ch in line:
        if ch == '"':
            quotes += 1
            out.append(_escaped(ch) if quotes == 3 else ch)
            quotes %= 3
        else:
            quotes = 0
            out.append(_inline(ch))
    end = len(out)
    while end and out[end - 1] == " ":
        end -= 1
    return "".join(out[:end]) + _escaped(" ") * (len(out) - end)


def _lead(line: str) -> str:
    """A line whose leading spaces black would strip or dedent: its first space escaped."""
    return _escaped(" ") + line[1:] if line.startswith(" ") else line


def _quote_ends(line: str, end: bool = True) -> str:
    """A quote next to the docstring's own quotes escaped (black would pad it with a space)."""
    if line.startswith('"'):
        line = _escaped('"') + line[1:]
    if end and line.endswith('"'):
        line = line[:-1] + _escaped('"')
    return line


def comment(text: str) -> str:
    """`text` on one `#` comment line, as a Python string literal of it (`ast.literal_eval` reads
    it back). It holds no line break, and never an encoding declaration (PEP 263: `coding:` or
    `coding=` on one of a file's first two lines would choose the codec the file is read with)."""
    out: list[str] = []
    for ch in repr(text):
        if ch in ":=" and out[-6:] == list("coding"):
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def literal(value: Any) -> str:
    """A JSON value as a Python literal that evaluates to it; Unwritable for one that has none."""
    if isinstance(value, float) and not math.isfinite(value):
        raise Unwritable(f"{value!r} is not a finite number")
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise Unwritable(f"not a JSON value: {value!r}")


__all__ = [
    "Unwritable",
    "comment",
    "docstring",
    "docstring_part",
    "literal",
    "read_docstring",
]
