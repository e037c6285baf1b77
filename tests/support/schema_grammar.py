"""A grammar of JSON Schema 2020-12 documents spelled as ACP spells them (Hypothesis strategies).

    schemas() -> SearchStrategy[dict]   # a whole document: {"$schema", "$defs", ...}

Every drawn document is a valid 2020-12 schema (`Draft202012Validator.check_schema`). Defs only
refer to defs drawn before them, so there are no reference cycles. What the grammar draws:

- scalars (string, integer with ACP's integer formats, number, boolean), any-JSON `{}`, raw maps
  (`{"type": "object", "additionalProperties": true}`, like `_meta`);
- const/enum in every ACP spelling: `enum` lists, `oneOf` of described consts, open sets (consts
  plus a plain `{"type": "string"}` branch), open integer sets (ErrorCode's consts plus a plain
  integer);
- nullables in both spellings (`type: [X, "null"]` and `anyOf: [X, {"type": "null"}]`);
- arrays (`uniqueItems`, `x-deserialize-skip-invalid-items`), maps (`additionalProperties: X`),
  nested inline objects (`additionalProperties` absent, true or false), `anyOf` of scalars,
  `anyOf` of arrays told apart by the keys their items require;
- `$ref` bare, wrapped in `allOf` with a description, or with `title`/`description` beside it;
- tagged unions (def or inline, `oneOf`/`anyOf`, variants inline or `allOf`-wrapped refs, closed
  or open with a catch-all object; the tag required in every branch or only pinned, optional, in
  some), and the five constructs of issue 9:
  1. an object def with its own properties plus `anyOf`/`oneOf` variants pinning one of them by
     const (closed, or open with a catch-all);
  2. an open untagged union: `allOf`-wrapped refs plus the catch-all
     `{"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}},
     "additionalProperties": true}`;
  3. a `{"type": "null"}` branch in a union of objects, also in the response envelope union;
  4. a request def (`x-method`/`x-side`) without a response def;
  5. branches with `additionalProperties`, `title`/`description` beside `$ref`, several `allOf`
     members, `not`;
- optional properties with schema `default`s and `x-deserialize-default-on-error`, and properties
  (required or not) marked `x-deserialize-default-on-null` (a null takes the default);
- def names that shadow what generated modules import (`Meta`, `Any`, `Annotated`, `msgspec`, ...)
  and property names that are Python keywords or collide once snake_cased;
- methods: request/response/notification defs with `x-method`/`x-side` (`agent`, `client`,
  `proxy`, `protocol`) or with `x-method` and no `x-side` (an extension-method placeholder), and
  the JSON-RPC envelope defs that name them (`AgentRequest`, `ClientResponse`, `ProxyRequest`, ...
  with `id`/`method`/`params`/`result`, as the fixtures spell them, or the older bare `anyOf` lists
  of refs), with the document's own `anyOf` of one message union per sender (`Agent`, `Client`,
  `Proxy`) and the protocol-level one.

Choices are ordered simplest first, so Hypothesis shrinks towards small, plain schemas.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEF_NAMES = [
    "Alpha",
    "Beta",
    "Gamma",
    "Delta",
    "Epsilon",
    "Meta",
    "Any",
    "Annotated",
    "Literal",
    "msgspec",
    "Struct",
    "Enum",
    "Union",
    "Optional",
    "UNSET",
    "UnsetType",
    "Raw",
    "UnknownVariant",
    "List",
    "Dict",
    "T",
    "typing",
    "enum",
    "annotations",
    "Callable",
    "Generic",
]
PROP_NAMES = [
    "a",
    "name",
    "value",
    "kind",
    "sessionId",
    "_meta",
    "class",
    "from",
    "fooBar",
    "foo_bar",
    "with-dash",
    "id",
    "items",
    "type",
    "None",
    "self",
]
TAG_NAMES = ["type", "kind", "sessionUpdate"]
WORDS = ["a", "b", "text", "end_turn", "image", "x y", "Other", "_ext", "1", "kebab-case", "ÉTÉ"]
INT_FORMATS = [None, "int64", "uint32", "uint16", "int32", "uint64"]
METHODS = [
    ("Initialize", "initialize"),
    ("NewSession", "session/new"),
    ("ReadTextFile", "fs/read_text_file"),
    ("SessionUpdate", "session/update"),
    ("CancelRequest", "$/cancel_request"),
    ("CreateTerminal", "terminal/create"),
    ("InitializeProxy", "proxy/initialize"),
    ("ProxySuccessor", "proxy/successor"),
]
CATCH_ALL = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"type": "string"}},
    "additionalProperties": True,
}
NULL = {"type": "null"}
DESCRIPTIONS = [
    "A property.",
    'Quotes """ and \\ a backslash, \\[1\\] as in RequestId.',
    'Ends in a quote"',
    "Unicode: 中文 😀",
    "Lines\n\n- a list item\n    indented code",
    "{{ jinja }} {% raw %}",
]
MAX_DEPTH = 2


