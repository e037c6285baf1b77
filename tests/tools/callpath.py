"""The path of one received stdio request through the runtime, from its bytes to the handler and
back to the bytes of its answer, as the Python profiler sees it.

    python -m tests.tools.callpath            print the path and its figures (runs an agent child)

The child is a real stdio agent (`run_agent`) whose profiler records, from the `data_received`
that brings the `session/new` line to the pipe transport's `write` of its answer, every call and
return of a function of `acp_runtime` (the stops) and of the handler. Each stop has the layer of its
module (`layer`: the transports 0, the JSON-RPC layer 1, the ACP layer 2, the surface on top 3, the
handler 4). A request climbs the layers once on its way in and its answer comes down them once on
its way back: a call into a lower layer before the handler ran, or into a higher one after it
returned, climbs back up (the path went down and comes up again). The figures: `stops`, `climbs`
(those calls, each named), `returns` (a stop's return to a stop that then calls another, the
path's other turns back), and the path itself, indented by depth, each stop with its layer.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "/acp_runtime/"  # the installed runtime (an editable install links runtime/ there)
MARK = b'"session/new"'
HANDLED = ("session_new",)  # the handler's methods on the path
TRANSPORTS = ("jsonrpc/framing.py", "jsonrpc/transport.py", "stdio.py", "http/")
LAYERS = (("handler:", 4), ("protocol/", 2), ("jsonrpc/", 1), ("", 3))


def layer(where: str) -> int:
    """The layer of a stop (`module:function`): 0 transports, 1 JSON-RPC, 2 ACP, 3 the surface on
    top (the modules at the top of the runtime), 4 the handler."""
    if where.startswith(TRANSPORTS):
        return 0
    return next(number for prefix, number in LAYERS if where.startswith(prefix))


class Recorder:
    """Calls and returns of runtime functions between the request's bytes and its answer's."""

    def __init__(self) -> None:
        self.on = False
        self.done = False
        self.events: list[tuple[str, str, int]] = []  # (call|return, function, depth)
        self.depth = 0

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.done or event not in ("call", "return"):
            return
        code = frame.f_code
        name = code.co_name
        if not self.on:
            if (
                event == "call"
                and name == "data_received"
                and MARK in bytes(frame.f_locals.get("data") or b"")
            ):
                self.on = True
            else:
                return
        if event == "call" and name == "write" and "asyncio" in code.co_filename:
            data = frame.f_locals.get("data")
            if isinstance(data, (bytes, bytearray, memoryview)) and b'"result"' in bytes(data):
                self.done = True
                return
        _, found, inside = code.co_filename.partition(PACKAGE)
        if found:
            where = f"{inside}:{code.co_qualname}"
        elif code.co_filename == __file__ and name in HANDLED:
            where = f"handler:{code.co_qualname}"
        else:
            return
        if event == "call":
            self.events.append(("call", where, self.depth))
            self.depth += 1
        else:
            self.depth -= 1
            self.events.append(("return", where, self.depth))


def figures(events: list[tuple[str, str, int]]) -> dict[str, Any]:
    """Stops, climbs back up, returns and the indented path of the recorded events."""
    stops = [(where, depth) for kind, where, depth in events if kind == "call"]
    climbs: list[str] = []
    returns = 0
    stack: list[str] = []
    previous = ""
    answered = False  # the handler returned: the answer is on its way back
    for kind, where, _ in events:
        if kind == "return":
            if stack:
                stack.pop()
            answered = answered or where.startswith("handler:")
        else:
            if stack:
                up, down = layer(stack[-1]), layer(where)
                if (down > up) if answered else (down < up):
                    climbs.append(f"{stack[-1]} -> {where}")
            returns += previous == "return" and bool(stack)  # not a new loop callback or task
            stack.append(where)
        previous = kind
    return {
        "stops": len(stops),
        "climbs": climbs,
        "returns": returns,
        "path": [f"{'  ' * depth}{where} [{layer(where)}]" for where, depth in stops],
    }


def agent() -> None:
    """The child: a stdio agent answering session/new, its path recorded, figures on stderr."""
    from acp_runtime import run_agent

    class Agent:
        async def initialize(self, params: Any) -> Any:
            return {"protocolVersion": 1}

        async def session_new(self, params: Any) -> Any:
            return {"sessionId": "s"}

    recorder = Recorder()
    sys.setprofile(recorder.profile)
    try:
        run_agent(lambda conn: Agent())
    finally:
        sys.setprofile(None)
        sys.stderr.write(json.dumps(figures(recorder.events)) + "\n")


async def drive() -> dict[str, Any]:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.tools.callpath",
        "--agent",
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"ACP_RUNTIME_LOOP": "asyncio", "PYTHONPATH": str(ROOT)},
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": "/", "mcpServers": []},
        },
    ]
    for request in requests:
        child.stdin.write(json.dumps(request).encode() + b"\n")
        await child.stdin.drain()
        answer = json.loads(await child.stdout.readline())
        if "result" not in answer:
            raise RuntimeError(f"the agent refused {request['method']}: {answer}")
    child.stdin.close()
    err = await child.stderr.read()
    await child.wait()
    return json.loads(err.decode().strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1:] == ["--agent"]:
        agent()
        return
    result = asyncio.run(drive())
    print("\n".join(result["path"]))
    print(f"stops {result['stops']}, climbs back up {len(result['climbs'])}", end="")
    print(f", returns to a stop that calls on {result['returns']}")
    for climb in result["climbs"]:
        print(f"  climbs back up: {climb}")


if __name__ == "__main__":
    main()
