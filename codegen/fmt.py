"""Format rendered Python with black (one pinned version, so output bytes are deterministic)."""

from __future__ import annotations

import black
from black.mode import TargetVersion
from black.parsing import InvalidInput

_MODE = black.Mode(target_versions={TargetVersion.PY311}, line_length=100)


def format_files(files: dict[str, str]) -> dict[str, str]:
    """Every .py file black-formatted; other files as they are."""
    out: dict[str, str] = {}
    for path, text in files.items():
        if path.endswith(".py"):
            try:
                text = black.format_str(text, mode=_MODE)
            except InvalidInput as exc:  # a template or naming bug, never the user's input
                raise RuntimeError(
                    f"internal error: generated {path} is not valid Python: {exc}"
                ) from None
        out[path] = text
    return out
