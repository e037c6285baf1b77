"""What a check is, and what it found: the checker's vocabulary, shared by runner and reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from .proxy_rows import PROXY_ROWS
from .requirement import Requirement
from .requirements_data import REQUIREMENTS

# Outcomes. A failed check reports at its requirement's level: MUST -> fail, SHOULD -> warn,
# MAY -> info. `not exercised` is a check the implementation gave no chance to run (it answered
# before a cancel could land, it does not advertise the capability, ...): never a pass.
PASS = "pass"
FAIL = "fail"
WARN = "warn"
INFO = "info"
NOT_EXERCISED = "not exercised"
OUTCOMES = (FAIL, WARN, INFO, NOT_EXERCISED, PASS)
_FAILED_AT = {"MUST": FAIL, "SHOULD": WARN, "MAY": INFO}

# Behaviour the checker looks at that no numbered requirement states: cited with the docs line
# it comes from, reported as information only.
OBSERVATIONS = {
    "ACPGEN-STDIO-EOF-EXIT": Requirement(
        "ACPGEN-STDIO-EOF-EXIT",
        "MAY",
        "agent",
        "docs/protocol/v1/transports.mdx L40",
        "The stdio lifecycle ends with the Client closing the agent's stdin and terminating the"
        " subprocess (sequence diagram); no numbered requirement says how fast an agent must exit"
        " on EOF, so the checker reports it as information.",
    ),
    "ACPGEN-REMOTE-DROP-SURVIVES": Requirement(
        "ACPGEN-REMOTE-DROP-SURVIVES",
        "MAY",
        "agent",
        "rfds/streamable-http-websocket-transport.mdx L74",
        "Sessions survive disconnects: a session persists on the server independently of any one"
        " connection (the remote-transport RFD, v1 expectations); no numbered requirement says a"
        " server keeps serving after a client drops mid-turn, so the checker reports it as"
        " information.",
    ),
    "ACPGEN-AUTH-REQUIRED-NEEDS-METHODS": Requirement(
        "ACPGEN-AUTH-REQUIRED-NEEDS-METHODS",
        "SHOULD",
        "agent",
        "docs/protocol/v1/authentication.mdx L6-L8, L166-L167",
        "Authentication is negotiated during initialization: the Agent advertises its methods in"
        " authMethods, and the Client authenticates with one of them; an auth_required (-32000)"
        " error while authMethods is empty leaves the Client no way to authenticate. No numbered"
        " requirement says so, so the checker warns.",
    ),
    "ACPGEN-OUTPUT-BOUNDED": Requirement(
        "ACPGEN-OUTPUT-BOUNDED",
        "SHOULD",
        "agent",
        "docs/check.md (Bounds)",
        "An Agent writes what the exchange calls for; the checker keeps at most a bounded number"
        " of frames and bytes per connection (and per line) and stops reading a connection that"
        " sends more, so a flood of output or updates is reported, not held.",
    ),
    "ACPGEN-V2-BATCH": Requirement(
        "ACPGEN-V2-BATCH",
        "MAY",
        "agent",
        "docs/protocol/v2/transports.mdx L57-L72; npm @agentclientprotocol/sdk 2.4.0 v2 schema",
        "The older v2 docs say ACP follows JSON-RPC's batch rules; the newest publications (the"
        " npm 2.4.0 v2 schema, the Rust SDK 5.0) removed batches. Whether an Agent takes a batch"
        " is reported as information, never a failure.",
    ),
}


def requirement(rid: str) -> Requirement:
    if rid in REQUIREMENTS:
        return REQUIREMENTS[rid]
    return OBSERVATIONS[rid] if rid in OBSERVATIONS else PROXY_ROWS[rid]


@dataclass(frozen=True)
class Check:
    """One behaviour the checker exercises, citing one requirement per protocol version.

    `v2` None with `shared` True: the v1 row is a JSON-RPC or transport rule that v2 keeps
    unchanged (the v2 requirements file carries only the MUSTs that changed), so v2 cites it too.
    `v2` None otherwise: the check does not run on v2.
    """

    name: str
    v1: str | None
    v2: str | None
    summary: str
    shared: bool = False

    @property
    def group(self) -> str:
        return self.name.split(".", 1)[0]

    def cites(self, version: int) -> str | None:
        if version == 1:
            return self.v1
        return self.v2 if self.v2 is not None else (self.v1 if self.shared else None)


@dataclass
class Result:
    check: str
    version: int
    requirement: str
    outcome: str
    detail: str
    evidence: list[str] = field(default_factory=list)

    @property
    def group(self) -> str:
        return self.check.split(".", 1)[0]

    @property
    def cited(self) -> Requirement:
        return requirement(self.requirement)


def outcome_of(rid: str, passed: bool | None) -> str:
    if passed is None:
        return NOT_EXERCISED
    return PASS if passed else _FAILED_AT[requirement(rid).level]


@dataclass
class Run:
    """Everything one `acpgen check` found, with what it was run on."""

    target: list[str]
    versions: list[int]
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # the agent refused to work without authentication: the auth methods it advertises
    blocked_by_auth: list[str] | None = None

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def failed(self) -> bool:
        return self.count(FAIL) > 0

    @property
    def exit_status(self) -> int:
        """0 passed, 1 a MUST failure, EXIT_BLOCKED blocked by authentication (and no MUST
        failure among what ran): neither a pass nor a fail."""
        if self.failed:
            return 1
        return EXIT_BLOCKED if self.blocked_by_auth is not None else 0

    def verdict(self) -> str:
        blocked = ""
        if self.blocked_by_auth is not None:
            methods = ", ".join(self.blocked_by_auth) or "none"
            blocked = f"blocked by authentication (advertised auth methods: {methods})"
        if self.failed:
            return "FAILED (a MUST-level check failed)" + (f"; {blocked}" if blocked else "")
        return blocked or "passed (no MUST-level failure)"


EXIT_BLOCKED = 4  # the exit status of a run blocked by authentication
