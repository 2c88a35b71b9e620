"""Fixtures for index tests; the repository helpers live in tests/gitrepo.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gitrepo import Repo


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], Repo]:
    def factory(name: str = "repo") -> Repo:
        return Repo(tmp_path / name)

    return factory
