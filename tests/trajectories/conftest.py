"""The case file every trajectory fixture is imported against."""

from __future__ import annotations

import pytest

from codegold.model import CaseSet, load_cases
from trajkit import FIXTURES


@pytest.fixture(scope="session")
def cases() -> CaseSet:
    return load_cases(str(FIXTURES / "cases.yaml"))
