"""The acme-shop example repository with an index per revision, built once per session."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from codegold.index import build_index

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
CASES = EXAMPLE / "cases.yaml"


@pytest.fixture(scope="session")
def acme_indexes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = importlib.util.spec_from_file_location("tune_acme_build", EXAMPLE / "build_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tune_acme_build"] = module
    spec.loader.exec_module(module)
    base = tmp_path_factory.mktemp("tune-acme")
    shas: dict[str, str] = module.build(base / "repo")
    root = base / "indexes"
    root.mkdir()
    for sha in sorted(set(shas.values())):
        build_index(str(base / "repo"), sha, root / sha)
    return root
