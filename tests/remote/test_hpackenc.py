"""The h2c client's stateless HPACK encoder (acp_runtime.http.hpackenc): what it encodes, hpack's
own decoder (h2's) reads back exactly, request after request, with no dynamic table in use."""

from __future__ import annotations

from hpack import Decoder
from hpack.struct import NeverIndexedHeaderTuple
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_runtime.http.hpackenc import StatelessEncoder

HEADS = [
    (b":method", b"POST"),  # static table, name and value: one byte
    (b":scheme", b"http"),
    (b":authority", b"127.0.0.1:8000"),  # static name, literal value
    (b":path", b"/acp"),
    (b"content-type", b"application/json"),
    (b"acp-connection-id", b"0123456789abcdef" * 2),  # literal name and value
    (b"authorization", b"Bearer secret"),
    (b"cookie", b"node=a"),
    (b"x-long", b"v" * 1000),  # lengths past one prefix byte
]


def test_every_block_decodes_to_the_heads_and_leaves_the_tables_empty() -> None:
    encoder, decoder = StatelessEncoder(), Decoder()
    for _ in range(3):
        block = encoder.encode(HEADS)
        assert decoder.decode(block, raw=True) == HEADS
        assert len(decoder.header_table.dynamic_entries) == 0
    assert encoder.encode(HEADS[:1]) == b"\x83"


def test_credentials_are_never_indexed() -> None:
    heads = Decoder().decode(StatelessEncoder().encode(HEADS), raw=True)
    never = {header[0] for header in heads if isinstance(header, NeverIndexedHeaderTuple)}
    assert never == {b"authorization", b"cookie"}


def test_a_table_size_change_is_acknowledged_at_the_start_of_the_next_block() -> None:
    encoder, decoder = StatelessEncoder(), Decoder()
    encoder.header_table_size = 256  # the peer's SETTINGS_HEADER_TABLE_SIZE changed
    block = encoder.encode(HEADS[:2])
    assert block[:1] == b"\x20"  # a dynamic table size update to 0
    assert decoder.decode(block, raw=True) == HEADS[:2]
    assert encoder.encode(HEADS[:2])[:1] != b"\x20"  # once


_NAME = st.binary(min_size=1, max_size=40).map(bytes.lower)
_STATIC_NAMES = st.sampled_from([b":method", b":path", b"content-type", b"accept", b"cookie"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(_STATIC_NAMES, _NAME), st.binary(max_size=300)),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=1, max_value=4),
)
def test_any_heads_decode_back_exactly_request_after_request(
    heads: list[tuple[bytes, bytes]], repeats: int
) -> None:
    encoder, decoder = StatelessEncoder(), Decoder()
    for _ in range(repeats):  # the cached encodings too
        assert decoder.decode(encoder.encode(heads), raw=True) == heads
        assert len(decoder.header_table.dynamic_entries) == 0
