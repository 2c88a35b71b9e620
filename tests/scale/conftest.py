"""Shared fixture of the executor suites: the acme-shop example repository (two
revisions, its cases pin both), built once per session."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from scalekit import EXAMPLE


@pytest.fixture(scope="session")
def example_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    spec = importlib.util.spec_from_file_location("scale_build_example",
                                                  EXAMPLE / "build_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    out = tmp_path_factory.mktemp("acme") / "repo"
    shas: dict[str, str] = module.build(out)
    return out, shas

