"""acpgen: msgspec packages from ACP JSON Schemas, and the commands around them (diff, bump, check).

The pipeline, one module a step::

    load (schema.py) -> IR (ir.py, built by build.py) -> render (render.py, templates/)
    -> format (fmt.py) -> write (write.py)

`cli.py` wires the steps into the `acpgen` command.
"""

__version__ = "0.1.0"
