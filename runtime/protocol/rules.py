"""ACP's protocol rules that a connection's policy enforces, written against the wire (methods,
fields), for every version: what differs by version is read from the package (`PackagePlan`).

The engine below (`engine.py` and its helpers) is plain JSON-RPC; the policy (`policy.py`) applies
these rules; the friendly layer (`helpers.py`, `session.py`) names the methods it sends through
the generated proxies. Rules speak the wire (method names, dotted camelCase paths) and read
generated objects through `wire`, so they hold for any generated package. A rule is skipped when
the package lacks its method, or does not declare a capability the rule reads: a schema without
`session/load` has no `loadSession` guard, and one without
`clientCapabilities.session.configOptions.boolean` puts no limit on boolean config options.

The numbers in comments are rows of the ACP v1 requirements table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence, get_args

from msgspec import Struct, structs

from ..jsonrpc import CANCEL_REQUEST as CANCEL_REQUEST
from ..jsonrpc import SESSION_ID as SESSION_ID  # routes a message by its session
from ..jsonrpc import wire

if TYPE_CHECKING:
    from ..jsonrpc.package import Package, TypeForm

# --- lifecycle ------------------------------------------------------------------------------------

DEFAULT_PROTOCOL_VERSIONS: tuple[int, ...] = (1,)

INITIALIZE = "initialize"  # 2, 23: the client's first call; the agent serves nothing else before it
PROTOCOL_VERSION = "protocolVersion"  # 4-8: on the initialize request and its result
CAPABILITIES = {"client": "clientCapabilities", "agent": "agentCapabilities"}
INFO = {"client": "clientInfo", "agent": "agentInfo"}  # 3
PEER = {"client": "agent", "agent": "client"}
# v2: one name on both sides, `info` required (v2 migration guide, "Role-agnostic info")
SHARED_INFO, SHARED_CAPABILITIES = "info", "capabilities"


def info_of(initialize: Any, side: str) -> Any:
    """The implementation info of `side` in its initialize message (v1 or v2 naming)."""
    found = wire.get(initialize, INFO[side])
    return found if found is not None else wire.get(initialize, SHARED_INFO)


def capabilities_of(initialize: Any, side: str) -> Any:
    """The capabilities of `side` in its initialize message (v1 or v2 naming)."""
    found = wire.get(initialize, CAPABILITIES[side])
    return found if found is not None else wire.get(initialize, SHARED_CAPABILITIES)


# 127-131: `$/cancel_request`, either side, either direction (a JSON-RPC-level feature: jsonrpc.py)
ALLOWED_BEFORE_INITIALIZE = frozenset({INITIALIZE, CANCEL_REQUEST})
# 165-168, 217: the only methods outside the schema that are routed (to ext_*)
EXTENSION_PREFIX = "_"

SESSION_CANCEL = "session/cancel"
# 38: close cancels as session/cancel does
TURN_ENDED_BY = frozenset({SESSION_CANCEL, "session/close"})

# 68: a client prompts only sessions set up on this connection
SESSION_CREATED_BY = frozenset({"session/new", "session/fork"})  # the result's sessionId
SESSION_OPENED_BY = frozenset({"session/load", "session/resume"})  # the params' id, once answered
SESSION_CLOSED_BY = frozenset({"session/close", "session/delete"})
SESSION_REQUIRED_BY = frozenset({"session/prompt"})

# 24: an agent answers session/new and session/fork with an id that names no session known on this
# connection: none it created before, none the client named in a session/load, session/resume or
# session/fork (the session forked) it served, none it listed. Uniqueness is checked per connection:
# sessions outlive connections, and ids handed out on another connection or by an earlier process:
# the application keeps those apart (the runtime sees one connection).
SESSION_NAMED_BY = SESSION_OPENED_BY | {"session/fork"}  # the params' sessionId exists
SESSIONS_LISTED_BY = {"session/list": "sessions.*.sessionId"}
# every request whose answer makes a session known here (created, named or listed)
SESSIONS_KNOWN_BY = SESSION_CREATED_BY | SESSION_NAMED_BY | frozenset(SESSIONS_LISTED_BY)


# 33: an agent replays no history (these session/update kinds) to a session while it resumes it
SESSION_UPDATE = "session/update"
UPDATE_KIND = ("update", "sessionUpdate")
HISTORY = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
    }
)
NO_HISTORY_DURING = "session/resume"

# 60, 61: the params' cursor, the result's next one
PAGINATED = {"session/list": ("cursor", "nextCursor")}

# 238, 239: a client sets only a mode or config value the agent offers for the session, as last
# reported (these fields of setup and set_config_option results, and of config_option_update)
OFFERS = ("modes", "configOptions")
SESSION_UPDATE_FIELD = "update"  # the member of session/update params that carries the update
OFFERS_SET_BY = frozenset({"session/set_config_option"})


def _mode_offered(params: Any, offers: dict[str, Any]) -> str | None:
    if "modes" not in offers:
        return None
    modes, mode = wire.values(offers["modes"], "availableModes.*.id"), wire.get(params, "modeId")
    return None if mode in modes else f"mode {mode!r} is not among the availableModes {modes}"


def _value_offered(params: Any, offers: dict[str, Any]) -> str | None:
    """A select value among the option's values (grouped or not); a boolean one a boolean."""
    if "configOptions" not in offers:
        return None
    config_id, value = wire.get(params, "configId"), wire.get(params, "value")
    option = next((o for o in offers["configOptions"] if wire.get(o, "id") == config_id), None)
    if option is None:
        return f"config option {config_id!r} is not among the session's configOptions"
    kind = wire.get(option, "type")
    values = [
        *wire.values(option, "options.*.value"),
        *wire.values(option, "options.*.options.*.value"),
    ]
    if (kind == "boolean" and not isinstance(value, bool)) or (
        kind == "select" and value not in values
    ):
        return f"{value!r} is not a value of the {kind} config option {config_id!r}"
    return None


