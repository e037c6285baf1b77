"""A server process for the remote tests: serves an agent on an inherited listening socket.

    serve.py FD NAME [--cookie NAME=VALUE] [--agent history|scenario]

`history` (default) is tests/remote/agents.py's HistoryAgent, named NAME; `scenario` is the
interop scenario's agent. Prints "ready" once serving starts.
"""

import argparse
import asyncio
import functools
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[3]))

from acp_runtime.http import AcpApp, serve  # noqa: E402
from tests.interop.runtime_agent import ScenarioAgent  # noqa: E402
from tests.remote.agents import HistoryAgent, Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fd", type=int)
    parser.add_argument("name")
    parser.add_argument("--cookie")
    parser.add_argument("--agent", default="history")
    args = parser.parse_args()
    handler = (
        ScenarioAgent
        if args.agent == "scenario"
        else functools.partial(HistoryAgent, store=Store(args.name))
    )
    sock = socket.socket(fileno=args.fd)
    print("ready", flush=True)
    asyncio.run(serve(AcpApp(handler, affinity_cookie=args.cookie), sock))


if __name__ == "__main__":
    main()
