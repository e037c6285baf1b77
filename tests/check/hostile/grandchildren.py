"""The zoo's well-behaved agent that starts two grandchildren at start-up: one sleeping, one
holding the agent's stdout open. Their pids are appended to the file $ACPGEN_CHECK_PIDS."""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))

from base import main  # noqa: E402  (the zoo agent, found through sys.path)

sleeper = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
holder = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)  # keeps our stdout open
with open(os.environ["ACPGEN_CHECK_PIDS"], "a", encoding="utf-8") as pids:
    pids.write(f"{sleeper.pid}\n{holder.pid}\n")
main()
