# One entry point per job. Every target bootstraps .venv itself on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: generate test check diff bump bench conformance mutation typecheck lint clean peers proptest agents

NODE_STAMP := tests/interop/node_modules/.installed-stamp

$(NODE_STAMP): tests/interop/package.json tests/interop/package-lock.json
	@command -v npm >/dev/null || { echo "make: the interop tests need Node.js and npm (the official TypeScript SDK is a test peer)"; exit 2; }
	cd tests/interop && npm ci --silent --no-audit --no-fund
	touch $(NODE_STAMP)

# Real agents `acpgen check` is run on (tests/check/agents/package.json + package-lock.json, about
# 1.1 GiB: codex-acp ships the codex binary, claude-agent-acp the claude one; and qwen-code). No
# install script runs: none of them needs one to start. claude-agent-acp and qwen-code declare
# Node >= 22 and start on 20.
AGENTS_STAMP := tests/check/agents/node_modules/.installed-stamp

# `npm install --no-save` installs what the lock file says and leaves it as it is: `npm ci` refuses
# every lock npm writes for qwen-code 0.24.4, whose @teddyzhu/clipboard 0.0.5 names five optional
# platform packages the registry does not have (404), "Missing ... from lock file".
$(AGENTS_STAMP): tests/check/agents/package.json tests/check/agents/package-lock.json
	@command -v npm >/dev/null || { echo "make: make agents needs Node.js and npm (the agents are npm packages)"; exit 2; }
	cd tests/check/agents && npm install --no-save --silent --no-audit --no-fund --ignore-scripts
	touch $(AGENTS_STAMP)

# fast-agent-acp (PyPI fast-agent-mcp, tests/check/agents/requirements-fast-agent.txt) needs Python
# >= 3.12: the first of python3.13, python3.12 or a pyenv 3.12+ that runs, unless FAST_AGENT_PYTHON
# is given. About 2.5 minutes to install, once.
FAST_AGENT := $(VENV)/fast-agent
FAST_AGENT_STAMP := $(FAST_AGENT)/.installed-stamp
FAST_AGENT_PYTHON ?= $(shell for p in python3.13 python3.12 $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.1[2-5]*/bin/python3 2>/dev/null); do $$p -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null && { command -v $$p; break; }; done)

$(FAST_AGENT_STAMP): tests/check/agents/requirements-fast-agent.txt
	@test -n "$(FAST_AGENT_PYTHON)" || { echo "make: fast-agent-acp needs Python >= 3.12: give FAST_AGENT_PYTHON=/path/to/python3.12"; exit 2; }
	rm -rf $(FAST_AGENT)
	$(FAST_AGENT_PYTHON) -m venv $(FAST_AGENT)
	$(FAST_AGENT)/bin/python -m pip install --quiet -r tests/check/agents/requirements-fast-agent.txt
	touch $(FAST_AGENT_STAMP)

# The official Python SDK 1.0.0rc3 (tests/interop/requirements-rc3.txt), an interop peer beside the
# test extra's 0.12.1: both are the import package `acp`, so it lives in a venv of its own.
RC3 := $(VENV)/acp-rc3
RC3_STAMP := $(RC3)/.installed-stamp

$(RC3_STAMP): tests/interop/requirements-rc3.txt
	rm -rf $(RC3)
	$(PYTHON) -m venv $(RC3)
	$(RC3)/bin/python -m pip install --quiet -r tests/interop/requirements-rc3.txt
	touch $(RC3_STAMP)

# The editable install is a tree of links (setuptools' strict mode) that type checkers can follow;
# it is rebuilt when a package folder gains or loses a file (its mtime changes).
PACKAGE_DIRS := $(shell find codegen templates runtime generated/acp_schema generated/acp_schema_v2 -type d -not -name __pycache__)

