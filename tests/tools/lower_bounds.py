"""pyproject.toml's dependency ranges, tested at their lower ends (.ci/run's lower-bound job).

    python tests/tools/lower_bounds.py constraints        # pip constraints: every lower bound
    python tests/tools/lower_bounds.py test-requirements [NAME...]  # the `test` pins left free
    python tests/tools/lower_bounds.py beside WHEEL       # `pip install WHEEL[http]` next to ...

`constraints` writes `name==X` for each `name>=X` of the package's dependencies and of the
extras users install (`http`, `fast`, `codegen`): a venv made with it runs at the oldest versions
the ranges allow. `test-requirements` writes the `test` extra's exact pins (of the NAMEs given,
else all), less the packages the constraints name (the test tools: pytest, the interop SDK...).
`beside` checks that the built wheel's `http` extra installs next to each version in BESIDE (an
application's own pin), with `pip install --dry-run` (nothing is installed); it exits 1 naming
each one refused.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
USER_EXTRAS = ("http", "fast", "codegen")
BESIDE = (
    "httpx==0.27.2",
    "hypercorn==0.17.3",
    "websockets==15.0.1",
    "h2==4.1.0",
    "h11==0.14.0",
    "wsproto==1.2.0",
)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")


def _project() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        project: dict[str, object] = tomllib.load(file)["project"]
    return project


def _split(requirement: str) -> tuple[str, str]:
    """A requirement's normalized name and its version specifiers."""
    match = _REQUIREMENT.match(requirement.split(";")[0])
    if match is None:
        raise SystemExit(f"lower_bounds: cannot read the requirement {requirement!r}")
    return re.sub(r"[-_.]+", "-", match.group(1)).lower(), match.group(3).strip()


def constraints() -> list[str]:
    """`name==lower` for every ranged dependency users install; refuses one without a lower
    bound, or an exact pin, in those extras."""
    project = _project()
    extras: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    requirements: list[str] = list(project["dependencies"])  # type: ignore[call-overload]
    for extra in USER_EXTRAS:
        requirements += extras[extra]
    lines: dict[str, str] = {}
    for requirement in requirements:
        name, specifiers = _split(requirement)
        if "==" in specifiers:
            raise SystemExit(f"lower_bounds: {requirement!r} is pinned in an extra users install")
        lower = [s.strip()[2:].strip() for s in specifiers.split(",") if s.strip()[:2] == ">="]
        if len(lower) != 1:
            raise SystemExit(f"lower_bounds: {requirement!r} has no single lower bound (>=)")
        lines[name] = f"{name}=={lower[0]}"
    return sorted(lines.values())


def test_requirements(names: list[str]) -> list[str]:
    """The `test` extra's pins (of `names`, else all), less the packages the constraints bound."""
    bounded = {line.split("==")[0] for line in constraints()}
    wanted = {_split(name)[0] for name in names}
    extras: dict[str, list[str]] = _project()["optional-dependencies"]  # type: ignore[assignment]
    pins = [r for r in extras["test"] if _split(r)[0] not in bounded]
    return [r for r in pins if not wanted or _split(r)[0] in wanted]


def beside(wheel: str) -> int:
    refused = []
    for pin in BESIDE:
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet"]
        done = subprocess.run(
            [*command, f"{wheel}[http]", pin], capture_output=True, text=True, timeout=600
        )
        print(f"{pin}: {'installs' if done.returncode == 0 else 'REFUSED'}")
        if done.returncode != 0:
            refused.append(pin)
            print(done.stderr[-2000:], file=sys.stderr)
    return 1 if refused else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["constraints"]:
        print("\n".join(constraints()))
    elif argv[:1] == ["test-requirements"]:
        print("\n".join(test_requirements(argv[1:])))
    elif argv[:1] == ["beside"] and len(argv) == 2:
        return beside(argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
