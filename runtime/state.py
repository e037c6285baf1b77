"""A client session's state, folded from its `session/update`s (`SessionState`), and the one
hand-written table of what each kind of update means (`FOLDS`).

The folding reads the generated types: a patch applies each field its type declares (omitted:
unchanged, null: cleared, a value: replaced), so a field the schema adds later is folded with no
change here. A kind of update `FOLDS` does not list is kept as the last such update in
`state.other`. `acp_runtime.session` re-exports what a user names of it.
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generic, Sequence

import msgspec

from .jsonrpc import wire
from .protocol import rules
from .protocol.schema_types import AgentSchemaT, ContentT, EntryT, ToolCallT

if TYPE_CHECKING:
    from .protocol.schema_types import (
        HasAvailableCommand,
        HasBackgroundWork,
        HasCompactionUpdate,
        HasNotice,
        HasPlanUpdateContent,
        HasSessionConfigOption,
        HasSessionInfoUpdate,
        HasSessionUpdate,
        HasTerminalUpdate,
        HasUsageUpdate,
        Types,
        V,
        X,
    )
# --- what each kind of session update means: the one hand-written table --------------------------

CHUNK = "chunk"  # a content block appended to a message of `slot` (role), by messageId when given
UPSERT = "upsert"  # a whole message of `slot` by messageId: its fields patch the message's
ENTITY = "entity"  # the value at `path` (the update for "") replaces state.`slot`[its `key`]
ENTITY_PATCH = "entity_patch"  # the update patches state.`slot`[its `key`] (created when new)
ENTITY_APPEND = "entity_append"  # the value at `path` is appended to the entity's list `into`
ENTITY_REMOVE = "entity_remove"  # state.`slot`[the update's `key`] is removed
BYTES = "bytes"  # base64 at `path` appended to state.`slot`[`key`] (or, with `into`, replacing it)
APPEND = "append"  # the update is appended to the list state.`slot`
SET = "set"  # the value at `path` of the update (the update itself for "") replaces state.`slot`
PATCH = "patch"  # the update patches state.`slot` (the first one is kept as it is)


@dataclass(frozen=True)
class Fold:
    action: str
    slot: str = ""
    path: str = ""
    key: str = ""  # the wire name of the id of an entity (toolCallId ...)
    into: str = ""  # ENTITY_APPEND: the entity's list field; BYTES: the update's replacing field


KIND = rules.UPDATE_KIND[1]  # "sessionUpdate"
MESSAGE_ID = "messageId"
CONTENT = "content"
META = "_meta"  # on an upsert, patched by top-level key (a key set to null is removed)
STATE, IDLE, STOP_REASON, USAGE = "state", "idle", "stopReason", "usage"  # v2's turn end


FOLDS: dict[str, Fold | tuple[Fold, ...]] = {
    "user_message_chunk": Fold(CHUNK, "user"),
    "agent_message_chunk": Fold(CHUNK, "agent"),
    "agent_thought_chunk": Fold(CHUNK, "thought"),
    "user_message": Fold(UPSERT, "user"),  # v2 whole-message upserts
    "agent_message": Fold(UPSERT, "agent"),
    "agent_thought": Fold(UPSERT, "thought"),
    "tool_call": Fold(ENTITY, "tool_calls", key="toolCallId"),
    "tool_call_update": Fold(ENTITY_PATCH, "tool_calls", key="toolCallId"),
    "tool_call_content_chunk": Fold(ENTITY_APPEND, "tool_calls", CONTENT, "toolCallId", CONTENT),
    "terminal_update": (  # v2 agent-owned terminals: output is a snapshot replacing the bytes
        Fold(ENTITY_PATCH, "terminals", key="terminalId"),
        Fold(BYTES, "terminal_output", "output.data", "terminalId", into="output"),
    ),
    "terminal_output_chunk": Fold(BYTES, "terminal_output", "data", "terminalId"),  # appended
    "compaction_update": Fold(ENTITY_PATCH, "compactions", key="compactionId"),
    "compaction_summary_chunk": Fold(
        ENTITY_APPEND, "compactions", CONTENT, "compactionId", "summary"
    ),
    "plan": Fold(SET, "plan", "entries"),  # v1: the agent always sends the complete plan
    "plan_update": Fold(ENTITY, "plans", "plan", "planId"),  # v2: each plan complete, by planId
    "plan_removed": Fold(ENTITY_REMOVE, "plans", key="planId"),  # v2 (unstable): that plan is gone
    "state_update": Fold(SET, "activity"),  # v2: running / requires_action / idle, a snapshot
    "notice": Fold(APPEND, "notices"),  # v2: information for the user, not history
    "available_commands_update": Fold(SET, "commands", "availableCommands"),
    "current_mode_update": Fold(SET, "current_mode_id", "currentModeId"),
    "config_option_update": Fold(SET, "config_options", "configOptions"),
    "session_info_update": Fold(PATCH, "info"),
    "usage_update": Fold(SET, "usage"),
}

# --- the folded state -----------------------------------------------------------------------------


@dataclass
class Message(Generic[ContentT]):
    """One message of the conversation: `role` is "user", "agent" or "thought"."""

    role: str
    message_id: str | None = None
    content: list[ContentT] = field(default_factory=list)  # the package's content blocks, in order
    meta: Any = None  # the message's `_meta` (any JSON), patched by key by upserts (v2)

    def text(self) -> str:
        """The text of its text blocks, joined."""
        return "".join(
            wire.get(b, "text") or "" for b in self.content if wire.get(b, "type") == "text"
        )


@dataclass
class SessionState(Generic[ContentT, ToolCallT, EntryT, AgentSchemaT]):
    """A session's state, folded from its updates (see `FOLDS`). Values are the package's types:
    the last parameter is the agent proxy, whose package types what the others do not (a type
    checker reads `terminals`, `usage` ... as properties of the package's types, see
    `schema_types`; a package without the type has no such member for it).

    `tool_calls[id]` is the first update that told of the call (a tool call, or a tool call update
    when none came first), patched by every later one: read `title`, `status`, `content` ... on it
    (UNSET or None: not reported). `terminals` and `compactions` (v2) are kept the same way, and a
    terminal's output bytes in `terminal_output[id]`. `activity` is the last v2 `state_update`:
    `status`, `stop_reason` and `background` read it.
    """

    # user and agent messages and thoughts, in order
    messages: list[Message[ContentT]] = field(default_factory=list)
    tool_calls: dict[str, ToolCallT] = field(default_factory=dict)
    if not TYPE_CHECKING:  # at run time: fields; a type checker reads the properties below
        terminals: dict[str, Any] = field(default_factory=dict)
    terminal_output: dict[str, bytes] = field(default_factory=dict)  # their decoded output
    if not TYPE_CHECKING:
        compactions: dict[str, Any] = field(default_factory=dict)
    plan: list[EntryT] = field(default_factory=list)  # v1: the plan's entries
    if not TYPE_CHECKING:
        plans: dict[str, Any] = field(default_factory=dict)
        activity: Any = None
        notices: list[Any] = field(default_factory=list)
    current_mode_id: str | None = None
    if not TYPE_CHECKING:
        config_options: list[Any] = field(default_factory=list)
        commands: list[Any] = field(default_factory=list)
        usage: Any = None
        info: Any = None
    # kind -> the last update of a kind not in FOLDS
    other: dict[str, Any] = field(default_factory=dict)
    _by_id: dict[tuple[str, str], Message[ContentT]] = field(default_factory=dict, repr=False)

    if TYPE_CHECKING:

        @property
        def terminals(self: _State[HasTerminalUpdate[V]]) -> dict[str, V]:
            """v2 agent-owned terminals by id."""
            ...

        @property
        def compactions(self: _State[HasCompactionUpdate[V]]) -> dict[str, V]:
            """Context compactions by id."""
            ...

        @property
        def plans(self: _State[HasPlanUpdateContent[V]]) -> dict[str, V]:
            """Each plan by planId (v2, and v1's unstable plan updates)."""
            ...

        @property
        def activity(self: _State[HasSessionUpdate[V]]) -> V | None:
            """v2: the last `state_update` (running / requires_action / idle), as it came."""
            ...

        @property
        def notices(self: _State[HasNotice[V]]) -> list[V]:
            """Notices, in order."""
            ...

        @property
        def config_options(self: _State[HasSessionConfigOption[V]]) -> list[V]:
            """The session's config options, as last offered or updated."""
            ...

        @config_options.setter
        def config_options(self: _State[HasSessionConfigOption[V]], value: list[V]) -> None: ...

        @property
        def commands(self: _State[HasAvailableCommand[V]]) -> list[V]:
            """The agent's commands, as last offered or updated."""
            ...

        @commands.setter
        def commands(self: _State[HasAvailableCommand[V]], value: list[V]) -> None: ...

        @property
        def usage(self: _State[HasUsageUpdate[V]]) -> V | None:
            """The last usage update (context window, cost)."""
            ...

        @property
        def info(self: _State[HasSessionInfoUpdate[V]]) -> V | None:
            """Session info (title, updatedAt), patched by each update."""
            ...

    def text(self, role: str = "agent") -> str:
        """All text of the messages of `role`, joined."""
        return "".join(m.text() for m in self.messages if m.role == role)

    @property
    def thoughts(self) -> list[Message[ContentT]]:
        return [m for m in self.messages if m.role == "thought"]

    # A state and a stop reason are tags of the state update variants (no enum names them), and
    # wire values are read as strings: `str`, in every package.
    @property
    def status(self: SessionState[Any, Any, Any, Any]) -> str | None:
        """v2: "running", "requires_action" or "idle" as last reported (None: not reported)."""
        return wire.get(self.activity, STATE)  # type: ignore[no-any-return]

    @property
    def stop_reason(self: SessionState[Any, Any, Any, Any]) -> str | None:
        """v2: the stop reason of the last state update (None: not reported)."""
        return wire.get(self.activity, STOP_REASON)  # type: ignore[no-any-return]

    @property
    def background(self: _State[HasBackgroundWork[V]]) -> Sequence[V] | None:
        """v2: the background work of the last state update (None: not reported)."""
        state: SessionState[Any, Any, Any, Any] = self
        return wire.get(state.activity, "background")  # type: ignore[no-any-return]

    def fold(self, update: Any) -> None:
        """Fold one session update (the `update` of a session/update notification) into state."""
        chunk = _CHUNKS.get(type(update))
        if chunk is not None and self.messages:  # the hot path: a chunk of a type seen before
            role, read, has_id = chunk
            last = self.messages[-1]
            if last.role == role and last.message_id is None:
                message_id, content = read(update) if has_id else (None, read(update))
                if message_id is None or message_id is _UNSET:  # omitted: the same as no id
                    last.content.append(content)  # appended to the message without an id
                    return
        kind = wire.get(update, KIND)
        how = FOLDS.get(kind)
        if how is None:
            self.other[kind] = update
        elif isinstance(how, Fold):
            self._apply(how, update)
        else:
            for one in how:
                self._apply(one, update)

    def _apply(self, how: Fold, update: Any) -> None:
        if how.action in (CHUNK, UPSERT):
            if how.action == CHUNK and type(update) not in _CHUNKS:
                _plan_chunks(type(update), how.slot)
            self._fold_message(how, update)
        elif how.action == SET:
            setattr(self, how.slot, _at(update, how.path))
        elif how.action == PATCH:
            current = getattr(self, how.slot)
            setattr(self, how.slot, _copy(update) if current is None else patch(current, update))
        elif how.action == APPEND:
            getattr(self, how.slot).append(update)
        elif how.action == BYTES:
            self._fold_bytes(how, update)
        else:
            self._fold_entity(how, update)

    def _fold_message(self, how: Fold, update: Any) -> None:
        message_id = wire.get(update, MESSAGE_ID)
        message: Message[ContentT] | None
        if message_id is not None:
            message = self._by_id.get((how.slot, message_id))
        else:
            last = self.messages[-1] if self.messages else None
            # no id: the role's last message, when it has no id either
            same = last is not None and last.role == how.slot and last.message_id is None
            message = last if same else None
        if message is None:
            message = Message(how.slot, message_id)
            self.messages.append(message)
            if message_id is not None:
                self._by_id[(how.slot, message_id)] = message
        if how.action == CHUNK:
            message.content.append(wire.get(update, CONTENT))
            return
        changed, content = _change(update, CONTENT)
        if changed:
            blocks: list[ContentT] = list(content or ())
            message.content = blocks
        changed, meta = _change(update, META)
        if changed:
            message.meta = patch_meta(message.meta, meta)

    def _fold_entity(self, how: Fold, update: Any) -> None:
        entities: dict[Any, Any] = getattr(self, how.slot)
        if how.action == ENTITY:
            value = _at(update, how.path)
            entities[wire.get(value, how.key)] = _copy(value)
            return
        key = wire.get(update, how.key)
        if how.action == ENTITY_REMOVE:
            entities.pop(key, None)
            return
        current = entities.get(key)
        if how.action == ENTITY_PATCH:
            entities[key] = _copy(update) if current is None else patch(current, update)
        elif current is not None:  # ENTITY_APPEND to an entity seen before
            listed = wire.get(current, how.into) or ()
            setattr(current, _attr(type(current), how.into), [*listed, _at(update, how.path)])

    def _fold_bytes(self, how: Fold, update: Any) -> None:
        store: dict[Any, bytes] = getattr(self, how.slot)
        key = wire.get(update, how.key)
        if how.into:  # a snapshot: replaces the bytes when the update sets it, clears them on null
            changed, snapshot = _change(update, how.into)
            if not changed:
                return
            if snapshot is None:
                store.pop(key, None)
                return
            store[key] = b""
        data = _at(update, how.path)
        if data is not None:
            store[key] = store.get(key, b"") + base64.b64decode(data)


_CHUNKS: dict[type, tuple[str, Callable[[Any], Any], bool]] = {}
"""chunk type -> (role, what reads its (messageId, content) or, without a messageId field, its
content, whether it has that field)"""
_UNSET = msgspec.UNSET


def _plan_chunks(cls: type, role: str) -> None:
    """Put a chunk Struct type with content in `_CHUNKS`: `fold`'s fast path takes it from now."""
    if issubclass(cls, msgspec.Struct) and _attr(cls, CONTENT):
        keys = (MESSAGE_ID, CONTENT) if _attr(cls, MESSAGE_ID) else (CONTENT,)
        _CHUNKS[cls] = role, wire.reader(cls, *keys), len(keys) == 2


def _attr(cls: type, key: str) -> str:
    """The attribute name of a Struct type's field of wire name `key` ("" when it has none)."""
    return wire.attribute(cls, key) or ""


def _at(update: Any, path: str) -> Any:
    """The value at a dotted wire path of the update ("" for the update itself)."""
    return update if not path else wire.get(update, *path.split("."))


# --- patching, from the generated types -----------------------------------------------------------


@functools.cache
def _fields(cls: type) -> dict[str, tuple[str, bool]]:
    """A Struct type's fields by wire name: their attribute, and whether None is read as omitted
    (the field's default is None: the decoded value cannot tell null from omitted)."""
    return {f.encode_name: (f.name, f.default is None) for f in msgspec.structs.fields(cls)}


@functools.cache
def _plan(update: type, target: type) -> tuple[tuple[str, str, bool, bool], ...]:
    """What `patch` sets, by (update type, target type): (attribute, target attribute, whether None
    is omitted, whether it is `_meta`)."""
    into = _fields(target)
    return tuple(
        (name, into[key][0], none_is_omitted, key == META)
        for key, (name, none_is_omitted) in _fields(update).items()
        if key in into
    )


def patch(target: Any, update: Any) -> Any:
    """Apply `update`'s fields to `target` (fields matched by wire name) and return `target`.

    Read from the update's type: an UNSET value leaves the field unchanged (omitted); None clears it
    where the type tells null from omitted (its default is UNSET) and leaves it unchanged where it
    does not (its default is None: the decoded value cannot say which one was sent); any other value
    replaces it. Fields the target's type lacks are skipped.
    """
    for name, target_name, none_is_omitted, meta in _plan(update.__class__, target.__class__):
        value = getattr(update, name)
        if value is msgspec.UNSET or (value is None and none_is_omitted):
            continue
        setattr(
            target, target_name, patch_meta(getattr(target, target_name), value) if meta else value
        )
    return target


def patch_meta(current: Any, update: Any) -> Any:
    """`_meta` of an upsert: null clears it; an object patches it by top-level key (a key set to
    null is removed, any other value replaces that key whole); an empty object changes nothing."""
    if not isinstance(update, dict) or not isinstance(current, dict):
        return update
    merged = {**current, **update}
    return {k: v for k, v in merged.items() if v is not None}


def _change(update: Any, key: str) -> tuple[bool, Any]:
    """Whether the update changes its field of wire name `key`, and to what, by `patch`'s rule."""
    if isinstance(update, dict):
        return key in update, update.get(key)
    field = _fields(type(update)).get(key) if isinstance(update, msgspec.Struct) else None
    if field is None:
        return False, None
    value = getattr(update, field[0])
    return not (value is msgspec.UNSET or (value is None and field[1])), value


def _copy(struct: Any) -> Any:
    return msgspec.structs.replace(struct) if isinstance(struct, msgspec.Struct) else struct


if TYPE_CHECKING:
    _State = SessionState[Any, Any, Any, Types[X]]  # a state, by one def name of its package
