"""ACP's guards: the capability and path rules a side's policy checks on what it sends, serves
and answers (`GUARDS`), their tables per package (`guards_for`), and the plan of a package
(`PackagePlan`): every table a connection derives from it, made once.

A check sees the params of a call (or the result of a handler) and an initialize message: the
peer's for what this side sends or answers, its own for what it receives. It returns why the
message breaks the rule, or None. Omitted, null, false mean unsupported; `{}` is supported (12).
The numbers are rows of the ACP v1 requirements table.

Every table a connection reads from its package (the capability guards of each side, the turn
cancels, the answer checks, the out-of-band completions, the v2 shape) is a pure function of the
package and of the connection's side. Working them out reads the package's types through
`msgspec.inspect`, which costs tens of milliseconds; doing it once per package, at the first
connection that uses it, makes every later connection cost a few attribute reads.
`PackagePlan.of(schema)` gives the plan of a package: made at first use (never at import, so
`import acp_runtime` stays as cheap as it was), then kept by the id of the package. Each side's
tables are a `SidePlan`, made the first time a connection of that side binds to the package.
Connections hold the plan's tables by reference and never change them.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from typing import TYPE_CHECKING, Any, Callable, Mapping

from msgspec import Struct

from ..jsonrpc import wire
from . import rules

if TYPE_CHECKING:
    from ..jsonrpc.package import MethodInfoLike, Package


def supported(value: Any) -> bool:
    """Whether a capability's value supports it: omitted, null and false do not (12)."""
    return value is not None and value is not False


def advertised(initialize: Any, capability: str) -> bool:
    """Whether the initialize message supports the capability at a dotted wire path."""
    return supported(wire.get(initialize, *capability.split(".")))


class Check(Struct, frozen=True):
    fn: Callable[[Any, Any], "str | None"]
    reads: tuple[str, ...] = ()  # paths of the initialize message it reads
    # dotted wire paths of the checked value it reads (`wire.values`): it passes any value that
    # holds none of them (empty: it may read anything). `guards_for` drops it where the type
    # cannot hold them, and asks one `wire.Reach` for all such checks of a method.
    holds: tuple[str, ...] = ()

    def __call__(self, value: Any, initialize: Any) -> str | None:
        return self.fn(value, initialize)


def needs(capability: str) -> Check:
    def check(params: Any, initialize: Any) -> str | None:
        return None if advertised(initialize, capability) else f"{capability} was not advertised"

    return Check(check, (capability,))


def by_kind(entries: str, tag: str, required: dict[str, str]) -> Check:
    """Each value at `entries` (a dotted path; "" for the params themselves) whose `tag` is a key of
    `required` needs that capability."""

    def check(params: Any, initialize: Any) -> str | None:
        for entry in wire.values(params, entries) if entries else [params]:
            kind = wire.get(entry, tag)
            capability = required.get(kind)
            if capability is not None and not advertised(initialize, capability):
                return f"{tag} {kind!r} needs {capability}, which was not advertised"
        return None

    return Check(check, tuple(required.values()), (entries,) if entries else ())


def nonempty_needs(field: str, capability: str) -> Check:
    def check(params: Any, initialize: Any) -> str | None:
        if wire.items(params, field) and not advertised(initialize, capability):
            return f"{field} may be sent only when {capability} is advertised"
        return None

    return Check(check, (capability,))


def is_absolute(path: str) -> bool:
    return posixpath.isabs(path) or (ntpath.isabs(path) and ntpath.splitdrive(path)[0] != "")


def absolute(*paths: str) -> Check:
    """Every string at these dotted paths is an absolute path (1, 40, 42)."""

    def check(params: Any, initialize: Any) -> str | None:
        for path in paths:
            for value in wire.values(params, path):
                if isinstance(value, str) and not is_absolute(value):
                    return f"{path} must be an absolute path, got {value!r}"
        return None

    return Check(check, holds=paths)


def _no_terminal_auth(params: Any, initialize: Any) -> str | None:
    chosen = wire.get(params, "methodId")
    for method in wire.items(initialize, "authMethods"):
        if wire.get(method, "type") == "terminal" and wire.get(method, "id") == chosen:
            return (
                f"{chosen!r} is a terminal auth method: run it in a terminal, never through"
                " authenticate"
            )
    return None


