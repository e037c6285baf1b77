"""The reference tokens of a JSON pointer (RFC 6901), which every place that names a spot in a
schema writes and reads: the loader, the bounds on input, the diff."""

from __future__ import annotations


def escape(token: str) -> str:
    """One reference token of a JSON pointer (RFC 6901): `~` as `~0`, `/` as `~1`."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The name one reference token of a JSON pointer stands for (the inverse of `escape`)."""
    return token.replace("~1", "/").replace("~0", "~")
