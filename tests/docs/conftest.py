"""A small package generated from tests/docs/tiny_schema.json, for claims the default schemas do not
exercise (`additionalProperties: false`, an object that keeps the keys it does not declare, ...)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.agreement import import_generated, write_generated

TINY = Path(__file__).with_name("tiny_schema.json")


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    root = tmp_path_factory.mktemp("docs-tiny")
    return import_generated(root, write_generated(json.loads(TINY.read_text("utf-8")), root))
