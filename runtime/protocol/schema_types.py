"""The generated package's types as the friendly layer names them: read off a connection's proxy.

A generated proxy carries, for type checkers only, `_schema_types` (every type of its package by
name) and `_schema_values` (every enum's wire values, as a list of a Literal). The Protocols here
match those carriers, so `AgentSession(conn, ...)` and `Session(conn, ...)` infer the content
blocks, plan entries, tool kinds, permission options, stop reasons ... of the package `conn`
speaks, v1 and v2 alike, with no import of any package. Names are the schema's def names; a
package without `StopReason` (v2: a turn's stop reason is the tag of its idle state) is matched by
the `...V2` Protocols, where a stop reason is a string. A v1 revision that names its whole tool call
`ToolCall` is matched by `ProxyV1Calls`; an older one (its variant named `SessionUpdateToolCall`)
by `ProxyV1`, and a client `Session` then types its folded tool calls as its `SessionUpdate`.

The rest of the package's types reach the friendly classes through one carrier, not one type
variable each: a `Session` (and its `SessionState`) is also Generic over the agent proxy it calls
(`AgentSchemaT`), an `AgentSession` (and its `ToolCall`) over the client proxy (`ClientSchemaT`).
Each member read through the carrier is typed by a self-type matched against `Types[Has...]` (one
def name each), so it is solved on use: `state.usage` is the package's `UsageUpdate`. A package
without that def (v1 has no `TerminalUpdate` nor `BackgroundWork`, v2 no `SessionModeState`) does
not match, and the checker reports the read: what a version lacks is an error, not `Any`.

The type variables are used at run time (the friendly classes are Generic over them); the
Protocols are for type checkers only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    # Each defaults to `acp_schema`'s (PEP 696 defaults, seen by type checkers only), so a bare
    # `AgentSession` or `Session` annotation means the default package's. A wire value (a Literal
    # of an enum's values, solved from the package) is covariant: an inferred session is also an
    # `AgentSession` whose wire values default to any `str`.
    from typing_extensions import TypeVar as DefaultTypeVar

    import acp_schema

    ContentT = DefaultTypeVar("ContentT", default=acp_schema.ContentBlock)
    EntryT = DefaultTypeVar("EntryT", default=acp_schema.PlanEntry)
    KindT = DefaultTypeVar("KindT", default=acp_schema.ToolKind)
    KindValueT = DefaultTypeVar("KindValueT", covariant=True, default=str)
    OptionT = DefaultTypeVar("OptionT", default=acp_schema.PermissionOption)
    UpdateT = DefaultTypeVar("UpdateT", default=acp_schema.SessionUpdate)
    StopT = DefaultTypeVar("StopT", default=acp_schema.StopReason)
    StopValueT = DefaultTypeVar("StopValueT", covariant=True, default=str)
    AnswerT = DefaultTypeVar("AnswerT", default=acp_schema.PromptResponse)
    ToolCallT = DefaultTypeVar(
        "ToolCallT", default=acp_schema.ToolCall | acp_schema.SessionUpdateToolCallUpdate
    )
    OutputT = DefaultTypeVar("OutputT", default=acp_schema.TerminalOutputResponse)
    ExitT = DefaultTypeVar("ExitT", default=acp_schema.WaitForTerminalExitResponse)
    AgentSchemaT = DefaultTypeVar("AgentSchemaT", covariant=True, default=acp_schema.AgentProxy)
    ClientSchemaT = DefaultTypeVar("ClientSchemaT", covariant=True, default=acp_schema.ClientProxy)
else:  # at run time: plain type variables
    ContentT = TypeVar("ContentT")  # a content block (`ContentBlock`)
    EntryT = TypeVar("EntryT")  # a plan entry (`PlanEntry`)
    KindT = TypeVar("KindT")  # a tool kind (`ToolKind`)
    KindValueT = TypeVar("KindValueT", covariant=True)  # a tool kind's wire value (a Literal)
    OptionT = TypeVar("OptionT")  # a permission option (`PermissionOption`)
    UpdateT = TypeVar("UpdateT")  # a session update (`SessionUpdate`)
    StopT = TypeVar("StopT")  # a stop reason (`StopReason`; v2: str)
    StopValueT = TypeVar("StopValueT", covariant=True)  # a stop reason's wire value (v2: str)
    AnswerT = TypeVar("AnswerT")  # the answer to a prompt (`PromptResponse`)
    ToolCallT = TypeVar("ToolCallT")  # a folded tool call (v1 `ToolCall` or its update)
    OutputT = TypeVar("OutputT")  # a client terminal's output (`TerminalOutputResponse`; v2: none)
    ExitT = TypeVar("ExitT")  # its exit (`WaitForTerminalExitResponse`; v2: none)
    AgentSchemaT = TypeVar("AgentSchemaT", covariant=True)  # a client's agent proxy: the carrier
    ClientSchemaT = TypeVar("ClientSchemaT", covariant=True)  # an agent's client proxy: the same

if TYPE_CHECKING:
    from typing import Any, Protocol, Sequence

    from ..jsonrpc.package import AgentPackage, ClientPackage

    C_co = TypeVar("C_co", covariant=True)
    E_co = TypeVar("E_co", covariant=True)
    K_co = TypeVar("K_co", covariant=True)
    KV_co = TypeVar("KV_co", covariant=True)
    O_co = TypeVar("O_co", covariant=True)
    U_co = TypeVar("U_co", covariant=True)
    S_co = TypeVar("S_co", covariant=True)
    SV_co = TypeVar("SV_co", covariant=True)
    A_co = TypeVar("A_co", covariant=True)
    T_co = TypeVar("T_co", covariant=True)
    T2_co = TypeVar("T2_co", covariant=True)
    TO_co = TypeVar("TO_co", covariant=True)
    TE_co = TypeVar("TE_co", covariant=True)
    P_co = TypeVar("P_co", covariant=True)
    M_co = TypeVar("M_co", covariant=True)
    M_in = TypeVar("M_in")
    X_co = TypeVar("X_co", covariant=True)

    # The friendly constructors' own type variables, solved from the connection's proxy.
    C = TypeVar("C")
    E = TypeVar("E")
    K = TypeVar("K")
    KV = TypeVar("KV")
    Opt = TypeVar("Opt")
    U = TypeVar("U")
    S = TypeVar("S")
    SV = TypeVar("SV")
    A = TypeVar("A")
    T = TypeVar("T")
    T2 = TypeVar("T2")
    TO = TypeVar("TO")
    TE = TypeVar("TE")
    M = TypeVar("M")
    X = TypeVar("X")
    V = TypeVar("V")  # a type read through the carrier (`Types[HasUsageUpdate[V]]` ...)
    W = TypeVar("W")

    # Both versions' types, by def name (read-only: each solved from the package's own).

    class _Types(Protocol[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, M_in]):
        @property
        def ContentBlock(self) -> C_co: ...
        @property
        def PlanEntry(self) -> E_co: ...
        @property
        def ToolKind(self) -> K_co: ...
        @property
        def PermissionOption(self) -> O_co: ...
        @property
        def SessionUpdate(self) -> U_co: ...
        @property
        def PromptResponse(self) -> A_co: ...
        @property
        def SessionUpdateToolCallUpdate(self) -> T2_co: ...

        # an attribute, as the package declares it (invariant): `Session.new(conn, cwd, [...])`
        # then takes only the package's MCP servers, never widening them to what it is given
        McpServer: M_in

    class TypesV1(
        _Types[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, M_in],
        Protocol[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, S_co, TO_co, TE_co, M_in],
    ):
        """v1's types: also its stop reasons and its client terminals."""

        @property
        def StopReason(self) -> S_co: ...
        @property
        def TerminalOutputResponse(self) -> TO_co: ...
        @property
        def WaitForTerminalExitResponse(self) -> TE_co: ...

    class TypesV1Calls(
        TypesV1[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, S_co, TO_co, TE_co, M_in],
        Protocol[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, S_co, TO_co, TE_co, T_co, M_in],
    ):
        """v1's types with its whole tool call named `ToolCall` (not so in every revision)."""

        @property
        def ToolCall(self) -> T_co: ...

    # The package writes each as a list (invariant): a Literal solved through it stays exact in
    # pyright, which widens one read through a covariant type alone to `str`.
    class _Values(Protocol[KV_co]):
        @property
        def ToolKind(self) -> Sequence[KV_co]: ...

    class ValuesV1(_Values[KV_co], Protocol[KV_co, SV_co]):
        @property
        def StopReason(self) -> Sequence[SV_co]: ...

    class ProxyV1(
        Protocol[C_co, E_co, K_co, KV_co, O_co, U_co, S_co, SV_co, A_co, T2_co, TO_co, TE_co, M_in]
    ):
        """A v1 package's proxy (its types have `StopReason` and client terminals)."""

        @property
        def _schema_types(
            self,
        ) -> TypesV1[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, S_co, TO_co, TE_co, M_in]: ...
        @property
        def _schema_values(self) -> ValuesV1[KV_co, SV_co]: ...

    class ProxyV1Calls(
        Protocol[
            C_co, E_co, K_co, KV_co, O_co, U_co, S_co, SV_co, A_co, T_co, T2_co, TO_co, TE_co, M_in
        ]
    ):
        """A v1 package's proxy whose types also name its whole tool call `ToolCall`."""

        @property
        def _schema_types(
            self,
        ) -> TypesV1Calls[
            C_co, E_co, K_co, O_co, U_co, A_co, T2_co, S_co, TO_co, TE_co, T_co, M_in
        ]: ...
        @property
        def _schema_values(self) -> ValuesV1[KV_co, SV_co]: ...

    class ProxyV2(Protocol[C_co, E_co, K_co, KV_co, O_co, U_co, A_co, T2_co, M_in]):
        """A v2 package's proxy (no `StopReason`: a stop reason is a string)."""

        @property
        def _schema_types(self) -> _Types[C_co, E_co, K_co, O_co, U_co, A_co, T2_co, M_in]: ...
        @property
        def _schema_values(self) -> _Values[KV_co]: ...

    class HasClient(Protocol[P_co, X_co]):
        """An agent's connection, by the proxy it calls its client with: read as a Protocol
        (`P_co`) from `client`, and whole (`X_co`, the carrier) from its package's `ClientProxy`."""

        @property
        def client(self) -> P_co: ...
        @property
        def schema(self) -> AgentPackage[X_co, Any]: ...

    class HasAgent(Protocol[P_co, X_co]):
        """A client's connection, by the proxy it calls its agent with (as `HasClient`)."""

        @property
        def agent(self) -> P_co: ...
        @property
        def schema(self) -> ClientPackage[X_co, Any]: ...

    # --- the carrier: one def name each, matched on use ---

    class Types(Protocol[X_co]):
        """A proxy, by its package's types (`_schema_types`)."""

        @property
        def _schema_types(self) -> X_co: ...

    class TypesValues(Protocol[X_co, P_co]):
        """A proxy, by its package's types and enum wire values (`_schema_values`)."""

        @property
        def _schema_types(self) -> X_co: ...
        @property
        def _schema_values(self) -> P_co: ...

    class HasTerminalUpdate(Protocol[X_co]):
        @property
        def TerminalUpdate(self) -> X_co: ...

    class HasCompactionUpdate(Protocol[X_co]):
        @property
        def CompactionUpdate(self) -> X_co: ...

    class HasPlanUpdateContent(Protocol[X_co]):
        @property
        def PlanUpdateContent(self) -> X_co: ...

    class HasSessionUpdate(Protocol[X_co]):
        @property
        def SessionUpdate(self) -> X_co: ...

    class HasNotice(Protocol[X_co]):
        @property
        def Notice(self) -> X_co: ...

    class HasSessionConfigOption(Protocol[X_co]):
        @property
        def SessionConfigOption(self) -> X_co: ...

    class HasSessionConfigValueId(Protocol[X_co]):
        @property
        def SessionConfigValueId(self) -> X_co: ...

    class HasAvailableCommand(Protocol[X_co]):
        @property
        def AvailableCommand(self) -> X_co: ...

    class HasUsageUpdate(Protocol[X_co]):
        @property
        def UsageUpdate(self) -> X_co: ...

    class HasSessionInfoUpdate(Protocol[X_co]):
        @property
        def SessionInfoUpdate(self) -> X_co: ...

    class HasBackgroundWork(Protocol[X_co]):
        @property
        def BackgroundWork(self) -> X_co: ...

    class HasUsage(Protocol[X_co]):
        @property
        def Usage(self) -> X_co: ...

    class HasSessionModeState(Protocol[X_co]):
        @property
        def SessionModeState(self) -> X_co: ...

    class HasSessionMode(Protocol[X_co]):
        @property
        def SessionMode(self) -> X_co: ...

    class HasStateFields(Protocol[X_co, P_co, M_co]):
        """What a v2 state update carries besides its state and stop reason."""

        @property
        def Usage(self) -> X_co: ...
        @property
        def BackgroundWork(self) -> P_co: ...
        @property
        def Error(self) -> M_co: ...

    class HasPlanEntry(Protocol[X_co, P_co]):
        """A plan entry's status and priority (enums: their members)."""

        @property
        def PlanEntryStatus(self) -> X_co: ...
        @property
        def PlanEntryPriority(self) -> P_co: ...

    class HasPlanEntryValues(Protocol[X_co, P_co]):
        """... and their wire values."""

        @property
        def PlanEntryStatus(self) -> Sequence[X_co]: ...
        @property
        def PlanEntryPriority(self) -> Sequence[P_co]: ...

    class HasToolCall(Protocol[X_co, P_co, K_co, M_co]):
        """What a tool call update carries: its status, content, kind and locations."""

        @property
        def ToolCallStatus(self) -> X_co: ...
        @property
        def ToolCallContent(self) -> P_co: ...
        @property
        def ToolKind(self) -> K_co: ...
        @property
        def ToolCallLocation(self) -> M_co: ...

    class HasToolCallValues(Protocol[X_co, K_co]):
        """The wire values of a tool call's status and kind."""

        @property
        def ToolCallStatus(self) -> Sequence[X_co]: ...
        @property
        def ToolKind(self) -> Sequence[K_co]: ...
