"""Timing primitives: calibrated loops of `time.perf_counter_ns`, warm-up, repeats, medians.

A case is a one-argument callable and its argument (`(fn, arg)`), so the timed loop is just
`fn(arg)`: no wrapper of ours between the loop and the code under test. Cases of one group are
measured round-robin (one sample of each per round), so a slow drift of the machine (frequency,
a neighbour's load) spreads evenly over the contenders instead of favouring whoever ran first.
The garbage collector is off while a group is timed and collected between groups.
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import time
from dataclasses import asdict, dataclass
from itertools import repeat
from typing import Any, Callable, Sequence

Case = tuple[Callable[[Any], Any], Any]


@dataclass(frozen=True)
class Settings:
    sample_ns: int
    """How long one sample (a run of `loops` calls) should take."""
    repeats: int
    """Samples per case, after warm-up."""
    warmup: int
    """Untimed samples per case before the first timed one."""


FULL = Settings(sample_ns=8_000_000, repeats=15, warmup=2)
QUICK = Settings(sample_ns=300_000, repeats=3, warmup=1)


@dataclass(frozen=True)
class Timing:
    """Nanoseconds per call: median of the samples, with min and quartiles to show the spread."""

    median_ns: float
    min_ns: float
    q1_ns: float
    q3_ns: float
    loops: int
    repeats: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _sample(fn: Callable[[Any], Any], arg: Any, loops: int) -> int:
    clock = time.perf_counter_ns
    it = repeat(None, loops)
    start = clock()
    for _ in it:
        fn(arg)
    return clock() - start


def _loops_for(fn: Callable[[Any], Any], arg: Any, sample_ns: int) -> int:
    """How many calls make one sample: the best of three single calls sets the estimate, then it is
    checked on a real run of that many calls (the first calls of a code path can be much slower)."""
    one = min(_sample(fn, arg, 1) for _ in range(3))
    loops = max(1, int(sample_ns / max(one, 1)))
    took = _sample(fn, arg, loops)
    return max(1, int(loops * sample_ns / max(took, 1)))


def measure(cases: dict[str, Case], settings: Settings) -> dict[str, Timing]:
    """Time every case of a group (round-robin); returns ns per call for each."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        loops = {name: _loops_for(fn, arg, settings.sample_ns) for name, (fn, arg) in cases.items()}
        for _ in range(settings.warmup):
            for name, (fn, arg) in cases.items():
                _sample(fn, arg, loops[name])
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(settings.repeats):
            for name, (fn, arg) in cases.items():
                samples[name].append(_sample(fn, arg, loops[name]) / loops[name])
    finally:
        if enabled:
            gc.enable()
        gc.collect()
    return {name: summarize(values, loops[name]) for name, values in samples.items()}


def summarize(values: Sequence[float], loops: int = 1) -> Timing:
    ordered = sorted(values)
    if len(ordered) >= 2:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = q3 = ordered[0]
    return Timing(statistics.median(ordered), ordered[0], q1, q3, loops, len(ordered))


def geomean(values: Sequence[float]) -> float:
    return statistics.geometric_mean(values)


def time_commands(
    commands: dict[str, list[str]], repeats: int, warmup: int = 1, **run: Any
) -> dict[str, Timing]:
    """Wall time of whole subprocesses (start to exit), round-robin, in ns per run."""
    for _ in range(warmup):
        for argv in commands.values():
            subprocess.run(argv, check=True, capture_output=True, **run)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            start = time.perf_counter_ns()
            subprocess.run(argv, check=True, capture_output=True, **run)
            samples[name].append(time.perf_counter_ns() - start)
    return {name: summarize(values) for name, values in samples.items()}
