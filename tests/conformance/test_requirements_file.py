"""The requirements parser reads all 257 rows of the requirements file, as its header says."""

from __future__ import annotations

import json
import re
from collections import Counter

from .requirements import FILE, FILE_V2, load, parse


def test_all_257_rows_are_read_in_order() -> None:
    rows = load()
    assert [r.number for r in rows] == list(range(1, 258))
    assert len({r.id for r in rows}) == 257


def test_keyword_counts_match_the_files_own_summary() -> None:
    header = FILE.read_text().splitlines()[1]
    expected = {
        k: int(n) for k, n in re.findall(r"(MUST NOT|SHOULD NOT|MUST|SHOULD|MAY): (\d+)", header)
    }
    assert Counter(r.keyword for r in load()) == expected


def test_responsibility_counts() -> None:
    assert Counter(r.responsibility for r in load()) == {
        "sdk": 174,
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


DOCS_V2 = FILE_V2.with_name("docs-v2")
DOCS_V2_DRAFT = FILE_V2.with_name("docs-v2-draft")  # docs/protocol/v2/draft/ (the 2.4.0 docs)


def _plain(markdown: str) -> str:
    """The docs' text as the v2 rows quote it: no emphasis, code marks or link targets."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return " ".join(text.replace("**", "").replace("`", "").split())


def test_v2_rows_are_numbered_in_order_with_unique_ids_and_counted_by_the_header() -> None:
    rows = load(FILE_V2)
    assert [r.number for r in rows] == list(range(1, len(rows) + 1))
    assert len({r.id for r in rows}) == len(rows) and all(r.id.startswith("ACP-V2-") for r in rows)
    header = FILE_V2.read_text().splitlines()[1]
    assert f"Requirements: {len(rows)} " in header
    expected = {k: int(n) for k, n in re.findall(r"(MUST NOT|MUST): (\d+)", header)}
    assert Counter(r.keyword for r in rows) == expected


def test_every_v2_row_quotes_its_docs_page_at_the_lines_it_cites() -> None:
    for r in load(FILE_V2):
        if r.source.startswith("schema/"):
            continue  # the schema's own descriptions: the next test
        found = re.match(r"^docs/protocol/v2/(draft/)?(\S+\.mdx) L(\d+)(?:-L(\d+))?$", r.source)
        assert found, (r.id, r.source)
        docs = DOCS_V2_DRAFT if found[1] else DOCS_V2
        lines = (docs / found[2]).read_text(encoding="utf-8").splitlines()
        first, last = int(found[3]), int(found[4] or found[3])
        assert r.text in _plain(" ".join(lines[first - 1 : last])), r.id


SCHEMA_ROOT = FILE.parents[2]


def test_every_row_citing_a_schema_def_of_the_repository_quotes_its_description() -> None:
    """The proxy and MCP-over-ACP rows (v1 and v2) cite schema/schema.json and
    schema/v2/schema.json (the default inputs): each quotes the description at its pointer, code
    marks aside."""
    cited = 0
    for r in [*load(), *load(FILE_V2)]:
        found = re.match(r"^(schema/(?:v2/)?schema\.json) /\$defs/(\S+)$", r.source)
        if found is None:
            continue
        node = json.loads((SCHEMA_ROOT / found[1]).read_text(encoding="utf-8"))["$defs"]
        for part in found[2].split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert r.text in _plain(node["description"]), r.id
        cited += 1
    assert cited == 32