@dataclass
class Ctx:
    """What a node may refer to: the defs drawn so far, and which of them are plain objects."""

    refs: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MethodDraw:
    """One drawn method: its wire name, receiving side, kind and defs (result None: no def)."""

    wire: str
    side: str
    kind: str  # "request" | "notification"
    params: str
    result: str | None
    null_result: bool  # the response envelope has a {"type": "null"} branch for it


_CTX: ContextVar[Ctx] = ContextVar("schema_grammar_ctx")
"""The defs drawn so far in the document being drawn (strategies are built once: they read it
at draw time)."""


def _ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


# ---------------------------------------------------------------- leaves


@functools.cache
def scalar() -> st.SearchStrategy[dict]:
    integer = st.builds(
        lambda fmt, lo: {
            "type": "integer",
            **({"format": fmt} if fmt else {}),
            **({"minimum": 0} if lo else {}),
        },
        st.sampled_from(INT_FORMATS),
        st.booleans(),
    )
    return st.one_of(
        st.just({"type": "string"}),
        integer,
        st.just({"type": "boolean"}),
        st.just({"type": "number"}),
        st.just({}),
        st.just({"type": "object", "additionalProperties": True}),
        st.builds(lambda w: {"type": "string", "const": w}, st.sampled_from(WORDS)),
    )


@functools.cache
@st.composite
def enum_node(draw: st.DrawFn) -> dict:
    """A const set in one of ACP's spellings."""
    values = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))
    spelling = draw(st.sampled_from(["enum", "oneOf", "open", "open_int"]))
    if spelling == "enum":
        return {"type": "string", "enum": values}
    consts = [{"description": f"The {v} value.", "type": "string", "const": v} for v in values]
    if spelling == "oneOf":
        return {"oneOf": consts}
    if spelling == "open":
        return {
            "anyOf": consts
            + [{"title": "other", "description": "Custom or future value.", "type": "string"}]
        }
    codes = draw(
        st.lists(
            st.sampled_from([-32700, -32600, 0, 7, -32000]), min_size=1, max_size=3, unique=True
        )
    )
    return {
        "anyOf": [
            {"title": f"Code {c}", "type": "integer", "format": "int32", "const": c} for c in codes
        ]
        + [{"title": "Other", "type": "integer", "format": "int32"}]
    }


@functools.cache
@st.composite
def ref_node(draw: st.DrawFn) -> dict:
    """A reference in one of ACP's spellings (a scalar while no def exists yet)."""
    ctx = _CTX.get()
    if not ctx.refs:
        return draw(scalar())
    target = draw(st.sampled_from(ctx.refs))
    spelling = draw(st.sampled_from(["allOf", "bare", "beside"]))
    if spelling == "bare":
        return _ref(target)
    if spelling == "allOf":
        return {"description": f"A {target}.", "allOf": [_ref(target)]}
    return {
        **_ref(target),
        "title": target,
        "description": f"A {target}, described beside its $ref.",
    }


# ---------------------------------------------------------------- composites


