"""`python -m acpgen`: the `acpgen` command (cli.py)."""

from .cli import main

raise SystemExit(main())
