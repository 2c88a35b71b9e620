"""The documented Node example retriever, run for real through command: and scored."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_retrievers import REVISION

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.model import iter_attempts

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "retrievers" / "grep_retriever.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="the example retriever is a Node script")
def test_node_example_retriever_end_to_end(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "src").mkdir(parents=True)
    (checkout / "src" / "billing.py").write_text("def invoice_total(items):\n    return sum(items)\n")
    (checkout / "src" / "login.py").write_text("def login(user, password):\n    check(password)\n")
    (checkout / "README.md").write_text("An example shop.\n")
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{repository: acme/shop, revision: {REVISION}, cutoff: 1}}
cases:
  - id: total
    query: how is the invoice total computed
    accepted: [{{file: src/billing.py}}]
  - id: login
    query: where does login check the password
    accepted: [{{file: src/login.py}}]
""")
    out = tmp_path / "attempts.jsonl"
    result = CliRunner().invoke(cli, [
        "run", str(cases), "-o", str(out), "--quiet", "--timeout", "30",
        "--retriever", f"command:node {EXAMPLE} {checkout}"])
    assert result.exit_code == 0, result.output
    attempts = list(iter_attempts(str(out)))
    assert all(a.error is None for a in attempts), [a.error for a in attempts]
    assert all(a.manifest is not None and a.manifest.revision == REVISION for a in attempts)
    statuses = {c.case_id: c.status for c in evaluate_files(str(cases), str(out)).cases}
    assert statuses == {"total": "pass", "login": "pass"}