@functools.cache
def node(depth: int) -> st.SearchStrategy[dict]:
    """Any value schema, nested at most `depth` more levels."""
    leaves = [scalar(), enum_node(), ref_node()]
    if depth <= 0:
        return st.one_of(*leaves)
    sub = node(depth - 1)
    unions = st.one_of(
        scalar_union(),
        tagged_union(depth - 1),
        object_union(depth - 1),
        array_union(depth - 1),
    )
    return st.one_of(
        *leaves,
        nullable(st.one_of(scalar(), sub)),
        array(st.one_of(sub, unions)),
        st.builds(_map, st.one_of(sub, unions)),
        inline_object(depth - 1),
        unions,
        not_node(),
    )


@functools.cache
@st.composite
def nullable(draw: st.DrawFn, sub: st.SearchStrategy[dict]) -> dict:
    inner = draw(sub)
    if isinstance(inner.get("type"), str) and inner["type"] != "null" and draw(st.booleans()):
        return {**inner, "type": [inner["type"], "null"]}
    return {"anyOf": [inner, NULL]}


@functools.cache
@st.composite
def array(draw: st.DrawFn, sub: st.SearchStrategy[dict]) -> dict:
    out = {"type": "array", "items": draw(sub)}
    if draw(st.booleans()):
        out["uniqueItems"] = True
    if draw(st.booleans()):
        out["minItems"] = 1
    return out


def _map(values: dict) -> dict:
    return {"type": "object", "additionalProperties": values}


@functools.cache
def scalar_union() -> st.SearchStrategy[dict]:
    kinds = st.lists(
        st.sampled_from(["string", "integer", "boolean", "number", "array"]),
        min_size=2,
        max_size=3,
        unique=True,
    )
    return st.builds(lambda ks: {"anyOf": [{"type": k} for k in ks]}, kinds)


@functools.cache
@st.composite
def array_union(draw: st.DrawFn, depth: int) -> dict:
    """Arrays told apart by what their items require (msgspec takes one array type per union):
    `anyOf` of two or three arrays of objects with different required keys, maybe `minItems`."""
    names = draw(st.lists(st.sampled_from(PROP_NAMES), min_size=2, max_size=3, unique=True))
    branches = []
    for name in names:
        item = draw(inline_object(depth, frozenset(names) - {name}))
        item = {
            **item,
            "properties": {**item["properties"], name: {"type": "string"}},
            "required": sorted({*item.get("required", ()), name}),
        }
        branch: dict = {"type": "array", "items": item}
        if draw(st.booleans()):
            branch["minItems"] = 1
        branches.append(branch)
    return {"anyOf": branches}


@functools.cache
def not_node() -> st.SearchStrategy[dict]:
    return st.one_of(
        st.builds(lambda w: {"type": "string", "not": {"const": w}}, st.sampled_from(WORDS)),
        st.builds(
            lambda p: {
                "type": "object",
                "properties": {p: {"type": "integer"}},
                "not": {"required": [p]},
            },
            st.sampled_from(PROP_NAMES),
        ),
    )


def _default_for(schema: dict) -> tuple[bool, Any]:
    """(True, a value valid for schema) for the simple schemas that ACP gives defaults."""
    if "const" in schema:
        return True, schema["const"]
    if "enum" in schema:
        return True, schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        return True, None
    simple = {"string": "", "boolean": False, "integer": 0, "number": 0.0, "array": []}
    if kind in simple and set(schema) <= {"type", "format", "minimum", "items", "description"}:
        return True, simple[kind]
    if kind == "object" and set(schema) <= {"type", "additionalProperties"}:
        return True, {}
    return False, None


def _nullable(schema: dict) -> bool:
    """Whether null is (plainly) a value of a drawn node: then default-on-null changes nothing."""
    kind = schema.get("type")
    return (
        schema == {}
        or kind == "null"
        or isinstance(kind, list)
        and "null" in kind
        or NULL in schema.get("anyOf", []) + schema.get("oneOf", [])
    )


