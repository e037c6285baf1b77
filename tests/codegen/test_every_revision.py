"""Every schema revision we have generates a package that imports and decodes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from .conftest import SCHEMAS, load_schema


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: p.stem)
def test_every_type_builds_a_decoder_and_an_encoder(generate, schema: Path) -> None:
    pkg = generate(schema)
    names = list(pkg.types.__all__)
    assert len(names) >= len(load_schema(schema)["$defs"]) - 10
    for name in names:
        tp = getattr(pkg.types, name)
        pkg.codec.decoder(tp)
        msgspec.json.Encoder(enc_hook=pkg._support.enc_hook)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: p.stem)
def test_methods_agree_with_x_method_and_x_side(generate, schema: Path) -> None:
    pkg = generate(schema)
    defs = load_schema(schema)["$defs"]
    tables = [*pkg.REQUESTS.values(), *pkg.NOTIFICATIONS.values()]
    by_params: dict[int, list[Any]] = {}  # an alias def (proxy/initialize's) shares its type
    for info in tables:
        by_params.setdefault(id(info.params), []).append(info)
    for name, body in defs.items():
        if "x-method" not in body:
            continue
        tp = getattr(pkg.types, name)
        if id(tp) in by_params:
            named = {(info.method, info.side) for info in by_params[id(tp)]}
            assert (body["x-method"], body["x-side"]) in named
        else:  # a response def: the result of the request of the same method
            assert pkg.REQUESTS[body["x-method"]].result is tp
    for info in tables:
        assert info.kind in ("request", "notification")
        assert (info.result is None) == (info.kind == "notification")
        params_def = next(
            n
            for n in defs
            if getattr(pkg.types, n, None) is info.params and defs[n].get("x-method") == info.method
        )
        assert info.unstable == defs[params_def].get("description", "").startswith("**UNSTABLE**")


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: p.stem)
def test_methods_agree_with_the_envelope_unions(generate, schema: Path) -> None:
    """Every def the Client/Agent Request and Notification envelopes name is in the right table."""
    pkg = generate(schema)
    defs = load_schema(schema)["$defs"]
    text = {
        name: msgspec.json.encode(body).decode()
        for name, body in defs.items()
        if body.get("x-docs-ignore")
    }
    # Protocol-level notifications ($/cancel_request) are named by the root union itself.
    text["root Notification"] = msgspec.json.encode(load_schema(schema).get("anyOf", [])).decode()
    for info in pkg.REQUESTS.values():
        name = next(n for n in defs if getattr(pkg.types, n, None) is info.params)
        envelopes = [n for n, t in text.items() if f'"#/$defs/{name}"' in t]
        assert any("Request" in n or "Message" in n for n in envelopes), info.method
    for info in pkg.NOTIFICATIONS.values():
        name = next(n for n in defs if getattr(pkg.types, n, None) is info.params)
        envelopes = [n for n, t in text.items() if f'"#/$defs/{name}"' in t]
        assert any("Notification" in n or "Message" in n for n in envelopes), info.method


def test_a_name_that_is_both_request_and_notification_keeps_both_forms(generate) -> None:
    schema = next(s for s in SCHEMAS if s.stem == "v1-preview-pr-2026-08-21")
    pkg = generate(schema)
    both = set(pkg.REQUESTS) & set(pkg.NOTIFICATIONS)
    assert both, "this revision defines mcp/message as both"
    for name in both:
        assert pkg.METHODS[name].kind == "request"
        assert pkg.NOTIFICATIONS[name].kind == "notification"
        assert pkg.NOTIFICATIONS[name].handler == pkg.REQUESTS[name].handler + "_notification"


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: p.stem)
def test_generated_package_imports_only_msgspec_and_the_standard_library(
    generate, schema: Path
) -> None:
    import ast
    import sys

    pkg = generate(schema)
    for path in Path(pkg.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            for root in roots:
                assert (
                    root == "msgspec" or root in sys.stdlib_module_names or root == "__future__"
                ), (path.name, root)


def test_every_revision_type_checks_under_mypy_strict(
    generate, generated_root: Path, tmp_path: Path
) -> None:
    """One mypy run over the packages of every fixture revision (as users vendor them)."""
    names = [generate(schema).__name__ for schema in SCHEMAS]
    args = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--no-incremental",
        "--cache-dir",
        str(tmp_path / ".mypy"),
    ]
    for name in names:
        args += ["-p", name]
    result = subprocess.run(args, cwd=generated_root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]
