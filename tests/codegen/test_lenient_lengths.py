"""The careful decoding path (a def with a lenient field, so a failure is walked, not just raised)
still holds lists and maps to their item counts. `acpgen diff --prove` found it: v2's
`PromptRequest.prompt` (minItems 1) took `[]` because `_meta` beside it is lenient."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.tiny import accepts, document, package_from

LENIENT_META = {"type": ["object", "null"], "x-deserialize-default-on-error": True}


def thing(prop: dict[str, Any]) -> dict[str, Any]:
    return document(
        {
            "Thing": {
                "type": "object",
                "properties": {"items": prop, "_meta": LENIENT_META},
                "required": ["items"],
            }
        }
    )


@pytest.mark.parametrize(
    "prop,value,ok",
    [
        ({"type": "array", "items": {"type": "string"}, "minItems": 1}, [], False),
        ({"type": "array", "items": {"type": "string"}, "minItems": 1}, ["a"], True),
        ({"type": "array", "items": {"type": "string"}, "maxItems": 1}, ["a", "b"], False),
    ],
)
def test_item_counts_hold_on_the_careful_path(
    tmp_path: Path, prop: dict[str, Any], value: Any, ok: bool
) -> None:
    pkg = package_from(thing(prop), tmp_path)
    assert accepts(pkg, "Thing", {"items": value, "_meta": None})[0] is ok


def test_the_default_v2_prompt_must_not_be_empty() -> None:
    from acp_schema_v2 import codec, types

    with pytest.raises(Exception, match=r"length >= 1 - at `\$\.prompt`"):
        codec.decode(b'{"sessionId": "s", "prompt": []}', types.PromptRequest)
