"""`acpgen check`: a conformance checker for ACP agents (and, with `--client`, clients).

It spawns the agent, drives it over stdio with a raw wire driver of its own (wire.py), decodes
every frame the agent sends strictly with the revision's generated package (frames.py), and runs
the checks of catalogue.py (agent_checks.py), each citing a numbered requirement
(requirements_data.py, a copy of tests/conformance/requirements-v*.md). See docs/check.md.
"""
