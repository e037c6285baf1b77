"""The generator's errors: broken input (`SchemaError`) and constructs without a typed form."""

from __future__ import annotations


class SchemaError(Exception):
    """The input is not a schema the generator can read: not JSON, not a JSON Schema, an
    unresolvable `$ref`, a keyword of the wrong JSON type, a def name that cannot be a Python name.

    `pointer` is the JSON pointer of the offending node (RFC 6901), so the user can find it.
    """

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(f"{pointer or '/'}: {message}")
        self.pointer = pointer
        self.message = message


def problem(path: object, exc: SchemaError) -> str:
    """One line for a schema the generator cannot read: the file, the JSON pointer, what is wrong.
    `acpgen generate` and `acpgen diff` both say it this way."""
    return f"{path}: {exc.pointer or '/'}: {exc.message}"


class Untyped(Exception):
    """A valid construct that has no typed form here: the builder gives it the general form.

    Never reaches the user: `build` catches it where the construct stands and records a notice.
    """

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(f"{pointer or '/'}: {message}")
        self.pointer = pointer
        self.message = message
