"""Shared test helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

# Dense retrieval is off by default; a config saying `enabled: auto` turns it on when its
# extra is installed, and embedding costs seconds per query on a CPU, so tests about
# something else run without it even then (child processes inherit this). Dense tests
# force it with --dense, `enabled: true`, or by unsetting this.
os.environ["CODEGOLD_DENSE"] = "off"


@pytest.fixture
def spec_dir() -> Path:
    return FIXTURES / "spec"