@functools.cache
@st.composite
def prop(draw: st.DrawFn, depth: int, required: bool) -> dict:
    """A property schema: a node, plus what optional properties carry in ACP."""
    schema = dict(draw(node(depth)))
    if draw(st.booleans()):
        schema["description"] = draw(st.sampled_from(DESCRIPTIONS))
    if not _nullable(schema) and draw(st.integers(0, 3)) == 0:
        schema["x-deserialize-default-on-null"] = True
    if required:
        return schema
    has_default, default = _default_for(schema)
    if has_default and draw(st.booleans()):
        schema["default"] = default
    if draw(st.booleans()):
        schema["x-deserialize-default-on-error"] = True
    if schema.get("type") in ("array", ["array", "null"]) and draw(st.booleans()):
        schema["x-deserialize-skip-invalid-items"] = True
    return schema


@functools.cache
@st.composite
def properties(
    draw: st.DrawFn, depth: int, exclude: frozenset[str] = frozenset(), max_size: int = 3
) -> tuple[dict, list[str]]:
    names = draw(
        st.lists(
            st.sampled_from([p for p in PROP_NAMES if p not in exclude]),
            max_size=max_size,
            unique=True,
        )
    )
    props, required = {}, []
    for name in names:
        req = draw(st.booleans())
        props[name] = draw(prop(depth, req))
        if req:
            required.append(name)
    return props, required


@functools.cache
@st.composite
def inline_object(draw: st.DrawFn, depth: int, exclude: frozenset[str] = frozenset()) -> dict:
    props, required = draw(properties(depth, exclude))
    out: dict = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    extra = draw(st.sampled_from([None, False, True]))
    if extra is not None:
        out["additionalProperties"] = extra
    return out


@functools.cache
@st.composite
def variant(draw: st.DrawFn, depth: int, tag: str, value: str, optional: bool = False) -> dict:
    """One tagged variant: inline properties, or an allOf-wrapped ref to an object def. Its tag
    is required, or only pinned (`optional`: a value of this branch may leave the tag out)."""
    pin = {"type": "string", "const": value}
    tags = [] if optional else [tag]
    ctx = _CTX.get()
    if ctx.objects and draw(st.booleans()):
        out = {
            "description": f"The {value} variant.",
            "type": "object",
            "properties": {tag: pin},
            **({"required": tags} if tags else {}),
            "allOf": [_ref(draw(st.sampled_from(ctx.objects)))],
        }
    else:
        body = draw(inline_object(depth, frozenset({tag})))
        required = tags + body.get("required", [])
        out = {
            **{k: v for k, v in body.items() if k != "required"},
            "properties": {tag: pin, **body["properties"]},
            **({"required": required} if required else {}),
        }
    return draw(branch_extras(out))


@st.composite
def branch_extras(draw: st.DrawFn, branch: dict) -> dict:
    """Construct 5: keywords the union code may not expect on a branch."""
    extra = draw(st.sampled_from([None, "title", "additionalProperties", "allOf", "not"]))
    ctx = _CTX.get()
    if extra == "title":
        return {**branch, "title": "Branch"}
    if extra == "additionalProperties" and "additionalProperties" not in branch:
        return {**branch, "additionalProperties": True}
    if extra == "allOf":  # several members: what the branch had, plus a ref or an inline object
        more = (
            _ref(draw(st.sampled_from(ctx.objects)))
            if ctx.objects and draw(st.booleans())
            else draw(inline_object(0))
        )
        if "allOf" in branch:
            return {**branch, "allOf": branch["allOf"] + [more]}
        rest = {k: v for k, v in branch.items() if k in ("title", "description")}
        return {**rest, "allOf": [{k: v for k, v in branch.items() if k not in rest}, more]}
    if extra == "not":
        return {**branch, "not": {"required": ["forbidden"]}}
    return branch


@functools.cache
@st.composite
def tagged_union(draw: st.DrawFn, depth: int) -> dict:
    """Objects told apart by a const tag: closed (oneOf/anyOf) or open (anyOf + catch-all). The
    tag may be optional in some branches (only pinned there, not required: issue 41)."""
    tag = draw(st.sampled_from(TAG_NAMES))
    values = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True))
    optional = draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    variants = [draw(variant(depth, tag, v, o)) for v, o in zip(values, optional, strict=True)]
    shape = draw(st.sampled_from(["oneOf", "anyOf", "open"]))
    if shape == "open":
        catch_all = {**CATCH_ALL, "required": [tag], "properties": {tag: {"type": "string"}}}
        return {"anyOf": variants + [catch_all]}
    return {shape: variants}


