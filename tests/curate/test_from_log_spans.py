"""``cases from-log`` keeps a cited line span: with an index it becomes the symbols the
span holds (the rule span resolution applies), without one it is named in the rationale,
never silently widened to "any chunk of the file"."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.model import load_cases
from gitrepo import Repo

CODE = ("import os\n\n\nclass Billing:\n    \"\"\"Invoices.\"\"\"\n\n"
        "    def total(self, items):\n" + "".join(f"        x{i} = {i}\n" for i in range(12))
        + "        return sum(items)\n\n"
        "    def refund(self, invoice):\n        return -invoice\n\n\n"
        "def helper():\n    return 1\n")


def _draft(tmp_path: Path, cited: object, *extra: str) -> tuple[list[dict[str, str]], str]:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"src/billing.py": CODE})
    build_index(str(repo.path), sha, tmp_path / "idx" / sha)
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"query": "how is a total computed", "revision": sha,
                               "cited": [cited]}) + "\n")
    out = tmp_path / "drafts.yaml"
    done = CliRunner().invoke(cli, ["cases", "from-log", str(log), "-o", str(out), *extra])
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    case = load_cases(str(out)).cases[0]
    targets = [{"file": t.file, "symbol": t.symbol or ""} for t in case.groups[0].any_of]
    return targets, text


def test_a_cited_span_becomes_the_symbols_it_holds(tmp_path: Path) -> None:
    start = CODE.splitlines().index("        x2 = 2") + 1
    targets, text = _draft(tmp_path, {"file": "src/billing.py", "start_line": start,
                                      "end_line": start + 6},
                           "--index", str(tmp_path / "idx"))
    assert targets == [{"file": "src/billing.py", "symbol": "Billing.total"}]
    assert f"src/billing.py:{start}-{start + 6}" in text


def test_a_path_with_lines_is_read_and_kept_without_an_index(tmp_path: Path) -> None:
    targets, text = _draft(tmp_path, "src/billing.py:7-20")
    assert targets == [{"file": "src/billing.py", "symbol": ""}]
    assert "src/billing.py:7-20" in text and "name its symbol" in text
