"""acpgen: generate fast msgspec packages from the Agent Client Protocol JSON Schema.

The pipeline, one module a step::

    load (schema.py) -> IR (ir.py, built by build.py) -> render (render.py, templates/)
    -> format (fmt.py) -> write (write.py)

`cli.py` wires the steps into the `acpgen` command.
"""

__version__ = "0.1.0"