class Guard(Struct, frozen=True):
    side: str  # the side whose messages it restrains: "client" | "agent"
    when: str  # "send": calls it makes; "receive": requests it serves; "result": what it answers
    methods: tuple[str, ...]
    check: Check
    rows: str  # requirement rows, for the reader


_SETUP = ("session/new", "session/load", "session/resume", "session/fork")
_WITH_CONFIG = (*_SETUP, "session/set_config_option")
_TERMINAL = tuple(f"terminal/{m}" for m in ("create", "output", "release", "wait_for_exit", "kill"))
_TOOL_PATHS = ("locations.*.path", "content.*.path")
_BOOLEAN = {"boolean": "clientCapabilities.session.configOptions.boolean"}
_ELICITATION = {mode: f"clientCapabilities.elicitation.{mode}" for mode in ("form", "url")}
_AGENT = "agentCapabilities."
_SESSIONS = "agentCapabilities.sessionCapabilities."
# the calls a side makes only when the peer advertised a capability: (side, methods, capability,
# requirement rows)
_NEEDED = (
    ("client", ("session/load",), _AGENT + "loadSession", "25, 26"),
    ("client", ("session/list",), _SESSIONS + "list", "54, 55"),
    ("client", ("session/resume",), _SESSIONS + "resume", "30, 31"),
    ("client", ("session/close",), _SESSIONS + "close", "35, 36"),
    ("client", ("session/delete",), _SESSIONS + "delete", "64-66"),
    ("client", ("session/fork",), _SESSIONS + "fork", "setup"),
    ("client", ("logout",), _AGENT + "auth.logout", "19"),
    ("agent", ("fs/read_text_file",), "clientCapabilities.fs.readTextFile", "124, 125"),
    ("agent", ("fs/write_text_file",), "clientCapabilities.fs.writeTextFile", "124, 125"),
    ("agent", _TERMINAL, "clientCapabilities.terminal", "132, 133"),
)
_PROMPT = {
    "image": _AGENT + "promptCapabilities.image",
    "audio": _AGENT + "promptCapabilities.audio",
    "resource": _AGENT + "promptCapabilities.embeddedContext",
}
_MCP = {"http": _AGENT + "mcpCapabilities.http", "sse": _AGENT + "mcpCapabilities.sse"}
# `acp` servers (MCP over ACP): only when the agent advertises them, v1 `mcpCapabilities.acp`, v2
# `session.mcp.acp`; a guard of its own, so a schema without them keeps the http/sse one
_MCP_ACP = {"acp": _AGENT + "mcpCapabilities.acp"}
_MCP_ACP_V2 = {"acp": "capabilities.session.mcp.acp"}
_EXTRA_DIRS = ("additionalDirectories", _SESSIONS + "additionalDirectories")
_AUTH_TERMINAL = {"terminal": "clientCapabilities.auth.terminal"}


def _auth_advertised(params: Any, initialize: Any) -> str | None:
    if not wire.items(initialize, rules.AUTH_METHODS):
        return rules.v2_rule("auth-methods", "the agent advertised no authMethods: never call it")
    return None


# The v2 draft docs (agent-plan.mdx, schema.mdx; the 2.4.0 schemas carry the same shapes in v1's
# unstable schema): a file plan's URI is absolute, and one ACP-transport MCP server id names one
# server (checked within a message: the runtime keeps no server table per connection).
_ABSOLUTE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^#]*$")  # RFC 3986 absolute-URI


def _plan_uri_absolute(params: Any, initialize: Any) -> str | None:
    update = wire.get(params, rules.SESSION_UPDATE_FIELD)
    is_plan = wire.get(update, rules.UPDATE_KIND[1]) == "plan_update"
    plan = wire.get(update, "plan") if is_plan else None
    uri = wire.get(plan, "uri") if wire.get(plan, "type") == "file" else None
    if isinstance(uri, str) and not _ABSOLUTE_URI.match(uri):
        return f"a file plan's uri must be an absolute URI, got {uri!r}"
    return None


def _acp_server_ids_unique(params: Any, initialize: Any) -> str | None:
    seen: set[Any] = set()
    for server in wire.items(params, "mcpServers"):
        if wire.get(server, "type") == "acp":
            server_id = wire.get(server, "serverId")
            if server_id in seen:
                return f"mcpServers gives the ACP-transport MCP server id {server_id!r} twice"
            seen.add(server_id)
    return None


