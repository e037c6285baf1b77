"""README, "Using the generated codecs" (the generator section): a test per sentence (the
round-trip promise is in test_round_trip.py)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
import typing
from pathlib import Path
from types import ModuleType

import msgspec
import pytest

import acp_schema
import acp_schema_v2
from acpgen.cli import main
from tests.docs.claims import claim
from tests.docs.readme import ROOT, section
from tests.support.agreement import import_generated, write_generated

GENERAL = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        "Plain": {"type": "object", "properties": {"pair": {"$ref": "#/$defs/Pair"}}},
    },
}


@claim("`decode_message` / `encode_message` handle whole JSON-RPC messages")
def test_messages_and_their_errors() -> None:
    acp = acp_schema
    line = (
        b'{"jsonrpc":"2.0","id":1,"method":"session/cancel_not_a_method","params":{}}',
        b'{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":1}}',
    )
    request = acp.decode_message(
        b'{"jsonrpc":"2.0","id":2,"method":"session/prompt",'
        b'"params":{"sessionId":"s","prompt":[]}}',
        "agent",
    )
    assert isinstance(request, acp.Request) and isinstance(request.params, acp.PromptRequest)
    assert json.loads(acp.encode_message(request))["params"] == {"sessionId": "s", "prompt": []}
    cases = [(b"{nope", -32700), (b"[1, 2]", -32600), (line[0], -32601), (line[1], -32602)]
    for data, code in cases:
        with pytest.raises(acp.RpcError) as refused:
            acp.decode_message(data, "agent")
        assert refused.value.code == code, data
    with pytest.raises(acp.RpcError) as bad_params:
        acp.decode_message(line[1], "agent")
    assert bad_params.value.data["path"] == "$.params.sessionId"


@claim("To vendor it, copy `generated/acp_schema` into your project under any name")
@pytest.mark.parametrize("package", [acp_schema, acp_schema_v2], ids=lambda p: p.__name__)
def test_a_vendored_copy_works_under_another_name(package: ModuleType, tmp_path: Path) -> None:
    source = Path(package.__file__).parent
    for path in source.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                top = (node.module or "").split(".")[0]
            elif isinstance(node, ast.Import):
                top = node.names[0].name.split(".")[0]
            else:
                continue
            assert top in sys.stdlib_module_names or top == "msgspec", f"{path.name}: {top}"
    shutil.copytree(
        source, tmp_path / "my_vendored_acp", ignore=shutil.ignore_patterns("__pycache__")
    )
    code = (
        "import sys, my_vendored_acp as acp\n"
        'b = acp.decode(b\'{"text":"hi","type":"text"}\', acp.ContentBlock)\n'
        "assert type(b).__module__ == 'my_vendored_acp.types', type(b).__module__\n"
        "assert not [m for m in sys.modules if m.startswith('acp_schema')]\n"
        "print(acp.encode(b).decode())\n"
    )
    result = subprocess.run(
        [sys.executable, "-E", "-s", "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == '{"type":"text","text":"hi"}\n'


@claim("`acpgen generate` reads any valid JSON Schema 2020-12 (with or without ACP's `x-*` marks)")
def test_a_schema_without_acp_marks_generates(tiny: ModuleType) -> None:
    text = (Path(__file__).with_name("tiny_schema.json")).read_text("utf-8")
    assert "x-method" not in text and "x-side" not in text
    assert {"Closed", "Keeping", "KeepingAll", "Quiet", "Numbers"} <= set(tiny.types.__all__)
    # the long run of drawn schemas is tests/codegen/test_property.py (`make proptest`)


def _kinds(pkg: ModuleType) -> set[str]:
    import enum

    kinds = set()
    for name in pkg.types.__all__:
        t = getattr(pkg.types, name)
        args = typing.get_args(t)
        if isinstance(t, type) and issubclass(t, msgspec.Struct):
            kinds.add("struct")
        elif isinstance(t, type) and issubclass(t, enum.Enum):
            kinds.add("enum")
        elif args and all(isinstance(a, type) and issubclass(a, msgspec.Struct) for a in args):
            kinds.add("tagged")
        elif type(None) in args:
            kinds.add("nullable")
        if hasattr(t, "__acp_untagged__"):
            if t.__acp_open__:
                kinds.add("open")
            kinds.add("partially tagged" if t.__acp_tag__ and t.__acp_untagged__ else "hook")
            if t.__acp_tag__ is None:
                kinds.add("untagged")
    return kinds


@claim("Each construct gets its typed form where it has one: Structs, enums, tagged, partially")
def test_each_construct_gets_its_typed_form() -> None:
    kinds = _kinds(acp_schema) | _kinds(acp_schema_v2)
    assert {
        "struct",
        "enum",
        "tagged",
        "partially tagged",
        "untagged",
        "nullable",
        "open",
    } <= kinds, kinds
    # unions whose branches share properties: every variant holds them
    request = acp_schema.types.SetSessionConfigOptionRequest
    for variant in request.__acp_members__:
        assert {"sessionId", "configId"} <= set(variant.__struct_encode_fields__)


@pytest.fixture(scope="module")
def general(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    root = tmp_path_factory.mktemp("docs-general")
    return import_generated(root, write_generated(GENERAL, root))


@claim("A construct without a typed form (`if`/`then`/`else`, `patternProperties`, `prefixItems`")
def test_a_general_form_is_any_for_type_checkers_and_checked_at_run_time(
    general: ModuleType,
) -> None:
    source = Path(general.types.__file__).read_text("utf-8")
    assert re.search(r"^\s*Pair: _t\.TypeAlias = _t\.Any$", source, re.M), "not Any to a checker"
    value = general.decode(b'{"pair":["a",1,{"extra":[true]}]}', general.types.Plain)
    assert value.pair == ["a", 1, {"extra": [True]}]  # kept as it came
    assert json.loads(general.encode(value)) == {"pair": ["a", 1, {"extra": [True]}]}
    with pytest.raises(msgspec.ValidationError, match=r"\$\.pair"):
        general.decode(b'{"pair":["a","not an integer"]}', general.types.Plain)


def _schema_file(tmp_path: Path, doc: object, name: str = "schema.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


@claim("Each one is told on stderr with its JSON pointer:")
def test_each_general_form_is_told_on_stderr_as_the_readme_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _schema_file(tmp_path, GENERAL)
    assert main(["generate", str(path), "--out", str(tmp_path / "out"), "--package", "p"]) == 0
    err = capsys.readouterr().err.replace(str(tmp_path) + "/", "")
    shown = re.search(r"```\n(acpgen: warning: .*?)\n```", section("Using the generated codecs"))
    assert shown is not None
    assert err.splitlines() == [shown.group(1)]


@claim("`--strict` turns those warnings into errors (exit 2, nothing written).")
def test_strict_refuses_a_general_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _schema_file(tmp_path, GENERAL)
    args = ["generate", str(path), "--out", str(tmp_path / "out"), "--package", "p", "--strict"]
    assert main(args) == 2
    assert "/$defs/Pair/prefixItems" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


BAD_INPUT = {
    "not JSON": ("{nope", "/", "is not JSON"),
    "unresolvable $ref": (
        {"$defs": {"A": {"$ref": "#/$defs/Nowhere"}}},
        "/$defs/A/$ref",
        "Nowhere",
    ),
    "wrong JSON type": (
        {"$defs": {"A": {"type": "object", "required": "x"}}},
        "/$defs/A/required",
        "must be an array",
    ),
    "def name": (
        {"$defs": {"1 bad!": {"type": "object", "properties": {"a": {"type": "string"}}}}},
        "/$defs/1 bad!",
        "cannot be a Python",
    ),
}


@claim("Input that is not a schema (not JSON, an unresolvable `$ref`, a keyword of the wrong")
@pytest.mark.parametrize("kind", BAD_INPUT)
@pytest.mark.parametrize("command", ["generate", "diff"])
def test_input_that_is_not_a_schema_is_refused_in_one_line(
    kind: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, pointer, says = BAD_INPUT[kind]
    path = _schema_file(tmp_path, doc, "bad.json")
    if command == "generate":
        args = ["generate", str(path), "--out", str(tmp_path / "out"), "--package", "p"]
    else:
        args = ["diff", str(path), str(ROOT / "schema" / "schema.json")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"bad.json: {pointer}: " in err[0] and says in err[0]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}


@claim("The generator's own dependencies (jinja2, black, jsonschema) are the `codegen` extra")
def test_the_generator_dependencies_are_the_codegen_extra() -> None:
    extra = _pyproject()["project"]["optional-dependencies"]["codegen"]
    assert _requirement_names(extra) == {"jinja2", "black", "jsonschema"}
    third_party = set(_imports(ROOT / "codegen", skip="static"))  # static: see the next test
    third_party -= set(sys.stdlib_module_names) | {"acpgen", "acp_runtime", "msgspec"}
    third_party -= {"acp_schema", "acp_schema_v2"}  # the committed packages, this project's own
    assert third_party <= {"jinja2", "black", "jsonschema"}, third_party


def _loaded(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run when a module is imported: its body, into `if` and `try` blocks,
    but not `if TYPE_CHECKING:` (for type checkers only) nor functions (a lazy import is for an
    optional feature, which says what to install when it is missing)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                out += _loaded(node.body)
            out += _loaded(node.orelse)
        elif isinstance(node, ast.Try):
            out += _loaded(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                out += _loaded(handler.body)
        else:
            out.append(node)
    return out


def _imports(folder: Path, skip: str | None = None) -> dict[str, set[str]]:
    """The top-level packages each module of `folder` imports when it is imported."""
    out: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        if skip and skip in path.relative_to(folder).parts:
            continue
        for node in _loaded(ast.parse(path.read_text("utf-8")).body):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.setdefault(node.module.split(".")[0], set()).add(path.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    out.setdefault(alias.name.split(".")[0], set()).add(path.name)
    return out


@claim("The runtime and the generated packages need only msgspec; `acp_runtime.http`")
def test_the_runtime_and_the_generated_packages_need_only_msgspec() -> None:
    assert _requirement_names(_pyproject()["project"]["dependencies"]) == {"msgspec"}
    allowed = set(sys.stdlib_module_names) | {"msgspec", "acp_runtime"}
    runtime = _imports(ROOT / "runtime", skip="http")
    # the runtime serves any generated package; it imports the default ones by name only lazily
    others = {
        m: f for m, f in runtime.items() if m not in allowed | {"acp_schema", "acp_schema_v2"}
    }
    # the modules of the `mcp` extra (the MCP SDK adapters and the loopback bridge) import its own
    mcp_modules = {"sdk.py", "bridge.py"}
    mcp_extra = _requirement_names(_pyproject()["project"]["optional-dependencies"]["mcp"])
    for module in [m for m, files in others.items() if files <= mcp_modules]:
        assert module in mcp_extra, (module, others[module], mcp_extra)
        del others[module]
    assert not others, others
    http = set(_imports(ROOT / "runtime" / "http")) - allowed - {"acp_schema", "acp_schema_v2"}
    extra = _requirement_names(_pyproject()["project"]["optional-dependencies"]["http"])
    assert http and http <= extra, (http, extra)
    for name in ("acp_schema", "acp_schema_v2"):
        imported = _imports(ROOT / "generated" / name)
        assert set(imported) <= set(sys.stdlib_module_names) | {"msgspec"}, imported
