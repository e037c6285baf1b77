"""A generated Struct's repr shows what is set: an absent (UNSET) field is not printed."""

from __future__ import annotations

import msgspec

import acp_schema as acp
import acp_schema_v2 as acp2


def test_a_patch_with_one_field_set_prints_only_that_field() -> None:
    update = acp.ToolCallUpdate(tool_call_id="call-1", title="Reading")
    assert repr(update) == "ToolCallUpdate(tool_call_id='call-1', title='Reading')"
    assert "UNSET" not in repr(update)


def test_no_generated_struct_prints_unset_fields() -> None:
    for pkg in (acp, acp2):
        for name in pkg.types.__all__:
            tp = getattr(pkg.types, name)
            if not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)):
                continue
            assert tp.__struct_config__.repr_omit_defaults, name
