"""The modules every generated package holds as they are: copied in with the package's header.

They are real modules here, so they are linted and read like the rest of the generator. They import
the package's generated modules (`_schema`, `errors`, `methods`), so they are type-checked where
they run: inside every generated package (`tests/codegen/test_every_revision.py` runs mypy --strict
over the package of each fixture revision).
"""

STATIC_MODULES = ("_support.py", "_lenient.py", "_validate.py", "codec.py")
