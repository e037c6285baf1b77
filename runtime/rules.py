"""ACP v1 protocol rules: the only module of the runtime that names methods, capabilities or fields.

Everything else in `acp_runtime` is plain JSON-RPC plus the generated package's tables. Rules speak
the wire (method names, camelCase field paths) and read generated objects through `wire.get`, so
they hold for any generated package. A rule whose method the package lacks is skipped: a schema
that drops `session/load` simply has no `loadSession` guard.

The numbers in comments are rows of the ACP v1 requirements table.
"""

from __future__ import annotations

import ntpath
import posixpath
from dataclasses import dataclass
from typing import Any, Callable

from . import wire

# --- JSON-RPC and lifecycle -------------------------------------------------------------------

DEFAULT_PROTOCOL_VERSIONS: tuple[int, ...] = (1,)

INITIALIZE = "initialize"  # 2, 23: the client's first call; the agent answers nothing else before it
PROTOCOL_VERSION = "protocolVersion"  # 4-8: on InitializeRequest and InitializeResponse
CAPABILITIES = {"client": "clientCapabilities", "agent": "agentCapabilities"}  # on initialize
INFO = {"client": "clientInfo", "agent": "agentInfo"}  # 3

CANCEL_REQUEST = "$/cancel_request"  # 127-131: either side, either direction
CANCEL_REQUEST_ID = "requestId"
REQUEST_CANCELLED = -32800

ALLOWED_BEFORE_INITIALIZE = frozenset({INITIALIZE, CANCEL_REQUEST})

SESSION_ID = "sessionId"
SESSION_CANCEL = "session/cancel"


@dataclass(frozen=True)
class TurnCancel:
    """When `session/cancel` for a session passes (sent or received), the side `side` cancels its
    running handlers of `method` in that session and answers each with `result` (wire JSON)."""

    side: str
    method: str
    result: dict[str, Any]


TURN_CANCELS = (
    TurnCancel("agent", "session/prompt", {"stopReason": "cancelled"}),  # 82, 83
    TurnCancel("client", "session/request_permission", {"outcome": {"outcome": "cancelled"}}),  # 80
)

# --- guards -------------------------------------------------------------------------------------
# A check takes (params, capabilities) and returns why the call is refused, or None. For an
# outgoing call, capabilities are the peer's; for an incoming one, this side's own; for a result,
# the peer's. Omitted, null and false mean unsupported; `{}` means supported (12, 19, 66).

Check = Callable[[Any, Any], "str | None"]


def supported(value: Any) -> bool:
    return value is not None and value is not False


def needs(*path: str) -> Check:
    def check(params: Any, caps: Any) -> str | None:
        if supported(wire.get(caps, *path)):
            return None
        return f"the peer did not advertise the capability {'.'.join(path)}"

    return check


def each_kind(list_field: str | None, tag: str, required: dict[str, tuple[str, ...]]) -> Check:
    """Each item of `list_field` (None: the params themselves) whose `tag` is a key of `required`
    needs that capability."""

    def check(params: Any, caps: Any) -> str | None:
        for item in wire.items(params, list_field) if list_field else [params]:
            path = required.get(wire.get(item, tag))
            if path is not None and not supported(wire.get(caps, *path)):
                where = f"{list_field} holds " if list_field else ""
                return (
                    f"{where}{tag} {wire.get(item, tag)!r}, but the capability {'.'.join(path)} "
                    "was not advertised"
                )
        return None

    return check


def nonempty_needs(list_field: str, *path: str) -> Check:
    def check(params: Any, caps: Any) -> str | None:
        if wire.items(params, list_field) and not supported(wire.get(caps, *path)):
            return f"{list_field} may be sent only when the peer advertises {'.'.join(path)}"
        return None

    return check


def is_absolute(path: str) -> bool:
    return posixpath.isabs(path) or (ntpath.isabs(path) and ntpath.splitdrive(path)[0] != "")


def absolute(*fields: str) -> Check:
    """Each named field (a string or a list of strings) holds absolute paths (1, 40, 42)."""

    def check(params: Any, caps: Any) -> str | None:
        for field in fields:
            value = wire.get(params, field)
            for path in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(path, str) and not is_absolute(path):
                    return f"{field} must be an absolute path, got {path!r}"
        return None

    return check


