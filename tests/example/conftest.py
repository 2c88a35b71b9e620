"""Shared fixture: the acme-shop example repository, built once per test session."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def load_script(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def build_example() -> ModuleType:
    return load_script("acme_build_example", EXAMPLE / "build_example.py")


@pytest.fixture(scope="session")
def example_repo(build_example: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    out = tmp_path_factory.mktemp("acme") / "repo"
    shas = build_example.build(out)
    return out, shas
