"""Gold lines on targets: read from the index for symbol targets (``eval --gold-lines``),
checked against the index by ``codegold cases check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.labels.goldlines import fill_gold_lines
from codegold.model import load_cases
from gitrepo import Repo

CORE = '''import os


def compute_total(x):
    """Add one."""
    return x + 1


def other(x):
    return x
'''


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("goldlines")
    repo = Repo(root / "repo")
    sha = repo.commit({"pkg/core.py": CORE}, "first")
    build_index(str(repo.path), sha, root / "idx" / sha)
    return sha, root / "idx"


def _cases(tmp_path: Path, sha: str, targets: list[str]) -> Path:
    lines = ["format: 1", f"defaults: {{repository: acme/pkg, revision: '{sha}', cutoff: 5}}",
             "cases:"]
    for number, target in enumerate(targets):
        lines += [f"  - id: c{number}", f"    query: question {number}",
                  f"    accepted: [{target}]"]
    path = tmp_path / "cases.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_symbol_targets_take_their_definition_span_from_the_index(
        world: tuple[str, Path], tmp_path: Path) -> None:
    sha, idx = world
    path = _cases(tmp_path, sha, ["{file: pkg/core.py, symbol: compute_total}",
                                  "{file: pkg/core.py, symbol: other, lines: [1, 1]}",
                                  "{file: 'pkg/*.py', symbol: other}"])
    filled = fill_gold_lines(load_cases(str(path)), idx).cases
    first = filled[0].groups[0].any_of[0]
    assert first.lines == (4, 6) and first.lines_from == "index"
    assert filled[1].groups[0].any_of[0].lines == (1, 1)  # the label's own lines win
    assert filled[2].groups[0].any_of[0].lines is None     # a glob has no one span

    attempts = tmp_path / "attempts.jsonl"
    manifest = {"revision": sha, "index_build_id": "b", "complete": True,
                "chunker": {"name": "x", "version": "1"}}
    attempts.write_text("".join(json.dumps({
        "attempt_id": f"a{n}", "case_id": f"c{n}", "manifest": manifest,
        "ranked": [{"chunk_id": "w", "file": "pkg/core.py", "start_line": 5, "end_line": 9,
                    "revision": sha}]}) + "\n" for n in range(3)), encoding="utf-8")
    out = tmp_path / "results.json"
    res = CliRunner().invoke(cli, ["eval", str(path), str(attempts), "--gold-lines", str(idx),
                                   "-o", str(out), "-q"])
    assert res.exit_code == 0, res.output
    cases = {c["case_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["c0"]["lines"]["recall"] == pytest.approx(2 / 3)  # lines 5-6 of 4-6
    assert "lines" not in cases["c2"]


def test_cases_check_flags_gold_lines_that_cannot_be_right(
        world: tuple[str, Path], tmp_path: Path) -> None:
    sha, idx = world
    path = _cases(tmp_path, sha, ["{file: pkg/core.py, symbol: compute_total, lines: [90, 95]}",
                                  "{file: pkg/core.py, symbol: compute_total, lines: [9, 10]}",
                                  "{file: pkg/core.py, symbol: compute_total, lines: [4, 6]}"])
    res = CliRunner().invoke(cli, ["cases", "check", str(path), "--index", str(idx), "--json"])
    codes = {(f["case_id"], f["code"]) for f in json.loads(res.output)["findings"]}
    assert ("c0", "lines_outside_file") in codes
    assert ("c1", "lines_miss_definition") in codes
    assert not any(case_id == "c2" for case_id, _ in codes)
