"""Running the agent checks on the chosen protocol versions, and choosing them."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from .agent_checks import check_agent
from .catalogue import CHECKS, V1_SCHEMA_ROWS
from .client import AgentPeer
from .context import Context
from .link import Link, refused
from .model import Run
from .wire import Wire, remote_link

Selector = Callable[[str, str], bool]


def selector(only: list[str], skip: list[str]) -> Selector:
    """A check runs when --only names it (by check name, group or requirement id; nothing named
    means every check) and --skip does not."""

    def named(names: list[str], check: str, rid: str) -> bool:
        group = check.split(".", 1)[0]
        return any(n in (check, group, rid) for n in names)

    def selected(check: str, rid: str) -> bool:
        return (not only or named(only, check, rid)) and not named(skip, check, rid)

    return selected


def known_names() -> set[str]:
    from .client_mode import CLIENT_CHECKS, UNADVERTISED
    from .proxy_catalogue import PROXY_CHECKS

    checks = [*CHECKS.values(), *CLIENT_CHECKS, *PROXY_CHECKS]
    names = {c.name for c in checks} | {c.group for c in checks}
    for check in checks:
        names |= {rid for rid in (check.v1, check.v2) if rid is not None}
    unadvertised = {rid for rows in UNADVERTISED.values() for rid in rows.values()}
    return names | set(V1_SCHEMA_ROWS.values()) | unadvertised


class NoVersion(Exception):
    """The agent's answer to initialize names no version the checker knows; the message says
    what came instead (the answer, or the agent's stderr when it exited)."""


async def negotiate(
    argv: list[str],
    package: ModuleType,
    timeout: float,
    url: str | None = None,
    headers: dict[str, str] | None = None,
) -> int:
    """The version the agent answers when asked for the newest one the checker knows (2)."""
    link: Link = await (Wire.spawn(argv) if url is None else remote_link(url, timeout, headers))
    peer = AgentPeer(link, package, timeout)
    try:
        params = {"protocolVersion": 2, "info": {"name": "acpgen-check", "version": "0"}}
        reply = await peer.request("initialize", params)
    finally:
        await peer.close()
    if url is not None and link.refusal is not None:
        raise refused(url, link.refusal)
    chosen = reply.result.get("protocolVersion") if isinstance(reply.result, dict) else None
    if chosen in (1, 2):
        return int(chosen)
    stderr = link.stderr_tail.strip().splitlines()
    said = f"; its stderr ends: {stderr[-1]}" if stderr else ""
    raise NoVersion(
        f"asked for protocol version 2, the agent answered: {reply.describe()}{said}; give"
        " --protocol-version to check a version anyway"
    )


async def run_agent_checks(
    argv: list[str],
    packages: dict[int, ModuleType],
    versions: list[int],
    timeout: float,
    selected: Selector,
    progress: Callable[[str], None],
    url: str | None = None,
    headers: dict[str, str] | None = None,
    auth_method: str | None = None,
) -> Run:
    """`headers`: sent with every request to `url`; `auth_method`: authenticate with it after
    each initialize, before any session."""
    run = Run(argv if url is None else [url], versions)
    accepted: set[int] = set()
    blocked: list[str] | None = None
    for version in versions:
        ctx = Context(argv, packages[version], version, timeout, selected, progress)
        ctx.accepted = accepted
        ctx.url = url
        ctx.headers = dict(headers or {})
        ctx.auth_method = auth_method
        await check_agent(ctx)
        run.results += ctx.results
        run.notes += ctx.notes
        if ctx.blocked is not None:
            blocked = sorted({*(blocked or []), *ctx.auth_methods})
            run.notes.append(f"v{version}: {ctx.blocked}")
    run.blocked_by_auth = blocked
    return run
