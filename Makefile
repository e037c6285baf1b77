# One entry point per job. Every target bootstraps .venv itself on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: generate test check diff bench conformance clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[codegen,test]'
	touch $(STAMP)

generate: $(STAMP)
	$(VENV)/bin/acpgen generate schema/schema.json --out generated --package acp_schema

check: $(STAMP)
	$(VENV)/bin/acpgen generate schema/schema.json --out generated --package acp_schema --check

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m bench

test: $(STAMP)
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) tests/.generated

diff: $(STAMP)
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make diff OLD=old-schema.json NEW=new-schema.json [ARGS='--format markdown']"; exit 2; }
	$(VENV)/bin/acpgen diff $(OLD) $(NEW) $(ARGS)

conformance: $(STAMP)
	$(PY) -m pytest -q tests/conformance --conformance-report CONFORMANCE.md
