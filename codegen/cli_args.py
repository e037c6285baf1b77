"""What every `acpgen` subcommand does with its command line before its own work: parse it
without letting argparse exit the process, and report a usage error the same way (the usage line,
then one line naming what is wrong, exit status 2)."""

from __future__ import annotations

import argparse
import sys

USAGE = 2  # the exit status of a usage error, as argparse's own


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str]
) -> tuple[argparse.Namespace | None, int]:
    """The parsed arguments, or None with the status to exit with: 0 after --help, 2 after a
    usage error argparse has already explained on stderr."""
    try:
        return parser.parse_args(argv), 0
    except SystemExit as exc:
        return None, exc.code if isinstance(exc.code, int) else USAGE


def usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """Print the usage line and `PROG: message` on stderr; the exit status of a usage error."""
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: {message}", file=sys.stderr)
    return USAGE
