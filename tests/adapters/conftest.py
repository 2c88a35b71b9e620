from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from fake_retrievers import REVISION  # noqa: E402


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(f"""format: 1
defaults: {{repository: acme/shop, revision: {REVISION}, cutoff: 3}}
cases:
  - id: login
    query: login flow
    accepted: [{{file: src/login.py}}]
  - id: billing
    query: billing totals
    accepted: [{{file: src/billing.py}}]
  - id: search
    query: search ranking
    accepted: [{{file: src/search.py}}]
""")
    return path