@functools.cache
@st.composite
def object_union(draw: st.DrawFn, depth: int) -> dict:
    """Constructs 2 and 3: untagged unions of objects, open (catch-all) or with a null branch."""
    branches = []
    ctx = _CTX.get()
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.integers(0, 3)) == 0:  # a tagged variant beside untagged ones
            branches.append(
                draw(variant(depth, draw(st.sampled_from(TAG_NAMES)), draw(st.sampled_from(WORDS))))
            )
        elif ctx.objects and draw(st.booleans()):
            target = draw(st.sampled_from(ctx.objects))
            if draw(st.booleans()):
                ref = {"title": target, "allOf": [_ref(target)]}
            else:  # construct 5: title and description beside the $ref
                ref = {**_ref(target), "title": target, "description": f"A {target}."}
            branches.append(draw(branch_extras(ref)))
        else:
            branches.append(draw(inline_object(depth)))
    tail = draw(st.sampled_from(["null", "catch_all", "both"]))
    if tail in ("catch_all", "both"):
        branches.append(dict(CATCH_ALL))
    if tail in ("null", "both"):
        branches.append(dict(NULL))
    return {draw(st.sampled_from(["anyOf", "oneOf"])) if tail == "null" else "anyOf": branches}


# ---------------------------------------------------------------- defs


@functools.cache
@st.composite
def discriminated_object(draw: st.DrawFn) -> dict:
    """Construct 1: an object with its own properties plus variants that pin one of them."""
    tag = draw(st.sampled_from(TAG_NAMES))
    props, required = draw(properties(1, frozenset({tag}), max_size=2))
    if draw(st.booleans()):  # the shared tag is declared by the object itself (or only pinned)
        props = {tag: {"type": "string", "description": "The shared tag."}, **props}
        required = [tag] + required
    values = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True))
    out = {"description": "An object with variants.", "type": "object", "properties": props}
    if required:
        out["required"] = required
    variants = [draw(variant(0, tag, v)) for v in values]
    if draw(st.booleans()):  # open: unknown variants must still carry the shared fields
        out["anyOf"] = variants + [
            {**CATCH_ALL, "required": [tag], "properties": {tag: {"type": "string"}}}
        ]
    else:
        out[draw(st.sampled_from(["anyOf", "oneOf"]))] = variants
    return out


@functools.cache
@st.composite
def def_body(draw: st.DrawFn) -> tuple[dict, bool]:
    """(a def's schema, whether it is a plain object def)."""
    kind = draw(
        st.sampled_from(
            ["object", "alias", "enum", "object", "tagged", "discriminated", "object_union"]
        )
    )
    if kind == "object":
        body = draw(inline_object(MAX_DEPTH - 1))
        return {"description": draw(st.sampled_from(DESCRIPTIONS)), **body}, True
    if kind == "alias":
        return draw(node(MAX_DEPTH)), False
    if kind == "enum":
        return {"description": "A set of values.", **draw(enum_node())}, False
    if kind == "tagged":
        return {"description": "A tagged union.", **draw(tagged_union(1))}, False
    if kind == "discriminated":
        return draw(discriminated_object()), False
    return {"description": "A union of objects.", **draw(object_union(1))}, False


# ---------------------------------------------------------------- methods and envelopes


REQUEST_ID = {
    "anyOf": [
        {"title": "Null", "type": "null"},
        {"title": "Number", "type": "integer", "format": "int64"},
        {"title": "Str", "type": "string"},
    ]
}
ERROR_CODE = {
    "anyOf": [
        {"title": "Parse error", "type": "integer", "format": "int32", "const": -32700},
        {"title": "Invalid params", "type": "integer", "format": "int32", "const": -32602},
        {"title": "Method not found", "type": "integer", "format": "int32", "const": -32601},
        {"title": "Other", "type": "integer", "format": "int32"},
    ]
}
ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"allOf": [_ref("ErrorCode")]},
        "message": {"type": "string"},
        "data": {"x-deserialize-default-on-error": True},
    },
}
SENDER = {"agent": "Client", "client": "Agent", "proxy": "Proxy"}
"""x-side (receiver) -> the envelopes that carry its requests (Proxy: a conductor and its
proxies)."""
NO_SIDE = ""
"""The side of a drawn method def that carries x-method but no x-side."""


