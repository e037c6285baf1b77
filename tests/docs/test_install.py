"""One install story (issue 39): every `pip install` the README, docs/ and the generator's error
messages print names something pip can install (acpgen is not on PyPI: the clone, or the wheel it
builds, each with the extras pyproject.toml declares), and the README's "Supported versions" table
is pyproject.toml's requirements, so neither can drift."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.docs.readme import README, ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
WHEEL = f"dist/{PROJECT['name']}-{PROJECT['version']}-py3-none-any.whl"
OWN_EXTRAS = ("test", "bench")  # the project's own: its test suite's and `make bench`'s pins
SOURCES = [
    README,
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "codegen").rglob("*.py")),
    *sorted((ROOT / "runtime").rglob("*.py")),
]

# `pip install`, its options (those taking a value with it), then its targets up to the first word
# that is none (prose after an inline command: "... in the acpgen clone")
TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|[^\s`'\"]+")
OPTIONS = {"-e", "--editable", "-q", "--quiet", "-U", "--upgrade", "--no-deps"}
VALUED = {"--config-settings", "-c", "--constraint"}
TARGET = re.compile(r"(?P<path>\.|dist/[^\[\s]+)(?:\[(?P<extras>[^\]]*)\])?")


def commands(text: str) -> list[tuple[int, list[str]]]:
    """Each `pip install` of the text: its line number and its words as written (quotes kept)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in re.finditer(r"pip install\b", line):
            words: list[str] = []
            for token in TOKEN.findall(line[match.end() :].split("`")[0]):
                bare = token.strip("'\"")
                if not (
                    token[0] in "'\"-"
                    or "." in bare
                    or "/" in bare
                    or (words and words[-1] in VALUED)
                ):
                    break
                words.append(token)
            found.append((number, words))
    return found


def problems(words: list[str]) -> list[str]:
    """What is wrong with one `pip install`'s words: an empty list when it can work."""
    out, targets, skip = [], 0, False
    for word in words:
        if skip or word in OPTIONS:
            skip = False
            continue
        if word in VALUED:
            skip = True
            continue
        bare = word.strip("'\"")
        match = TARGET.fullmatch(bare)
        if match is None or match["path"] not in (".", WHEEL):
            out.append(
                f"{word} cannot be installed: acpgen is not on PyPI; from a clone `.` or"
                f" `'.[extra]'`, from its wheel `{WHEEL}` or `'{WHEEL}[extra]'`"
            )
            continue
        targets += 1
        extras = [e.strip() for e in (match["extras"] or "").split(",") if match["extras"]]
        unknown = [e for e in extras if e not in EXTRAS]
        if unknown:
            out.append(f"{word}: no such extra {unknown} (pyproject.toml has {sorted(EXTRAS)})")
        if "[" in bare and word == bare:
            out.append(f"{word}: brackets unquoted (a shell glob): write '{bare}'")
    if not targets and not out:
        out.append("nothing to install")
    return out


def test_every_install_line_of_the_readme_docs_and_generator_messages_can_work() -> None:
    found = []
    for path in SOURCES:
        for number, words in commands(path.read_text("utf-8")):
            where = f"{path.relative_to(ROOT)}:{number}: pip install {' '.join(words)}"
            found.append(where)
            assert not problems(words), f"{where}: {problems(words)}"
    assert len(found) >= 5, found  # the README's and docs/' lines, and the generator's messages


@pytest.mark.parametrize(
    "line",
    [
        "pip install 'acpgen[http]'",
        "pip install acpgen",
        "pip install -e .[http]",
        "pip install -e '.[htp]'",
        "pip install 'dist/acpgen-0.0.9-py3-none-any.whl[http]'",
        "pip install",
    ],
)
def test_a_form_that_cannot_work_is_refused(line: str) -> None:
    [(_, words)] = commands(f"`{line}`")
    assert problems(words)


@pytest.mark.parametrize(
    "line, words",
    [
        ("`pip install -e '.[codegen,http]'`", ["-e", "'.[codegen,http]'"]),
        (f"    pip install '{WHEEL}[http]'", [f"'{WHEEL}[http]'"]),
        ("install the extra, pip install -e '.[http]' in the clone's root", ["-e", "'.[http]'"]),
        (
            "`pip install -e . --config-settings editable_mode=strict`",
            ["-e", ".", *"--config-settings editable_mode=strict".split()],
        ),
    ],
)
def test_a_form_that_works_is_read_whole_and_passes(line: str, words: list[str]) -> None:
    assert commands(line) == [(1, words)]
    assert problems(words) == []


def supported_versions() -> str:
    text = README.read_text("utf-8")
    match = re.search(r"^### Supported versions\n(.*?)(?=^##)", text, re.S | re.M)
    assert match is not None, "README.md has no '### Supported versions' section"
    return match.group(1)


def test_the_readme_says_the_python_versions_and_each_extras_requirements_as_pyproject() -> None:
    section = supported_versions()
    python = PROJECT["requires-python"]
    assert f'(`requires-python = "{python}"`)' in section
    assert f"Python {python.removeprefix('>=')} and later" in section
    table = {
        name: re.findall(r"`([^`]+)`", cell)
        for name, cell in re.findall(r"^\| (\(none\)|`[\w-]+`) \| (.*) \|$", section, re.M)
    }
    expected = {"(none)": PROJECT["dependencies"]}
    expected |= {f"`{name}`": reqs for name, reqs in EXTRAS.items() if name not in OWN_EXTRAS}
    rows = "\n".join(
        f"| {n} | {', '.join(f'`{r}`' for r in reqs)} |" for n, reqs in expected.items()
    )
    assert table == expected, f"the table should read, as pyproject.toml:\n{rows}"
    assert all(f"`{name}`" in section and name in EXTRAS for name in OWN_EXTRAS)


def test_every_extra_the_readme_and_docs_name_is_in_pyproject() -> None:
    for path in [README, *sorted(Path(ROOT / "docs").glob("*.md"))]:
        text = path.read_text("utf-8")
        for name in re.findall(r"the `(\w+)` extra", text):
            assert name in EXTRAS, f"{path.name}: the `{name}` extra is not in pyproject.toml"
