"""The requirements parser reads all 240 rows of the requirements file, as its header says."""

from __future__ import annotations

import re
from collections import Counter

from .requirements import FILE, load, parse


def test_all_240_rows_are_read_in_order() -> None:
    rows = load()
    assert [r.number for r in rows] == list(range(1, 241))
    assert len({r.id for r in rows}) == 240


def test_keyword_counts_match_the_files_own_summary() -> None:
    header = FILE.read_text().splitlines()[1]
    expected = {
        k: int(n) for k, n in re.findall(r"(MUST NOT|SHOULD NOT|MUST|SHOULD|MAY): (\d+)", header)
    }
    assert Counter(r.keyword for r in load()) == expected


def test_responsibility_counts() -> None:
    assert Counter(r.responsibility for r in load()) == {
        "sdk": 157,
        "shared": 39,
        "application": 44,
    }


def test_text_with_unescaped_pipes_stays_in_the_requirement() -> None:
    piped = [r for r in load() if "|" in r.text]
    assert piped, "the file has derived rows with '|' inside the text"
    for r in piped:
        assert r.source.startswith(("docs/", "schema/")) and "|" not in r.source


def test_every_source_names_a_docs_page_a_schema_pointer_or_the_json_rpc_spec() -> None:
    shape = r"^(docs/\S+\.mdx L\d+(-L\d+)?|schema/\S+\.json /\$defs/\S+|jsonrpc/\S+\.html #\w+)$"
    for r in load():
        assert re.match(shape, r.source), (r.number, r.source)


def test_a_row_that_does_not_close_is_an_error() -> None:
    bad = "| 1 | ACP-V1-X |\nMUST | both | sdk | imported | text without its end"
    try:
        parse(bad)
    except ValueError as exc:
        assert "ACP-V1-X" in str(exc)
    else:
        raise AssertionError("an unterminated row must not parse")