OFFER_CHECKS = {"session/set_mode": _mode_offered, "session/set_config_option": _value_offered}


# When `session/cancel` for a session passes (sent or received), a side cancels its running
# handlers of these methods in that session and answers each with this result (wire JSON).
TURN_CANCELS: dict[str, dict[str, dict[str, Any]]] = {
    "agent": {"session/prompt": {"stopReason": "cancelled"}},  # 82, 83
    "client": {"session/request_permission": {"outcome": {"outcome": "cancelled"}}},  # 80
}


def turn_cancels_for(schema: Package, side: str) -> dict[str, dict[str, Any]]:
    """The turn cancels that apply: their methods exist and their results fit the result type."""
    if SESSION_CANCEL not in schema.METHODS:
        return {}
    return {
        method: result
        for method, result in TURN_CANCELS[side].items()
        if method in schema.REQUESTS
        and all(wire.declares(schema.REQUESTS[method].result, key) for key in result)
    }


# --- elicitation: answers that must fit their request, interactions completed later ---------------

_JSON_TYPES = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
}
_BOUNDS = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}


def _choices(schema: Any) -> list[Any] | None:
    """The values a string (or array item) schema allows: its enum, or its oneOf / anyOf consts."""
    if wire.get(schema, "enum") is not None:
        return wire.items(schema, "enum")
    for key in ("oneOf", "anyOf"):
        if wire.get(schema, key) is not None:
            return [wire.get(option, "const") for option in wire.items(schema, key)]
    return None


def _value_breaks(prop: Any, value: Any) -> str | None:
    kind = wire.get(prop, "type")
    types = _JSON_TYPES.get(kind)
    if types is None:  # a property schema the runtime does not know: the application's to check
        return None
    if type(value) not in types:  # exact types: a bool is no number here
        return f"is not of type {kind}"
    if kind == "array" and not all(isinstance(item, str) for item in value):
        return "is not an array of strings"
    choices = _choices(wire.get(prop, "items") if kind == "array" else prop)
    if choices is not None and any(
        item not in choices for item in (value if kind == "array" else [value])
    ):
        return f"is not among {choices}"
    low, high = (wire.get(prop, bound) for bound in _BOUNDS.get(kind, ("minimum", "maximum")))
    size = len(value) if kind in _BOUNDS else value
    if kind != "boolean" and (
        (low is not None and size < low) or (high is not None and size > high)
    ):
        return f"is outside its bounds ({low}..{high})"
    return None


