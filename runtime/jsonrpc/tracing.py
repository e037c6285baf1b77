"""W3C trace context carried in `_meta` (`rfds/meta-propagation.mdx`), no tracing library required.

Give a connection `tracer=`: any object with

- `inject() -> Mapping[str, str]`: the caller's current trace context as `traceparent`,
  `tracestate` and `baggage` entries; the connection merges them into the `_meta` of every
  request and notification it sends (entries the application already put there win);
- `extract(carrier: Mapping[str, Any]) -> ContextManager`: makes the peer's context (read from an
  incoming message's `_meta`) current while the handler of that message runs.

`OpenTelemetryTracer()` is that object for OpenTelemetry's global propagator; OpenTelemetry is
imported only when one is built, so it stays an optional dependency of the application.
"""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager, Iterator, Mapping, Protocol

from . import wire

META = "_meta"
TRACE_KEYS = ("traceparent", "tracestate", "baggage")
"""The root `_meta` keys the RFD reserves for W3C trace context."""


class Tracer(Protocol):
    def inject(self) -> Mapping[str, str]: ...

    def extract(self, carrier: Mapping[str, Any]) -> ContextManager[Any]: ...


def inject(tracer: Tracer, params: Any) -> Any:
    """`params` with the current trace context merged into its `_meta` (params without a `_meta`
    of their own, such as absent ones or arrays, are returned unchanged)."""
    if not isinstance(params, dict) and wire.attribute(type(params), META) is None:
        return params
    context = {k: v for k, v in tracer.inject().items() if k in TRACE_KEYS}
    if not context:
        return params
    meta = wire.get(params, META)
    merged = {**context, **meta} if isinstance(meta, dict) else context
    return wire.replace(params, META, merged)


def extract(tracer: Tracer, params: Any) -> ContextManager[Any]:
    """The peer's trace context from `params._meta`, to hold current around a handler."""
    meta = wire.get(params, META)
    if not isinstance(meta, dict) or not any(key in meta for key in TRACE_KEYS):
        return contextlib.nullcontext()
    return tracer.extract({k: v for k, v in meta.items() if k in TRACE_KEYS})


class OpenTelemetryTracer:
    """A `Tracer` over OpenTelemetry's global text-map propagator (W3C trace context and baggage
    by default). Needs `opentelemetry-api`, imported here and nowhere else."""

    def __init__(self) -> None:
        # optional: the application's dependency
        from opentelemetry import context, propagate  # pyright: ignore[reportMissingImports]

        self._context = context
        self._propagate = propagate

    def inject(self) -> Mapping[str, str]:
        carrier: dict[str, str] = {}
        self._propagate.inject(carrier)
        return carrier

    @contextlib.contextmanager
    def extract(self, carrier: Mapping[str, Any]) -> Iterator[None]:
        token = self._context.attach(self._propagate.extract(dict(carrier)))
        try:
            yield
        finally:
            self._context.detach(token)
