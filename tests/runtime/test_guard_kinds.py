"""`guards.by_kind` (`check` of "prompt.*" and the other paths) refuses and passes exactly what the
walk of the whole path does (`wire.values`), for typed messages and wire JSON alike."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import acp_schema as acp
from acp_runtime import wire
from acp_runtime.protocol import guards

_PROMPT = {
    "image": "agentCapabilities.promptCapabilities.image",
    "audio": "agentCapabilities.promptCapabilities.audio",
    "resource": "agentCapabilities.promptCapabilities.embeddedContext",
}


def walked(entries: str, tag: str, required: dict[str, str], params: Any, init: Any) -> str | None:
    """The check as a plain walk of the path: every entry read on its own."""
    for entry in wire.values(params, entries):
        capability = required.get(wire.get(entry, tag))
        if capability is not None and not guards.supported(wire.get(init, *capability.split("."))):
            return f"{tag} {wire.get(entry, tag)!r} needs {capability}, which was not advertised"
    return None


def _init(
    image: bool = False, audio: bool = False, embedded_context: bool = False
) -> acp.InitializeResponse:
    prompt = acp.PromptCapabilities(image=image, audio=audio, embedded_context=embedded_context)
    caps = acp.AgentCapabilities(prompt_capabilities=prompt)
    return acp.InitializeResponse(protocol_version=1, agent_capabilities=caps)


_TEXT = acp.TextContent(text="hi")
_IMAGE = acp.ImageContent(data="AA==", mime_type="image/png")
_AUDIO = acp.AudioContent(data="AA==", mime_type="audio/wav")
_RESOURCE = acp.EmbeddedResource(resource=acp.TextResourceContents(uri="file:///a", text="a"))
_BLOCKS = [_TEXT, _IMAGE, _AUDIO, _RESOURCE]
_INITS = [None, {}, _init(), _init(image=True), _init(audio=True, embedded_context=True)]


def _prompts() -> list[Any]:
    prompts: list[Any] = [acp.PromptRequest(session_id="s", prompt=[block]) for block in _BLOCKS]
    prompts.append(acp.PromptRequest(session_id="s", prompt=[_TEXT, _TEXT, _IMAGE]))
    prompts.append(acp.PromptRequest(session_id="s", prompt=[]))
    as_dicts = [msgspec.to_builtins(p) for p in prompts]
    prompts += as_dicts  # wire JSON, read by key
    prompts.append({"sessionId": "s", "prompt": [None, {"type": "image"}]})
    prompts.append({"sessionId": "s", "prompt": ({"type": "audio"},)})
    prompts.append({"sessionId": "s", "prompt": {"type": "image"}})  # no list: nothing to read
    prompts.append({"sessionId": "s"})
    prompts.append(None)
    prompts.append([{"type": "image"}])
    prompts.append(acp.NewSessionRequest(cwd="/", mcp_servers=[]))  # no such field
    return prompts


@pytest.mark.parametrize("init", _INITS, ids=lambda i: type(i).__name__)
def test_a_prompt_content_check_refuses_what_the_walk_of_its_path_refuses(init: Any) -> None:
    check = guards.by_kind("prompt.*", "type", _PROMPT)
    seen = set()
    for _ in range(2):  # the second time, each entry type's capability is one it kept
        for params in _prompts():
            got = check(params, init)
            assert got == walked("prompt.*", "type", _PROMPT, params, init), params
            seen.add(got)
    if init is None:
        assert len(seen) == 4  # passed, image, audio, resource refused: the comparison means it


@pytest.mark.parametrize("entries", ["", "mode", "update.configOptions.*"])
def test_the_other_paths_of_by_kind_read_as_the_walk(entries: str) -> None:
    required = {"form": "clientCapabilities.elicitation.form", "boolean": "x.boolean"}
    check = guards.by_kind(entries, "type", required)
    keys = entries.split(".") if entries else []
    for kind in ("form", "boolean", "other", None):
        value: Any = {"type": kind}
        if "*" in keys:
            value = [value, None]
        for key in reversed([k for k in keys if k != "*"]):
            value = {key: value}
        for init in (None, {"x": {"boolean": True}}):
            expected = (
                walked(entries, "type", required, value, init)
                if "*" in keys
                else _one(keys, required, value, init)
            )
            assert check(value, init) == expected


def _one(keys: list[str], required: dict[str, str], params: Any, init: Any) -> str | None:
    entry = wire.get(params, *keys)
    capability = required.get(wire.get(entry, "type"))
    if capability is not None and not guards.supported(wire.get(init, *capability.split("."))):
        return f"type {wire.get(entry, 'type')!r} needs {capability}, which was not advertised"
    return None
