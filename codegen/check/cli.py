"""`acpgen check [OPTIONS] -- AGENT_CMD [ARGS...]`: check an agent it spawns over stdio;
`acpgen check --client [OPTIONS] -- CLIENT_CMD ... {agent} ...`: check a client (client_mode.py);
`acpgen check --proxy [OPTIONS] -- PROXY_CMD [ARGS...]`: check a proxy of a proxy chain
(proxy_mode.py).

Exit status: 0 when no MUST-level check fails, 1 when one does, 2 on bad usage (bad options, a
command that cannot be started, a remote agent that cannot be reached or refuses the connection,
a --schema the generator cannot read), with one line on stderr; 4 when the agent is blocked by
authentication (it advertises auth methods and refuses sessions or prompts with -32000) and no
MUST-level check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable

from ..cli_args import parse_args, usage_error
from .client_mode import PLACEHOLDER, ClientCommandError, has_placeholder, run_client_checks
from .context import progress_to_stderr
from .link import SpawnError
from .model import Run
from .proxy_mode import run_proxy_checks
from .report import FORMATS, render
from .runner import NoVersion, known_names, negotiate, run_agent_checks, selector
from .schemas import SchemaProblem, default_package, package_for_schema

VERSIONS = ("1", "2", "both")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acpgen check",
        description=(
            "Check that an ACP agent speaks the protocol: spawn it, drive it over stdio, decode"
            " every frame it sends strictly, and exercise the requirements any agent must meet"
            " without a model behind it."
        ),
        epilog="example: acpgen check -- python examples/echo_agent.py",
    )
    parser.add_argument(
        "--protocol-version",
        choices=VERSIONS,
        help="the version to check (default: the one the agent negotiates; both: each)",
    )
    parser.add_argument(
        "--schema",
        type=Path,
        help="check against this schema.json (its package is generated into a cache folder)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this check, group (rpc, stdio, ...) or requirement id; repeatable",
    )
    parser.add_argument(
        "--skip", action="append", default=[], metavar="NAME", help="skip this; repeatable"
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="the report's format")
    parser.add_argument("--report", type=Path, help="write the report here instead of stdout")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for each answer (10)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--client",
        action="store_true",
        help=(
            "check a client instead: the checker is the agent it spawns; put {agent} in the"
            " client's command where the agent command goes"
        ),
    )
    parser.add_argument(
        "--proxy",
        action="store_true",
        help=(
            "check a proxy of a proxy chain instead: the checker is its conductor and its"
            " successor (default: on v1 and v2)"
        ),
    )
    parser.add_argument(
        "--url",
        help=(
            "check a remote agent at this URL instead of spawning one: http(s):// speaks"
            " Streamable HTTP, ws(s):// WebSocket"
        ),
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="with --url: send this header with every request (the WebSocket handshake);"
        " repeatable",
    )
    parser.add_argument(
        "--token",
        help="with --url: send Authorization: Bearer TOKEN (as --header does)",
    )
    parser.add_argument(
        "--auth-method",
        metavar="ID",
        help="call authenticate with this advertised method after each initialize, before any"
        " session (an agent that needs credentials it finds in its environment)",
    )
    parser.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        help="-- AGENT_CMD [ARGS...], with --client: -- CLIENT_CMD [ARGS...] {agent} [...], with"
        " --proxy: -- PROXY_CMD [ARGS...]",
    )
    return parser


def main(argv: list[str]) -> int:
    parser = _parser()
    args, status = parse_args(parser, argv)
    if args is None:
        return status
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.url is not None:
        problem = _url_problem(args.url, command, args.client)
        if problem:
            return usage_error(parser, problem)
    elif not command:
        return usage_error(parser, "name the agent to check after --: acpgen check -- AGENT_CMD")
    if (args.header or args.token is not None) and args.url is None:
        return usage_error(parser, "--header and --token go with --url (a remote agent)")
    headers = _headers(args.header, args.token)
    if isinstance(headers, str):
        return usage_error(parser, headers)
    args.headers = headers
    if args.timeout <= 0:
        return usage_error(
            parser, f"--timeout must be a positive number of seconds, not {args.timeout}"
        )
    unknown = [n for n in args.only + args.skip if n not in known_names()]
    if unknown:
        return usage_error(
            parser, f"--only/--skip: unknown check, group or requirement {unknown[0]!r}"
        )
    if args.proxy and (args.client or args.url is not None or args.auth_method is not None):
        return usage_error(
            parser, "--proxy checks a proxy it spawns: no --client, --url or --auth-method"
        )
    if args.client and not has_placeholder(command):
        return usage_error(
            parser,
            f"--client: put {PLACEHOLDER} in the client's command where the agent command goes",
        )
    if args.schema is not None and (args.client or args.proxy) and args.protocol_version is None:
        mode = "--client" if args.client else "--proxy"
        return usage_error(parser, f"{mode} --schema: give --protocol-version 1 or 2 with it")
    if args.schema is not None and args.protocol_version == "both":
        return usage_error(
            parser, "--schema is one revision: give --protocol-version 1 or 2 with it"
        )
    progress: Callable[[str], None] = _silent if args.quiet else progress_to_stderr
    try:
        run = asyncio.run(_run(args, command, progress))
    except (SpawnError, SchemaProblem, ClientCommandError) as exc:
        print(f"acpgen check: {exc}", file=sys.stderr)
        return 2
    except NoVersion as exc:
        print(f"acpgen check: {exc}", file=sys.stderr)
        return 1
    report = render(run, args.format)
    if args.report is not None:
        try:
            args.report.write_text(report, encoding="utf-8")
        except OSError as exc:
            print(f"acpgen check: --report {args.report}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(report)
    return run.exit_status


def _headers(given: list[str], token: str | None) -> dict[str, str] | str:
    """--header NAME:VALUE (each) and --token as headers, or what is wrong with one."""
    headers: dict[str, str] = {}
    for item in given:
        name, sep, value = item.partition(":")
        name = name.strip()
        if not sep or not name or any(c in name for c in " \t\r\n") or "\n" in value:
            return f"--header {item!r}: give NAME:VALUE, e.g. --header 'X-Api-Key: secret'"
        headers[name] = value.strip()
    if token is not None:
        if not token or any(c in token for c in "\r\n"):
            return "--token: give the bearer token, one line"
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _url_problem(url: str, command: list[str], client: bool) -> str | None:
    if command or client:
        return "--url checks a remote agent: give no command and no --client with it"
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("http", "https", "ws", "wss"):
        return f"--url {url!r}: give an http://, https:// (Streamable HTTP), ws:// or wss:// URL"
    return None


def _silent(line: str) -> None:
    pass


async def _run(
    args: argparse.Namespace, command: list[str], progress: Callable[[str], None]
) -> Run:
    packages: dict[int, ModuleType] = {1: default_package(1), 2: default_package(2)}
    if args.client:
        return await _client_runs(args, command, packages, progress)
    if args.proxy:
        chosen = args.protocol_version or "both"
        versions = [1, 2] if chosen == "both" else [int(chosen)]
        if args.schema is not None:
            packages[versions[0]] = package_for_schema(args.schema)
        selected = selector(args.only, args.skip)
        return await run_proxy_checks(command, packages, versions, args.timeout, selected, progress)
    if args.protocol_version == "both":
        versions = [1, 2]
    elif args.protocol_version is not None:
        versions = [int(args.protocol_version)]
    else:
        versions = [await negotiate(command, packages[2], args.timeout, args.url, args.headers)]
    if args.schema is not None:
        packages[versions[0]] = package_for_schema(args.schema)
    selected = selector(args.only, args.skip)
    return await run_agent_checks(
        command,
        packages,
        versions,
        args.timeout,
        selected,
        progress,
        args.url,
        args.headers,
        args.auth_method,
    )


async def _client_runs(
    args: argparse.Namespace,
    command: list[str],
    packages: dict[int, ModuleType],
    progress: Callable[[str], None],
) -> Run:
    """--client: the checker plays the version given (each of them with `both`, one client run
    each), or the one the client asks for."""
    selected = selector(args.only, args.skip)
    if args.protocol_version is None:
        return await run_client_checks(command, packages, args.timeout, selected, progress)
    versions = [1, 2] if args.protocol_version == "both" else [int(args.protocol_version)]
    if args.schema is not None:
        packages[versions[0]] = package_for_schema(args.schema)
    runs = [
        await run_client_checks(
            command, packages, args.timeout, selected, progress, version=version
        )
        for version in versions
    ]
    return Run(command, versions, [r for run in runs for r in run.results], _notes(runs))


def _notes(runs: list[Run]) -> list[str]:
    if len(runs) == 1:
        return runs[0].notes
    return [f"v{run.versions[0]}: {note}" for run in runs for note in run.notes]
