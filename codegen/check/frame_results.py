"""Every frame of every connection, judged: UTF-8, a JSON-RPC message, the schema."""

from __future__ import annotations

from .catalogue import CHECKS, V1_SCHEMA_ROWS
from .context import Context
from .frames import NOT_A_MESSAGE, NOT_UTF8, SCHEMA


def frame_results(ctx: Context) -> None:
    problems = [(p, q) for p in ctx.peers for q in p.problems]
    for name, kind in (("transport.utf8", NOT_UTF8), ("transport.stdout-only-acp", NOT_A_MESSAGE)):
        bad = [q for _, q in problems if q.kind == kind]
        frames = sum(len(p.wire.transcript.frames) for p in ctx.peers)
        ctx.record(
            name,
            not bad,
            "; ".join(q.describe() + f" in {q.frame[:120]!r}" for q in bad[:3])
            or f"{frames} frames",
            [q.frame for q in bad[:5]],
        )
    floods = [
        f"{p.wire.argv[0] if ctx.url else 'a connection'}: {p.wire.flood}"
        for p in ctx.peers
        if p.wire.flood
    ]
    ctx.record(
        "transport.bounded",
        not floods,
        "; ".join(floods[:3]) or f"{len(ctx.peers)} connections, each within the bounds",
        [f for p in ctx.peers if p.wire.flood for f in p.evidence()[-3:]],
    )
    default = CHECKS["schema.frames"].cites(ctx.version)
    assert default is not None
    by_row: dict[str, list[str]] = {}
    evidence: dict[str, list[str]] = {}
    methods = {m for p in ctx.peers for m in p.methods_seen}
    for method in sorted(methods):
        by_row.setdefault(_schema_row(ctx.version, method, default), [])
    for _, q in problems:
        if q.kind != SCHEMA:
            continue
        row = _schema_row(ctx.version, q.method, default)
        by_row.setdefault(row, []).append(q.describe())
        evidence.setdefault(row, []).append(f"<- {q.frame}")
    for row, found in sorted(by_row.items()):
        detail = "; ".join(found[:3]) + (f" (+{len(found) - 3} more)" if len(found) > 3 else "")
        ctx.record(
            "schema.frames",
            not found,
            detail or "every frame decoded",
            evidence.get(row, [])[:5],
            rid=row,
        )


def _schema_row(version: int, method: str | None, default: str) -> str:
    if version != 1 or method is None:
        return default
    return V1_SCHEMA_ROWS.get(method, default)