_DIRS = ("cwd", "additionalDirectories.*")
_LISTED_DIRS = ("sessions.*.cwd", "sessions.*.additionalDirectories.*")
_UPDATE_PATHS = tuple(f"update.{p}" for p in _TOOL_PATHS)
_TOOL_CALL_PATHS = tuple(f"toolCall.{p}" for p in _TOOL_PATHS)
_UPDATE_OPTIONS = ("update.configOptions.*", "type")
_AUTH_METHODS = ("authMethods.*", "type")
_PLAN_URI = Check(_plan_uri_absolute, holds=("update.plan.uri",))
_AUTH = (rules.AUTH_LOGIN, rules.AUTH_LOGOUT)

GUARDS: tuple[Guard, ...] = (
    *(Guard(side, "send", methods, needs(cap), rows) for side, methods, cap, rows in _NEEDED),
    # the client, against the agent's initialize result
    Guard("client", "send", ("authenticate",), Check(_no_terminal_auth, ("authMethods",)), "20"),
    Guard(
        "client", "send", ("session/prompt",), by_kind("prompt.*", "type", _PROMPT), "15, 69, 185"
    ),
    Guard("client", "send", _SETUP, by_kind("mcpServers.*", "type", _MCP), "48, 50"),
    Guard("client", "send", _SETUP, by_kind("mcpServers.*", "type", _MCP_ACP), "242"),
    Guard("client", "send", _SETUP, by_kind("mcpServers.*", "type", _MCP_ACP_V2), "v2 32"),
    Guard("client", "send", (*_SETUP, "session/list"), nonempty_needs(*_EXTRA_DIRS), "41"),
    Guard("client", "send", (*_SETUP, "session/list"), absolute(*_DIRS), "40, 42"),
    Guard("client", "send", _SETUP, absolute("mcpServers.*.command"), "1"),  # stdio servers'
    Guard("client", "send", _AUTH, Check(_auth_advertised), "v2 auth"),
    Guard("client", "send", _SETUP, Check(_acp_server_ids_unique), "v2 ACP MCP server ids"),
    # the agent, against the client's initialize request
    Guard("agent", "send", ("elicitation/create",), by_kind("", "mode", _ELICITATION), "97"),
    Guard("agent", "send", ("fs/read_text_file", "fs/write_text_file"), absolute("path"), "1"),
    Guard("agent", "send", ("terminal/create",), absolute("cwd"), "1"),
    Guard("agent", "result", ("session/list",), absolute(*_LISTED_DIRS), "1"),
    Guard("agent", "send", ("session/update",), absolute(*_UPDATE_PATHS), "1"),
    Guard("agent", "send", ("session/request_permission",), absolute(*_TOOL_CALL_PATHS), "1"),
    Guard("agent", "send", ("session/update",), by_kind(*_UPDATE_OPTIONS, _BOOLEAN), "146, 147"),
    Guard(
        "agent", "result", _WITH_CONFIG, by_kind("configOptions.*", "type", _BOOLEAN), "146, 147"
    ),
    Guard("agent", "result", (rules.INITIALIZE,), by_kind(*_AUTH_METHODS, _AUTH_TERMINAL), "183"),
    Guard("agent", "send", ("session/update",), _PLAN_URI, "v2 plan file uri"),
    # the client, against its own initialize request: an unadvertised elicitation mode is -32602
    Guard("client", "receive", ("elicitation/create",), by_kind("", "mode", _ELICITATION), "237"),
)


def guards_for(
    schema: Package, side: str, when: str
) -> dict[str, list[Callable[[Any, Any], str | None]]]:
    """The checks that apply, by method (their functions: one call each, no frame of `Check`);
    skips methods and capabilities the package lacks, and checks of paths the method's params (or
    result) type cannot hold. A method's checks of known paths (`Check.holds`) sit behind one
    `wire.Reach` of all their paths: a message that holds none of them costs one call."""
    whose = side if when == "receive" else rules.PEER[side]
    info = schema.METHODS.get(rules.INITIALIZE)
    initialize_type = None if info is None else info.params if whose == "client" else info.result
    checks: dict[str, list[Check]] = {}
    for guard in GUARDS:
        if guard.side != side or guard.when != when:
            continue
        if not all(wire.declares(initialize_type, *path.split(".")) for path in guard.check.reads):
            continue
        for method in guard.methods:
            found = schema.METHODS.get(method)
            if found is None:
                continue
            checked = found.result if when == "result" else found.params
            holds = guard.check.holds
            if holds and not any(wire.declares(checked, *path.split(".")) for path in holds):
                continue  # no value of this method can hold what it reads
            checks.setdefault(method, []).append(guard.check)
    return {method: _gated(found) for method, found in checks.items()}