@dataclass(frozen=True)
class Guard:
    side: str  # the side whose call, handler or result it restrains: "client" | "agent"
    when: str  # "send": a call it sends; "receive": a request it serves; "result": what it answers
    methods: tuple[str, ...]
    check: Check
    rows: str  # requirement rows, for the reader


_SESSION_SETUP = ("session/new", "session/load", "session/resume", "session/fork")
_TERMINAL = ("terminal/create", "terminal/output", "terminal/release", "terminal/wait_for_exit", "terminal/kill")

GUARDS: tuple[Guard, ...] = (
    # the client, against the agent's capabilities
    Guard("client", "send", ("session/load",), needs("loadSession"), "25, 26"),
    Guard("client", "send", ("session/list",), needs("sessionCapabilities", "list"), "54, 55"),
    Guard("client", "send", ("session/resume",), needs("sessionCapabilities", "resume"), "30, 31"),
    Guard("client", "send", ("session/close",), needs("sessionCapabilities", "close"), "35, 36"),
    Guard("client", "send", ("session/delete",), needs("sessionCapabilities", "delete"), "64-66"),
    Guard("client", "send", ("session/fork",), needs("sessionCapabilities", "fork"), "session-setup"),
    Guard("client", "send", ("logout",), needs("auth", "logout"), "19"),
    Guard(
        "client",
        "send",
        ("session/prompt",),
        each_kind(
            "prompt",
            "type",
            {
                "image": ("promptCapabilities", "image"),
                "audio": ("promptCapabilities", "audio"),
                "resource": ("promptCapabilities", "embeddedContext"),
            },
        ),
        "15, 69, 185",
    ),
    Guard(
        "client",
        "send",
        _SESSION_SETUP,
        each_kind("mcpServers", "type", {"http": ("mcpCapabilities", "http"), "sse": ("mcpCapabilities", "sse")}),
        "48, 50",
    ),
    Guard(
        "client",
        "send",
        (*_SESSION_SETUP, "session/list"),
        nonempty_needs("additionalDirectories", "sessionCapabilities", "additionalDirectories"),
        "41",
    ),
    Guard("client", "send", (*_SESSION_SETUP, "session/list"), absolute("cwd", "additionalDirectories"), "40, 42"),
    # the agent, against the client's capabilities
    Guard("agent", "send", ("fs/read_text_file",), needs("fs", "readTextFile"), "124, 125"),
    Guard("agent", "send", ("fs/write_text_file",), needs("fs", "writeTextFile"), "124, 125"),
    Guard("agent", "send", ("fs/read_text_file", "fs/write_text_file"), absolute("path"), "1"),
    Guard("agent", "send", _TERMINAL, needs("terminal"), "132, 133"),
    Guard("agent", "send", ("terminal/create",), absolute("cwd"), "1"),
    Guard(
        "agent",
        "send",
        ("elicitation/create",),
        each_kind(None, "mode", {"form": ("elicitation", "form"), "url": ("elicitation", "url")}),
        "97",
    ),
    Guard(
        "agent",
        "result",
        (INITIALIZE,),
        each_kind("authMethods", "type", {"terminal": ("auth", "terminal")}),
        "183",
    ),
    # the client, against its own capabilities: an unadvertised elicitation mode is -32602
    Guard(
        "client",
        "receive",
        ("elicitation/create",),
        each_kind(None, "mode", {"form": ("elicitation", "form"), "url": ("elicitation", "url")}),
        "237",
    ),
)


def guards_for(methods: Any, side: str, when: str) -> dict[str, list[Check]]:
    """The checks that apply, by method, skipping methods the package does not define."""
    table: dict[str, list[Check]] = {}
    for guard in GUARDS:
        if guard.side == side and guard.when == when:
            for method in guard.methods:
                if method in methods:
                    table.setdefault(method, []).append(guard.check)
    return table


def turn_cancels_for(methods: Any, side: str) -> dict[str, dict[str, Any]]:
    if SESSION_CANCEL not in methods:
        return {}
    return {t.method: t.result for t in TURN_CANCELS if t.side == side and t.method in methods}