def form_content_breaks(params: Any, result: Any) -> str | None:
    """Why the content of an accepted form elicitation does not fit the requested schema (or None):
    a required property missing, a value of the wrong type, not among its choices, out of bounds."""
    if wire.get(params, "mode") != "form" or wire.get(result, "action") != "accept":
        return None
    requested = wire.get(params, "requestedSchema")
    content = wire.get(result, "content") or {}
    for name in wire.items(requested, "required"):
        if name not in content:
            return f"content lacks {name!r}, which the requested schema requires"
    properties = wire.get(requested, "properties") or {}
    for name, value in content.items():
        reason = _value_breaks(properties[name], value) if name in properties else None
        if reason is not None:
            return f"content {name!r} {reason}"
    return None


# A result checked against the params of its request, (params, result) -> why it breaks the rule:
# the answering side refuses to send it (answered -32603), the asking side refuses to take it (the
# call fails with -32603). 100, 101, 107
ANSWER_CHECKS: dict[str, Callable[[Any, Any], "str | None"]] = {
    "elicitation/create": form_content_breaks
}


class Completion(Struct, frozen=True):
    """A request `opener` whose params have `tag` == `value` opens an interaction named by `key`;
    the notification `closer` with that `key` completes it. The opening side sends the closer only
    for keys it opened on this connection (113); the other side hands it to its handler only for a
    key it was given and has not seen completed (114)."""

    opener: str
    tag: str
    value: str
    closer: str
    key: str


COMPLETIONS = (
    Completion("elicitation/create", "mode", "url", "elicitation/complete", "elicitationId"),
)


# --- ACP v2 ---------------------------------------------------------------------------------------
# The v2 rules apply to a package of v2's shape, read from its tables (never from its name or
# version number): its session/prompt result carries no stop reason (the turn ends in
# `state_update` notifications), its session/update union requires `messageId` on message kinds,
# it defines `auth/login`. Every refusal names its rule: "ACP v2 rule <name>" (docs/runtime.md, v2
# section; the v2 migration guide, docs-v2/migration.mdx, says each MUST / MUST NOT).

SESSION_PROMPT = "session/prompt"
STOP_REASON = "stopReason"
MESSAGE_ID = "messageId"
STATE_UPDATE, STATE, IDLE, RUNNING = "state_update", "state", "idle", "running"
CANCELLED = "cancelled"
USER_MESSAGE_KINDS = frozenset({"user_message", "user_message_chunk"})
AUTH_LOGIN, AUTH_LOGOUT = "auth/login", "auth/logout"
AUTH_METHODS = "authMethods"
# advertising `capabilities.session` promises these requests (migration guide, "Capability
# reorganization"); session/cancel and session/update are notifications the runtime carries
SESSION_BASELINE = (
    "session/new",
    "session/list",
    "session/resume",
    "session/close",
    SESSION_PROMPT,
)
SESSION_CAPABILITY = ("capabilities", "session")


def v2_rule(name: str, reason: str) -> str:
    """A refusal's text: what broke, and which v2 rule it breaks."""
    return f"{reason} (ACP v2 rule {name})"


def turn_ends_by_update(schema: Package) -> bool:
    """Whether a prompt's answer only acknowledges it and the turn ends in a `state_update` (v2),
    rather than the answer carrying the stop reason (v1)."""
    info = schema.REQUESTS.get(SESSION_PROMPT)
    return (
        info is not None
        and not wire.declares(info.result, STOP_REASON)
        and STATE_UPDATE in kinds_requiring(schema, "")
    )


def _update_union(schema: Package) -> TypeForm:
    info = schema.NOTIFICATIONS.get(SESSION_UPDATE)
    params: TypeForm = info.params if info is not None else None
    if wire.attribute(params, SESSION_UPDATE_FIELD) is None:  # no Struct declaring the update
        return None
    return next(f.type for f in structs.fields(params) if f.encode_name == SESSION_UPDATE_FIELD)