def _gated(checks: list[Check]) -> list[Callable[[Any, Any], str | None]]:
    """The functions of a method's checks, those of known paths behind one `wire.Reach` (in the
    place of the first of them): a value that holds none of the paths passes them all at once."""
    held = tuple(c.fn for c in checks if c.holds)
    gated = [c.fn for c in checks if not c.holds]
    if not held:
        return gated
    may_hold = wire.Reach(tuple(dict.fromkeys(p for c in checks for p in c.holds))).may_hold

    def gate(value: Any, initialize: Any) -> str | None:
        if not may_hold(value):  # holds none of the paths they read: every one of them passes
            return None
        for fn in held:
            reason = fn(value, initialize)
            if reason is not None:
                return reason
        return None

    gated.insert(next(i for i, c in enumerate(checks) if c.holds), gate)
    return gated


# --- the plan of a package: what a connection derives from it, once ----------------------------

_PLANS: dict[int, tuple[object, PackagePlan]] = {}
"""The plans by id of their package; the package is kept so its id stays its own."""


class SidePlan:
    """The tables one side of a connection reads from its package (a connection made with
    `enforce_protocol=False` reads none of its guards)."""

    def __init__(self, schema: Package, side: str) -> None:
        self.send_guards = guards_for(schema, side, "send")
        self.receive_guards = guards_for(schema, side, "receive")
        self.result_guards = guards_for(schema, side, "result")
        self.turn_cancels = rules.turn_cancels_for(schema, side)
        # the handler method of each method this side serves (of no other side, no extension)
        self.request_handlers = _handlers(schema.REQUESTS, schema, side)
        self.notification_handlers = _handlers(schema.NOTIFICATIONS, schema, side)


def _handlers(infos: Mapping[str, MethodInfoLike], schema: Package, side: str) -> dict[str, str]:
    foreign = frozenset(schema.SIDES) - {side}
    return {
        method: info.handler
        for method, info in infos.items()
        if info.side not in foreign and not method.startswith(rules.EXTENSION_PREFIX)
    }


class PackagePlan:
    """Everything a connection derives from one generated package, shared by all its connections.

    The tables that do not depend on the side are made with the plan; each side's (`side(name)`)
    the first time a connection of that side asks.
    """

    def __init__(self, schema: Package) -> None:
        self.schema = schema
        self.requires_initialize = rules.INITIALIZE in schema.METHODS
        self.answer_checks = {m: c for m, c in rules.ANSWER_CHECKS.items() if m in schema.REQUESTS}
        self.completions = tuple(
            c
            for c in rules.COMPLETIONS
            if c.opener in schema.REQUESTS and c.closer in schema.NOTIFICATIONS
        )
        self.completing = frozenset(m for c in self.completions for m in (c.opener, c.closer))
        # ACP v2 (rules.py, "ACP v2"): turns end in state updates, message updates carry their id;
        # what else differs by version, as data the policy applies without asking which version:
        # the check of both sides' initialize messages, why a method the package lacks is refused,
        # and the check of an agent's initialize answer against its handler
        v2 = self.v2 = rules.turn_ends_by_update(schema)
        self.message_kinds = rules.kinds_requiring(schema, rules.MESSAGE_ID) if v2 else frozenset()
        self.initialize_check = rules.initialize_breaks if v2 else None
        self.removed = rules.removed_surface if v2 else None
        self.promises_check = rules.promises_breaks if v2 else None
        self.sides: dict[str, SidePlan] = {}

    def side(self, side: str) -> SidePlan:
        """The tables of one side ("agent" or "client"), made at its first use."""
        found = self.sides.get(side)
        if found is None:
            found = self.sides[side] = SidePlan(self.schema, side)
        return found

    @staticmethod
    def of(schema: Package) -> PackagePlan:
        """The plan of `schema`: made at its first use, then kept."""
        kept = _PLANS.get(id(schema))
        if kept is None or kept[0] is not schema:
            kept = _PLANS[id(schema)] = (schema, PackagePlan(schema))
        return kept[1]
