"""Every rule `acpgen diff` knows: its stable id, its effect on sender and receiver, and what to do.

The effects follow the direction data flows (see docs/diff.md for the reasoning). A rule's id
never changes once released: accept files and CI scripts key on it.
"""

from __future__ import annotations

from .model import Level, Rule

B, W, P, C = Level.BREAKING, Level.WARNING, Level.PYTHON_API, Level.COMPATIBLE

CATEGORIES = ("method", "type", "field", "value", "enum", "union", "leniency", "stability")

# fmt: off
_TABLE: list[tuple[str, str, Level, Level, str, str, str]] = [
    # id, category, sender, receiver, explanation, hint, mirror
    ("method-added", "method", C, C,
     "A new method: nobody has to call it and an old receiver answers 'method not found'.",
     "Receivers: implement it to offer the feature. Callers: check the peer's capabilities first.",
     "method-removed"),
    ("method-removed", "method", B, C,
     "A method is gone: calls to it now fail; its old handler is simply never called.",
     "Callers: stop calling it (look for a replacement "
     "among the added methods). Receivers: drop the handler.",
     "method-added"),
    ("method-side-changed", "method", B, C,
     "The method is now received by another side: an old caller's "
     "call the wrong way, and a new caller's call of an old "
     "receiver that does not take it that way, meet 'method not "
     "found'; an old handler that is no longer called is unused.",
     "Move the handler to the side that now receives "
     "it, and the call to the side that now sends it.",
     "method-side-changed"),
    ("method-kind-changed", "method", B, B,
     "A request became a notification or the other way round: "
     "one side waits for an answer the other never gives.",
     "Callers: stop (or start) waiting for a result. Receivers: stop (or start) answering.",
     "method-kind-changed"),
    ("method-params-changed", "method", B, B,
     "The method's params are now a different type, not a rename of the old one.",
     "Rebuild the params from the new type; the changes of that type are listed under it.",
     "method-params-changed"),
    ("method-result-changed", "method", B, B,
     "The method's result is now a different type, not a rename of the old one.",
     "Rebuild the result from the new type; the changes of that type are listed under it.",
     "method-result-changed"),
    ("type-added", "type", C, C,
     "A new named type; where it is used shows up as changes of fields, variants or methods.",
     "Nothing to do until you use it.",
     "type-removed"),
    ("type-removed", "type", P, P,
     "A named type is gone; the wire changes where it was used are listed there.",
     "Replace uses of the generated class.",
     "type-added"),
    ("type-renamed", "type", P, P,
     "The same structure under a new name (recognised by "
     "structure, not by name): the wire is unchanged.",
     "Rename uses of the generated class; an alias in your code can bridge both revisions.",
     "type-renamed"),
    ("type-shadows", "type", W, W,
     "A def that comes, goes or is renamed is named like a name the generated code uses (a "
     "builtin such as str, an import, a helper of the package): the generated class takes a "
     "trailing _ instead, so that the code using the name is unchanged.",
     "Rename the def in the schema, or use the generated class by its name with the _.",
     "type-shadows"),
    ("type-kind-changed", "type", B, B,
     "An object became a union, an enum or an alias, or the other way round.",
     "Rewrite the code that builds and reads it; check "
     "whether the old shape is one of the new variants.",
     "type-kind-changed"),
    ("type-became-checked", "type", W, W,
     "The generator reads the def of one revision only as any JSON value checked against its "
     "schema (a construct with no typed form): whether the other's values still pass cannot be "
     "decided from the types.",
     "Check the two schemas of the def by hand, or run acpgen diff --prove on them.",
     "type-became-checked"),
    ("object-became-union", "type", P, B,
     "An object became a union that keeps the old shape as an untagged variant: old senders' "
     "messages stay valid, but new senders may send variants old receivers cannot read.",
     "Receivers: handle the new variants. Senders: build the variant class that has the old shape.",
     "union-became-object"),
    ("union-became-object", "type", B, P,
     "A union became an object with the shape of one of its untagged "
     "variants: old senders of the other variants are rejected.",
     "Senders: send only the remaining shape. Receivers: drop the code for the other variants.",
     "object-became-union"),
    ("object-became-compatible-union", "type", P, W,
     "An object became a union that keeps the old shape as an untagged variant, and whose every "
     "variant has the old object's fields (or a union of a variant per value of one of its "
     "fields, each with its other fields): old receivers read every variant as the old object, "
     "and what a variant adds is lost to them.",
     "Receivers: handle the variants to see what they add. Senders: build the variant class "
     "that has the old shape.",
     "compatible-union-became-object"),
    ("compatible-union-became-object", "type", W, P,
     "A union whose every variant has the fields of one of its untagged variants (or a union of "
     "a variant per value of a field, each with the same other fields) became that object: old "
     "senders' other variants are still read, as the object, and what they add is no longer "
     "read.",
     "Senders: send only the remaining shape. Receivers: drop the code for the other variants.",
     "object-became-compatible-union"),
    ("field-added-required", "field", B, C,
     "A new required field: old senders leave it out and new "
     "receivers reject the message; old receivers ignore it.",
     "Senders: fill it in. Receivers: nothing to do until you read it.",
     "field-removed-required"),
    ("field-added-optional", "field", C, C,
     "A new optional field: old senders may leave it out; old receivers ignore it.",
     "Nothing to do; read or send it when you want the feature.",
     "field-removed-optional"),
    ("field-removed-required", "field", W, B,
     "A required field is gone: new senders leave it out and old "
     "receivers reject that; what old senders still send is ignored.",
     "Receivers: stop requiring it. Senders: what you put there is no longer read.",
     "field-added-required"),
    ("field-removed-optional", "field", W, P,
     "An optional field is gone: what old senders still "
     "send is ignored; the generated attribute disappears.",
     "Senders: what you put there is no longer read. Receivers: stop reading the attribute.",
     "field-added-optional"),
    ("field-became-required", "field", B, C,
     "An optional field became required: old senders that leave it out are rejected.",
     "Senders: always fill it in.",
     "field-became-optional"),
    ("field-became-optional", "field", C, B,
     "A required field became optional: new senders may leave it out, which old receivers reject.",
     "Receivers: handle its absence (the generated attribute gets a default).",
     "field-became-required"),
    ("became-nullable", "value", C, B,
     "The value may now be null: old receivers' typed decoding rejects null.",
     "Receivers: accept null (the generated type gains `| None`).",
     "became-non-nullable"),
    ("became-non-nullable", "value", B, C,
     "The value may no longer be null: old senders that send null are rejected.",
     "Senders: send a value or leave an optional field out instead of null.",
     "became-nullable"),
    ("type-changed", "value", B, B,
     "The value has a different type; neither revision accepts all of the other's values.",
     "Senders and receivers: convert to the new type.",
     "type-changed"),
    ("type-widened", "value", C, B,
     "The value accepts more types than before (new union options, "
     "any JSON, integer to number): old receivers reject the new ones.",
     "Receivers: handle the new types.",
     "type-narrowed"),
    ("type-narrowed", "value", B, C,
     "The value accepts fewer types than before: old senders that use a dropped one are rejected.",
     "Senders: stop sending the dropped types.",
     "type-widened"),
    ("constraint-tightened", "value", B, C,
     "A range, length, item count, pattern or format became "
     "stricter: some values old senders may send are now invalid.",
     "Senders: keep values inside the new limits.",
     "constraint-loosened"),
    ("constraint-loosened", "value", C, W,
     "A range, length, item count, pattern or format became "
     "looser: receivers that validate it may reject new values.",
     "Receivers that validate the constraint: relax it.",
     "constraint-tightened"),
    ("constraint-changed", "value", B, W,
     "A pattern or format was replaced by one that "
     "neither contains nor is contained in the old one.",
     "Senders: produce values of the new form. Validating receivers: check the new form.",
     "constraint-changed"),
    ("default-changed", "value", W, W,
     "An optional field's default changed: an absent "
     "field now means something else to one of the sides.",
     "Senders that rely on the default: send the value "
     "explicitly. Receivers: check what absence means now.",
     "default-changed"),
    ("default-added", "value", C, P,
     "An optional field gained a default: the wire is "
     "unchanged, the generated attribute's default changes.",
     "Receivers: code that tests the attribute for None now sees the default.",
     "default-removed"),
    ("default-removed", "value", C, P,
     "An optional field lost its default: the wire is "
     "unchanged, the generated attribute's default changes.",
     "Receivers: the attribute is None (or unset) when the field is absent.",
     "default-added"),
    ("enum-value-added", "enum", C, W,
     "A closed enum gained a value: strict receivers of the old schema reject it.",
     "Receivers: handle the value, or treat unknown values leniently.",
     "enum-value-removed"),
    ("enum-value-removed", "enum", B, P,
     "A closed enum lost a value: old senders that use "
     "it are rejected; the generated member disappears.",
     "Senders: stop sending it. Receivers: drop the code that handles it.",
     "enum-value-added"),
    ("open-enum-value-added", "enum", C, C,
     "An open enum gained a known value: receivers already had to keep unknown values.",
     "Receivers: handle it as a known value if you care.",
     "open-enum-value-removed"),
    ("open-enum-value-removed", "enum", W, P,
     "An open enum lost a known value: it is still accepted, but now as an unknown one.",
     "Senders: check whether the value still means anything to receivers.",
     "open-enum-value-added"),
    ("enum-opened", "enum", C, W,
     "A closed enum now accepts any other value: strict "
     "receivers of the old schema reject the new ones.",
     "Receivers: keep unknown values instead of failing.",
     "enum-closed"),
    ("enum-closed", "enum", B, C,
     "An open enum now accepts only its listed values: old senders of other values are rejected.",
     "Senders: send only the listed values.",
     "enum-opened"),
    ("enum-member-renamed", "enum", P, P,
     "The same value has a new Python member name.",
     "Rename uses of the member.",
     "enum-member-renamed"),
    ("union-variant-added", "union", C, W,
     "A closed union gained a variant: strict receivers of the old schema reject it.",
     "Receivers: handle the variant, or treat unknown variants leniently.",
     "union-variant-removed"),
    ("union-variant-removed", "union", B, P,
     "A closed union lost a variant: old senders that use "
     "it are rejected; its generated class may disappear.",
     "Senders: stop sending it. Receivers: drop the code that handles it.",
     "union-variant-added"),
    ("open-union-variant-added", "union", C, C,
     "An open union gained a known variant: receivers already had to keep unknown variants.",
     "Receivers: handle it as a known variant if you care.",
     "open-union-variant-removed"),
    ("open-union-variant-removed", "union", W, P,
     "An open union lost a known variant: it is still accepted, but now as an unknown one.",
     "Senders: check whether the variant still means anything to receivers.",
     "open-union-variant-added"),
    ("union-opened", "union", C, W,
     "A closed union now accepts unknown variants: strict receivers of the old schema reject them.",
     "Receivers: keep unknown variants instead of failing.",
     "union-closed"),
    ("union-closed", "union", B, C,
     "An open union no longer accepts unknown variants: "
     "old senders of other variants are rejected.",
     "Senders: send only the listed variants.",
     "union-opened"),
    ("union-tag-changed", "union", B, B,
     "The union's variants are told apart by a different property.",
     "Senders and receivers: use the new tag property.",
     "union-tag-changed"),
    ("leniency-added", "leniency", C, W,
     "Receivers are now asked to be lenient (x-deserialize-default-on-error / "
     "-skip-invalid-items / -default-on-null): a strict old receiver fails where the new schema "
     "says to carry on.",
     "Receivers: replace a bad value (or a null) by its default, or skip "
     "a bad list item, instead of rejecting the message.",
     "leniency-removed"),
    ("leniency-removed", "leniency", W, C,
     "Receivers are no longer asked to be lenient: a sender that "
     "relied on it to get away with bad values is now rejected.",
     "Senders: make sure the value is always valid.",
     "leniency-added"),
    ("became-unstable", "stability", W, W,
     "Marked **UNSTABLE**: it may change or go away without notice.",
     "Keep its use behind a capability check or a feature flag.",
     "became-stable"),
    ("became-stable", "stability", C, C,
     "No longer marked **UNSTABLE**: it is now part of the stable protocol.",
     "Nothing to do; you may drop feature flags around it.",
     "became-unstable"),
]
# fmt: on

RULES: dict[str, Rule] = {
    row[0]: Rule(
        id=row[0],
        category=row[1],
        sender=row[2],
        receiver=row[3],
        explanation=row[4],
        hint=row[5],
        mirror=row[6],
    )
    for row in _TABLE
}
ORDER = {
    rule_id: i for i, rule_id in enumerate(RULES)
}  # the order changes of one subject are listed in