$(STAMP): pyproject.toml $(PACKAGE_DIRS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[codegen,test]' --config-settings editable_mode=strict
	touch $(STAMP)

# The two default packages: acp_schema (ACP v1) and acp_schema_v2 (ACP v2), see schema/README.md.
generate: $(STAMP)
	$(VENV)/bin/acpgen generate schema/schema.json --out generated --package acp_schema
	$(VENV)/bin/acpgen generate schema/v2/schema.json --out generated --package acp_schema_v2

check: $(STAMP)
	$(VENV)/bin/acpgen generate schema/schema.json --out generated --package acp_schema --check
	$(VENV)/bin/acpgen generate schema/v2/schema.json --out generated --package acp_schema_v2 --check

bench: $(STAMP) $(RC3_STAMP)
	$(PY) -m pip install --quiet -e '.[codegen,test,bench]' --config-settings editable_mode=strict
	$(PY) -m bench

# HAProxy (Debian package), the load balancer of tests/remote/test_scale_out.py; apt-get needs root.
peers:
	@command -v haproxy >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; } || { echo "make peers: could not install haproxy (apt-get install haproxy, as root)"; exit 1; }

# Two workers (pytest-xdist), each taking whole files; the 20 slowest tests are listed at the end,
# to find what to make lean before adding more (the budget: ten minutes on two loaded cores).
test: $(STAMP) $(NODE_STAMP) $(RC3_STAMP) peers
	$(PY) -m pytest -q -n 2 --dist loadfile --durations=20

# `acpgen check` on the real agents above, each with HOME in a temporary folder and no key in its
# environment (tests/check/agents/check_real_agents.py; about three minutes, so not in
# `make test`: .ci/run runs it after).
agents: $(STAMP) $(AGENTS_STAMP) $(FAST_AGENT_STAMP)
	$(PY) -m pytest -q tests/check/agents/check_real_agents.py

# mypy --strict and pyright over the runtime, the examples, the generator and the generated package
# (configured in pyproject.toml). codegen/static is checked where it runs: as part of the package
# it is copied into (its modules import the package's generated ones).
TYPECHECKED := runtime examples codegen generated/acp_schema generated/acp_schema_v2
typecheck: $(STAMP)
	$(PY) -m mypy $(TYPECHECKED)
	$(PY) -m pyright $(TYPECHECKED)

# What CI checks of the code itself: ruff (rules F, E, W, I, B; lines of at most 100 columns) and
# black over the hand-written code (generated/ is the generator's), then `make typecheck`. All three
# are pinned in the test extra, so on a fresh clone this bootstraps .venv first like every target.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/black --check --quiet .
	$(MAKE) --no-print-directory typecheck

# The long profile of the property test (tests/codegen/test_property.py): 500 drawn schemas, every
# failure class shrunk and reported. PROPTEST_SEED=N draws another sequence.
proptest: $(STAMP)
	PROPTEST_EXAMPLES=$${PROPTEST_EXAMPLES:-500} PROPTEST_ALL_CLASSES=1 $(PY) -m pytest -q tests/codegen/test_property.py

clean:
	rm -rf $(VENV) build tests/.generated

diff: $(STAMP)
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make diff OLD=old-schema.json NEW=new-schema.json [ARGS='--format markdown']"; exit 2; }
	$(VENV)/bin/acpgen diff $(OLD) $(NEW) $(ARGS)

# Move to a new schema revision: diff, refuse what breaks unless accepted, regenerate, log it.
bump: $(STAMP)
	@test -n "$(SCHEMA)" || { echo "usage: make bump SCHEMA=new-schema.json [ACCEPT=accept.toml] [ARGS='--role agent']"; exit 2; }
	$(VENV)/bin/acpgen bump $(SCHEMA) $(if $(ACCEPT),--accept $(ACCEPT)) $(ARGS)

conformance: $(STAMP)
	$(PY) -m pytest -q tests/conformance --conformance-report CONFORMANCE.md

# Planted breaks (tests/mutation/mutants.toml) in a temporary copy of the library: the runtime, the
# generator, the codec modules, the diff and the bump; each must make its targeted tests fail.
# MUTATION_JOBS=N runs N at once (default: the number of CPUs).
mutation: $(STAMP)
	$(PY) -m tests.mutation.check $(if $(MUTATION_JOBS),-j $(MUTATION_JOBS))