def _kinds(schema: Package) -> dict[str, list[frozenset[str]]]:
    """Each `sessionUpdate` kind of the package, with the wire keys each variant of it requires."""
    union = _update_union(schema)
    tagged = getattr(union, "__acp_tagged__", None)
    if isinstance(tagged, dict):
        return {str(tag): [frozenset(v.required) for v in vs] for tag, vs in tagged.items()}
    kinds: dict[str, list[frozenset[str]]] = {}
    for member in get_args(union) or (union,):
        if isinstance(member, type) and issubclass(member, Struct):
            tag = member.__struct_config__.tag
            if isinstance(tag, str):
                required = frozenset(f.encode_name for f in structs.fields(member) if f.required)
                kinds.setdefault(tag, []).append(required)
    return kinds


def kinds_requiring(schema: Package, key: str) -> frozenset[str]:
    """The update kinds every variant of which requires `key` (v2: `messageId` on messages); every
    kind of the package for the key "". Worked out each call: a package's plan keeps what its
    connections ask (`PackagePlan.v2`, `PackagePlan.message_kinds`)."""
    kinds = _kinds(schema)
    return frozenset(k for k, vs in kinds.items() if not key or all(key in v for v in vs))


def missing_message_id(params: Any, kinds: frozenset[str]) -> str | None:
    """A message chunk or update sent without its `messageId` (v2: every one carries it)."""
    update = wire.get(params, SESSION_UPDATE_FIELD)
    kind = wire.get(update, UPDATE_KIND[1])
    if kind in kinds and wire.get(update, MESSAGE_ID) is None:
        return v2_rule(
            "message-id", f"a {kind} update needs the messageId of the message it belongs to"
        )
    return None


def _booleans(value: Any, path: str) -> list[str]:
    """Dotted paths of the `true` / `false` markers in a capabilities value (wire JSON or typed)."""
    if isinstance(value, bool):
        return [path]
    if isinstance(value, Struct):
        value = {f.encode_name: getattr(value, f.name) for f in structs.fields(value)}
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _booleans(v, f"{path}.{k}")]
    return []


def initialize_breaks(message: Any) -> str | None:
    """Why an initialize message (request or result) breaks v2's shape: `info` is required, and
    support markers are objects (`{}`), never booleans."""
    if wire.get(message, SHARED_INFO) is None:
        return v2_rule("info", "initialize needs `info` (name and version) on both sides")
    found = _booleans(wire.get(message, SHARED_CAPABILITIES), SHARED_CAPABILITIES)
    if found:
        return v2_rule(
            "object-markers", f"{found[0]} is a boolean; a v2 support marker is an object ({{}})"
        )
    return None


def unimplemented(
    handler: object, base: type, schema: Package, methods: Sequence[str]
) -> list[str]:
    """Which of these requests the handler leaves to its generated base (answering -32601)."""
    missing = []
    for method in methods:
        info = schema.REQUESTS.get(method)
        if info is None:
            continue
        own = getattr(type(handler), info.handler, None) or getattr(handler, info.handler, None)
        if own is None or own is getattr(base, info.handler, None):
            missing.append(method)
    return missing


def promises_breaks(result: Any, handler: object, base: type, schema: Package) -> str | None:
    """Why an agent's initialize answer promises what its handler does not serve: the session
    baseline with `capabilities.session`, auth/login and auth/logout with `authMethods`."""
    if wire.get(result, *SESSION_CAPABILITY) is not None:
        missing = unimplemented(handler, base, schema, SESSION_BASELINE)
        if missing:
            return v2_rule(
                "session-baseline",
                f"capabilities.session promises {', '.join(missing)}, which the handler lacks",
            )
    if wire.items(result, AUTH_METHODS):
        missing = unimplemented(handler, base, schema, (AUTH_LOGIN, AUTH_LOGOUT))
        if missing:
            return v2_rule(
                "auth-methods",
                f"non-empty authMethods promise {', '.join(missing)}, which the handler lacks",
            )
    return None


def removed_surface(schema: Package, method: str) -> str | None:
    """A method neither this package defines nor an extension: on a v2 connection the v1 surfaces
    v2 removed (fs/*, terminal/*, session/load, session/set_mode) are never called."""
    if method in schema.METHODS or method.startswith(EXTENSION_PREFIX):
        return None
    return v2_rule("removed-surface", f"{method} is not a method of this protocol version")
