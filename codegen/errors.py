"""The one error type the generator raises for bad input."""

from __future__ import annotations


class SchemaError(Exception):
    """The schema cannot be turned into a package.

    `pointer` is the JSON pointer of the offending node (RFC 6901), so the user can find it.
    """

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(f"{pointer or '/'}: {message}")
        self.pointer = pointer
        self.message = message