@functools.cache
@st.composite
def methods(draw: st.DrawFn) -> tuple[dict, list[MethodDraw]]:
    """({def name: schema} for method defs, what was drawn)."""
    picked = draw(st.lists(st.sampled_from(METHODS), max_size=3, unique=True))
    defs: dict = {}
    drawn = []
    for stem, wire in picked:
        kind = draw(st.sampled_from(["request", "notification"]))
        protocol = ["protocol"] if kind == "notification" else []  # received by both sides
        side = draw(st.sampled_from(["agent", "client", "proxy", *protocol, NO_SIDE]))
        sided = {"x-side": side} if side != NO_SIDE else {}
        params = f"{stem}{kind.title()}"
        body = draw(inline_object(1))
        defs[params] = {
            "description": f"The {wire} {kind}.",
            **body,
            **sided,
            "x-method": wire,
        }
        result, null_result = None, False
        if kind == "request":
            answer = draw(st.sampled_from(["object", "none", "null"]))  # construct 4 and 3
            if answer == "object":
                result = f"{stem}Response"
                defs[result] = {
                    "description": f"The {wire} response.",
                    **draw(inline_object(1)),
                    **sided,
                    "x-method": wire,
                }
            null_result = answer == "null"
        drawn.append(MethodDraw(wire, side, kind, params, result, null_result))
    return defs, drawn


def _titled(name: str) -> dict:
    return {"title": name, "description": f"The {name}.", "allOf": [_ref(name)]}


def envelopes(drawn: list[MethodDraw], bare: bool) -> dict:
    """The JSON-RPC envelope defs naming every drawn method (plus RequestId/Error/ErrorCode)."""
    defs: dict = {} if bare else {"RequestId": REQUEST_ID, "ErrorCode": ERROR_CODE, "Error": ERROR}
    for sender in ("Agent", "Client", "Proxy"):
        sent = [m for m in drawn if SENDER.get(m.side) == sender]
        requests = [m.params for m in sent if m.kind == "request"]
        notes = [m.params for m in sent if m.kind == "notification"]
        results = [m.result for m in sent if m.result]
        has_null = any(m.null_result for m in sent)
        if bare:
            for suffix, names, null in (
                ("Request", requests, False),
                ("Response", results, has_null),
                ("Notification", notes, False),
            ):
                if names or null:
                    defs[sender + suffix] = {
                        "anyOf": [_ref(n) for n in names] + ([NULL] if null else []),
                        "x-docs-ignore": True,
                    }
            continue
        rid = {"allOf": [_ref("RequestId")]}
        if requests:
            defs[f"{sender}Request"] = {
                "description": "A JSON-RPC request object.",
                "type": "object",
                "properties": {
                    "id": rid,
                    "method": {"type": "string"},
                    "params": {"anyOf": [{"anyOf": [_titled(n) for n in requests]}, NULL]},
                },
                "required": ["id", "method"],
                "x-docs-ignore": True,
            }
        if results or has_null:
            answers = [_titled(n) for n in results] + ([NULL] if has_null else [])
            defs[f"{sender}Response"] = {
                "description": "A JSON-RPC response object.",
                "anyOf": [
                    {
                        "title": "Result",
                        "type": "object",
                        "properties": {"id": rid, "result": {"anyOf": answers}},
                        "required": ["id", "result"],
                    },
                    {
                        "title": "Error",
                        "type": "object",
                        "properties": {"id": rid, "error": {"allOf": [_ref("Error")]}},
                        "required": ["id", "error"],
                    },
                ],
                "x-docs-ignore": True,
            }
        if notes:
            defs[f"{sender}Notification"] = {
                "description": "A JSON-RPC notification object.",
                "type": "object",
                "properties": {
                    "method": {"type": "string"},
                    "params": {"anyOf": [{"anyOf": [_titled(n) for n in notes]}, NULL]},
                },
                "required": ["method"],
                "x-docs-ignore": True,
            }
    return defs


