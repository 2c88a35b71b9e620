"""examples/retrievers/windows_bm25.py, the 40-line-window BM25 baseline of the peers
benchmark, through command+jsonl: and scored with span resolution."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner
from recipe_fakes import BILLING, LOGIN

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.index import build_index
from gitrepo import Repo

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "retrievers" / "windows_bm25.py"


def test_windows_are_ranked_by_bm25_and_resolved(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    filler = "".join(f"# line {n}\n" for n in range(45))
    sha = repo.commit({"src/billing.py": filler + BILLING, "src/login.py": LOGIN})
    build_index(str(repo.path), sha, tmp_path / "idx" / sha)
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"""format: 1
defaults: {{repository: acme/shop, revision: {sha}, cutoff: 2}}
cases:
  - id: refund
    query: refund invoice
    accepted: [{{file: src/billing.py, symbol: refund}}]
""")
    out = tmp_path / "a.jsonl"
    done = CliRunner().invoke(cli, [
        "run", str(cases), "--index", str(tmp_path / "idx"), "-o", str(out), "--quiet",
        "--resolve", "--retriever", f"command+jsonl:{sys.executable} {SCRIPT} --serve {repo.path}"])
    assert done.exit_code == 0, done.output
    ranked = json.loads(out.read_text())["ranked"]
    assert (ranked[0]["file"], ranked[0]["start_line"], ranked[0]["end_line"]) == \
        ("src/billing.py", 41, 51)
    assert [c.status for c in evaluate_files(str(cases), str(out)).cases] == ["pass"]
