"""Peak memory of decoding one huge line, in a fresh process per decoder.

    python decode_memory.py DECODER FILE     -> one JSON line: maxrss before and after decoding

DECODER: acpgen | sdk | msgspec | orjson. The line is read from FILE first (one allocation of its
size), the decoder's modules are imported, then the baseline is taken and the line decoded once.
"""

from __future__ import annotations

import json
import sys
import time

from common import maxrss_kb


def main(which: str, path: str) -> None:
    if which == "acpgen":
        import acp_schema

        decode = acp_schema.MessageDecoder("agent").decode
    elif which == "sdk":
        from acp.schema import PromptRequest

        def decode(data: bytes) -> object:
            return PromptRequest.model_validate(json.loads(data).get("params"))

    elif which == "msgspec":
        import msgspec

        decode = msgspec.json.decode
    elif which == "orjson":
        import orjson

        decode = orjson.loads
    else:
        raise SystemExit(f"unknown decoder {which!r}")
    with open(path, "rb") as f:
        data = f.read()
    before = maxrss_kb()
    start = time.perf_counter()
    value = decode(data)
    seconds = time.perf_counter() - start
    after = maxrss_kb()
    assert value is not None
    print(
        json.dumps(
            {
                "bytes": len(data),
                "maxrss_kb_before": before,
                "maxrss_kb_after": after,
                "seconds": seconds,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
