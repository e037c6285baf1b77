"""docs/sessions.md shows the notes example as it is: each Python block of the page is a run of
lines of examples/notes_agent.py or examples/notes_client.py, unchanged; the README and
docs/runtime.md link the page."""

from __future__ import annotations

import re

from tests.docs.readme import README, ROOT

PAGE = ROOT / "docs" / "sessions.md"
EXAMPLES = [ROOT / "examples" / "notes_agent.py", ROOT / "examples" / "notes_client.py"]


def blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def excerpt_of(block: str, source: str) -> bool:
    want = block.splitlines()
    lines = source.splitlines()
    return any(lines[i : i + len(want)] == want for i in range(len(lines)))


def test_each_python_block_of_the_page_is_a_piece_of_the_examples_as_they_are() -> None:
    found = blocks(PAGE.read_text("utf-8"))
    sources = [path.read_text("utf-8") for path in EXAMPLES]
    assert len(found) >= 6, found  # capabilities, list, pages, load, Session.load, resume, known
    for block in found:
        assert any(excerpt_of(block, source) for source in sources), f"not in examples/:\n{block}"


def test_an_edited_block_is_no_excerpt() -> None:
    source = EXAMPLES[0].read_text("utf-8")
    block = blocks(PAGE.read_text("utf-8"))[0]
    assert excerpt_of(block, source)
    assert not excerpt_of(block.replace("acp.", "acp .", 1), source)


def test_the_readme_and_docs_runtime_link_the_page() -> None:
    assert "](docs/sessions.md)" in README.read_text("utf-8")
    assert "](sessions.md)" in (ROOT / "docs" / "runtime.md").read_text("utf-8")