# ---------------------------------------------------------------- documents


@st.composite
def schemas(draw: st.DrawFn) -> dict:
    """A whole schema document: some defs, then maybe methods and their envelopes."""
    names = draw(st.lists(st.sampled_from(DEF_NAMES), min_size=1, max_size=4, unique=True))
    ctx = Ctx()
    _CTX.set(ctx)
    defs: dict = {}
    for name in names:
        body, is_object = draw(def_body())
        defs[name] = body
        ctx.refs.append(name)
        if is_object:
            ctx.objects.append(name)
    method_defs, drawn = draw(methods())
    defs.update(method_defs)
    doc = {"$schema": DRAFT, "title": "Drawn", "$defs": defs}
    if drawn:
        bare = draw(st.booleans())
        defs.update(envelopes(drawn, bare))
        if not bare:
            protocol = [m.params for m in drawn if m.side == "protocol"]
            branches = messages(defs, protocol)
            if branches:  # none when every drawn method is of no side
                doc["anyOf"] = branches
    return doc


def messages(defs: dict, protocol: list[str]) -> list[dict]:
    """The document's own anyOf, as ACP spells it: one message union per sender (the Proxy one for
    a conductor and its proxies), and the protocol-level notifications (`protocol`: their params
    defs) that either side sends."""
    out = []
    for sender in ("Agent", "Client", "Proxy"):
        kinds = [k for k in ("Request", "Response", "Notification") if sender + k in defs]
        if kinds:
            out.append(
                {
                    "title": sender,
                    "type": "object",
                    "properties": {"jsonrpc": {"type": "string", "enum": ["2.0"]}},
                    "required": ["jsonrpc"],
                    "anyOf": [{"title": k, "allOf": [_ref(sender + k)]} for k in kinds],
                }
            )
    if protocol:
        params = {"anyOf": [{"anyOf": [_titled(n) for n in protocol]}, NULL]}
        out.append(
            {
                "title": "ProtocolLevel",
                "type": "object",
                "x-docs-ignore": True,
                "properties": {
                    "jsonrpc": {"type": "string", "enum": ["2.0"]},
                    "method": {"type": "string"},
                    "params": params,
                },
                "required": ["jsonrpc", "method"],
            }
        )
    return out


# ---------------------------------------------------------------- coverage


def features(doc: dict) -> set[str]:
    """The constructs a document contains (names as in FEATURES), to check the grammar's reach."""
    found: set[str] = set()
    defs = doc["$defs"]
    for name, body in defs.items():
        if name in DEF_NAMES[5:]:
            found.add("shadowing def name")
        if "x-method" in body:
            found.add("method")
            if body.get("x-side") == "protocol":
                found.add("protocol-level notification")
            if body.get("x-side") == "proxy":
                found.add("proxy method")
            if "x-side" not in body:
                found.add("method without x-side")
            if name.endswith("Request") and not any(
                n.endswith("Response") and b.get("x-method") == body["x-method"]
                for n, b in defs.items()
            ):
                found.add("request without response def")
        if body.get("x-docs-ignore"):
            found.add(
                "bare envelope"
                if "properties" not in body and "Result" not in str(body)[:200]
                else "json-rpc envelope"
            )
        if "properties" in body and any(k in body for k in ("anyOf", "oneOf")):
            found.add("object with pinning variants")
    _walk(doc["$defs"], found, in_property=False)
    return found


