"""`python -m bench --quick --only proxy_hops` runs and reports every figure (no timing is
asserted: CI machines vary; the floor is the bench's to check)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_the_hop_section_measures_every_chain_and_its_floor(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    command = [sys.executable, "-m", "bench", "--quick", "--only", "proxy_hops", "--json", str(out)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    results = json.loads(out.read_text())
    chains = results["proxy_hops"]["chains"]
    assert list(chains) == ["direct", "conductor, 0 proxies", "1 proxy", "2 proxies"]
    assert all(v > 0 for row in chains.values() for v in row.values())
    (target,) = [t for t in results["targets"] if "proxy" in t["target"]]
    assert target["status"] in ("PASS", "FAIL") and target["value"] > 0
    assert "### Proxy chains: the cost of a hop" in run.stdout
    assert "| 2 proxies |" in run.stdout
