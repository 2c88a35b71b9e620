"""Every hostile test runs codegold in child processes: the suite is marked ``slow`` so
``make test`` stays quick; ``make test-all`` (what CI runs) includes it."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.slow)
