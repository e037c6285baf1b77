"""The zoo's well-behaved v1 client taking the agent as one option, a shell-quoted command line
(`--agent "{agent}"`), as many real clients do."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo_clients"))

from base import BaseClient  # noqa: E402  (the zoo client, found through sys.path)

parser = argparse.ArgumentParser()
parser.add_argument("--agent", required=True)
BaseClient(shlex.split(parser.parse_args().agent)).run()
