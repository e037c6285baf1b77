"""Unknown values of open sets that stress the encoder, and where a decoded value holds open sets.

UNKNOWN_VALUES                       mixed case, escapes, controls, astral characters, lengths
open_set_paths(decoded) -> [path]    where a decoded value holds a member of an open string set
replaced(instance, path, value)      a copy of a JSON value with the value at `path` replaced
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

UNKNOWN_VALUES = (
    "Quantum-X",
    "",
    "ALL CAPS",
    "mIxEd_CaSe.Value/2",
    'quote " backslash \\ slash /',
    "tab\tnewline\ncr\r",
    "nul\u0000unit\u001fdel\u007f",
    "\u2028\u2029 separators",
    "Ünïcödé Straße Ω 中文",
    "astral 😀\U0010fffd",
    "E" * 31,
    "Zz" * 4096,
    'x\\"' * 700,
    "é" * 40000,
    "L" * (64 * 1024 + 1),
)
"""Around the sizes that matter: msgspec's small-string paths, 4 KiB and 64 KiB buffers."""


def open_set_paths(decoded: Any, path: tuple = ()) -> list[tuple]:
    """Where a decoded value holds a member of an open set of strings (known or unknown)."""
    if isinstance(decoded, enum.Enum):
        return [path] if _is_open_string_set(type(decoded)) else []
    if isinstance(decoded, msgspec.Struct):
        return [
            p
            for name, wire in zip(
                decoded.__struct_fields__, decoded.__struct_encode_fields__, strict=True
            )
            for p in open_set_paths(getattr(decoded, name), path + (wire,))
        ]
    if isinstance(decoded, dict):
        return [p for k, v in decoded.items() for p in open_set_paths(v, path + (k,))]
    if isinstance(decoded, (list, tuple)):
        return [p for i, v in enumerate(decoded) for p in open_set_paths(v, path + (i,))]
    return []


def _is_open_string_set(cls: type) -> bool:
    """A generated OpenStrEnum (of whichever package): found by name along the class's bases."""
    return issubclass(cls, str) and any(k.__name__ == "OpenStrEnum" for k in cls.__mro__)


def replaced(instance: Any, path: tuple, value: Any) -> Any:
    """A copy of `instance` with the value at `path` replaced by `value` (the rest shared)."""
    if not path:
        return value
    copy: Any = list(instance) if isinstance(instance, list) else dict(instance)
    copy[path[0]] = replaced(instance[path[0]], path[1:], value)
    return copy


def substitutions(paths: list[tuple], start: int = 0) -> list[tuple[tuple, str]]:
    """(path, unknown value) pairs to try: every value of UNKNOWN_VALUES at the first path, and
    one value each, in turn from `start`, at the others."""
    if not paths:
        return []
    first = [(paths[0], value) for value in UNKNOWN_VALUES]
    rest = [
        (path, UNKNOWN_VALUES[(start + i) % len(UNKNOWN_VALUES)])
        for i, path in enumerate(paths[1:])
    ]
    return first + rest