def _walk(node: Any, found: set[str], in_property: bool) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, found, in_property)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if isinstance(kind, list) and "null" in kind:
        found.add("nullable type list")
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list):
            continue
        if NULL in branches:
            found.add("nullable anyOf" if len(branches) == 2 else "null branch in union")
        if CATCH_ALL in branches or any(
            b.get("additionalProperties") is True
            and "required" in b
            and not any("const" in p for p in b.get("properties", {}).values())
            for b in branches
            if isinstance(b, dict)
        ):
            found.add("open union with catch-all")
        if any(
            "const" in b and "type" in b and b.get("type") == "string"
            for b in branches
            if isinstance(b, dict)
        ):
            found.add(
                "open string set"
                if any(b.get("title") == "other" for b in branches)
                else "oneOf of consts"
            )
        if any(b.get("title") == "Other" for b in branches if isinstance(b, dict)):
            found.add("open integer set")
        if _tag_optional_somewhere([b for b in branches if isinstance(b, dict)]):
            found.add("tag optional in a branch")
        if any(isinstance(b, dict) and "not" in b for b in branches):
            found.add("branch with not")
        if any(isinstance(b, dict) and len(b.get("allOf", [])) > 1 for b in branches):
            found.add("branch with several allOf")
        if any(isinstance(b, dict) and "$ref" in b and "title" in b for b in branches):
            found.add("title beside $ref")
        if in_property and any(
            isinstance(b, dict)
            and any("const" in p for p in b.get("properties", {}).values() if isinstance(p, dict))
            for b in branches
        ):
            found.add("inline tagged union in a field")
        if sum(isinstance(b, dict) and b.get("type") == "array" for b in branches) > 1:
            found.add("union of arrays")
    if "enum" in node:
        found.add("enum list")
    if (
        node.get("type") == "array"
        and isinstance(node.get("items"), dict)
        and any(k in node["items"] for k in ("anyOf", "oneOf"))
    ):
        found.add("array of union")
    if isinstance(node.get("additionalProperties"), dict) and any(
        k in node["additionalProperties"] for k in ("anyOf", "oneOf")
    ):
        found.add("map of union")
    if node.get("additionalProperties") is False:
        found.add("closed object")
    if node.get("uniqueItems"):
        found.add("uniqueItems")
    if node.get("x-deserialize-default-on-error"):
        found.add("default-on-error mark")
    if node.get("x-deserialize-skip-invalid-items"):
        found.add("skip-invalid-items mark")
    if node.get("x-deserialize-default-on-null"):
        found.add("default-on-null mark")
    if "default" in node:
        found.add("property default")
    if "not" in node:
        found.add("not")
    props = node.get("properties")
    if isinstance(props, dict):
        if any(
            isinstance(p, dict) and p.get("type") == "object" and "properties" in p
            for p in props.values()
        ):
            found.add("nested inline object")
        for sub in props.values():
            _walk(sub, found, in_property=True)
    for key, value in node.items():
        if key != "properties":
            _walk(value, found, in_property)


def _tag_optional_somewhere(branches: list[dict]) -> bool:
    """Whether one branch requires a property another pins to a const without requiring it."""
    required: set[str] = set()
    optional: set[str] = set()
    for b in branches:
        consts = {
            k for k, p in b.get("properties", {}).items() if isinstance(p, dict) and "const" in p
        }
        required |= consts & set(b.get("required", []))
        optional |= consts - set(b.get("required", []))
    return bool(required & optional)


FEATURES = frozenset(
    {
        "tag optional in a branch",
        "union of arrays",
        "shadowing def name",
        "method",
        "protocol-level notification",
        "request without response def",
        "bare envelope",
        "json-rpc envelope",
        "object with pinning variants",
        "nullable type list",
        "nullable anyOf",
        "null branch in union",
        "open union with catch-all",
        "open string set",
        "oneOf of consts",
        "open integer set",
        "branch with not",
        "branch with several allOf",
        "title beside $ref",
        "inline tagged union in a field",
        "enum list",
        "array of union",
        "map of union",
        "closed object",
        "uniqueItems",
        "default-on-error mark",
        "skip-invalid-items mark",
        "default-on-null mark",
        "proxy method",
        "method without x-side",
        "property default",
        "not",
        "nested inline object",
    }
)
"""Every construct the grammar must reach (see test_the_grammar_reaches_every_construct)."""
