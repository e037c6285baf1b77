"""A stateless HPACK encoder for the client's HTTP/2 connection (`h2conn.py`).

h2's own encoder (the `hpack` package) searches its tables for every header of every request and
logs as it goes: about a tenth of the client's time per round trip. This one never adds to the
dynamic table (RFC 7541 allows an encoder that does not use it), so the encoding of a header
depends on the header alone and is cached: a request's header block is a join of cached pieces.
A header in the static table with its value is one byte; others are literals without indexing
(the static table naming them where it can), `authorization` and `cookie` never indexed. No
dynamic table also means no compression context a secret could leak through.
"""

from __future__ import annotations

from typing import Iterable

# RFC 7541, Appendix A: the static table (index 1 first)
_STATIC_TABLE: tuple[tuple[bytes, bytes], ...] = (
    (b":authority", b""),
    (b":method", b"GET"),
    (b":method", b"POST"),
    (b":path", b"/"),
    (b":path", b"/index.html"),
    (b":scheme", b"http"),
    (b":scheme", b"https"),
    (b":status", b"200"),
    (b":status", b"204"),
    (b":status", b"206"),
    (b":status", b"304"),
    (b":status", b"400"),
    (b":status", b"404"),
    (b":status", b"500"),
    (b"accept-charset", b""),
    (b"accept-encoding", b"gzip, deflate"),
    (b"accept-language", b""),
    (b"accept-ranges", b""),
    (b"accept", b""),
    (b"access-control-allow-origin", b""),
    (b"age", b""),
    (b"allow", b""),
    (b"authorization", b""),
    (b"cache-control", b""),
    (b"content-disposition", b""),
    (b"content-encoding", b""),
    (b"content-language", b""),
    (b"content-length", b""),
    (b"content-location", b""),
    (b"content-range", b""),
    (b"content-type", b""),
    (b"cookie", b""),
    (b"date", b""),
    (b"etag", b""),
    (b"expect", b""),
    (b"expires", b""),
    (b"from", b""),
    (b"host", b""),
    (b"if-match", b""),
    (b"if-modified-since", b""),
    (b"if-none-match", b""),
    (b"if-range", b""),
    (b"if-unmodified-since", b""),
    (b"last-modified", b""),
    (b"link", b""),
    (b"location", b""),
    (b"max-forwards", b""),
    (b"proxy-authenticate", b""),
    (b"proxy-authorization", b""),
    (b"range", b""),
    (b"referer", b""),
    (b"refresh", b""),
    (b"retry-after", b""),
    (b"server", b""),
    (b"set-cookie", b""),
    (b"strict-transport-security", b""),
    (b"transfer-encoding", b""),
    (b"user-agent", b""),
    (b"vary", b""),
    (b"via", b""),
    (b"www-authenticate", b""),
)

_FULL: dict[tuple[bytes, bytes], int] = {}
_NAMES: dict[bytes, int] = {}
for _index, (_name, _value) in enumerate(_STATIC_TABLE, start=1):
    _FULL.setdefault((_name, _value), _index)
    _NAMES.setdefault(_name, _index)

_SENSITIVE = frozenset({b"authorization", b"proxy-authorization", b"cookie"})
_CACHE_LIMIT = 4096


def _integer(value: int, prefix_bits: int, flags: int) -> bytes:
    """An HPACK integer with an N-bit prefix, the prefix's other bits set to `flags`."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([flags | value])
    out = bytearray([flags | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _string(data: bytes) -> bytes:
    """An HPACK string literal, not Huffman-coded."""
    return _integer(len(data), 7, 0) + data


def encode_header(name: bytes, value: bytes) -> bytes:
    """One header field's representation, independent of any table state."""
    index = _FULL.get((name, value))
    if index is not None:
        return _integer(index, 7, 0x80)  # indexed field
    flags = 0x10 if name in _SENSITIVE else 0x00  # never indexed / without indexing
    name_index = _NAMES.get(name)
    if name_index is not None:
        return _integer(name_index, 4, flags) + _string(value)
    return bytes([flags]) + _string(name) + _string(value)


class StatelessEncoder:
    """What h2 needs of an encoder (`encode`, `header_table_size`), using no dynamic table."""

    def __init__(self) -> None:
        self._cache: dict[tuple[bytes, bytes], bytes] = {}
        self._size_update = False

    @property
    def header_table_size(self) -> int:
        return 0

    @header_table_size.setter
    def header_table_size(self, value: int) -> None:
        # the peer changed SETTINGS_HEADER_TABLE_SIZE: acknowledge with a size update (to 0,
        # the size this encoder uses) at the start of the next block (RFC 7541, 4.2 and 6.3)
        self._size_update = True

    def encode(self, headers: Iterable[tuple[bytes, bytes]], huffman: bool = True) -> bytes:
        cache = self._cache
        parts = []
        if self._size_update:
            self._size_update = False
            parts.append(b"\x20")
        for header in headers:
            name, value = header[0], header[1]
            piece = cache.get((name, value))
            if piece is None:
                piece = encode_header(name, value)
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                cache[(name, value)] = piece
            parts.append(piece)
        return b"".join(parts)
