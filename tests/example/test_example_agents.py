"""The bundled agent trajectories: three formats imported against the v2 index give the
story they tell (A passes, B reads the forbidden shim first, C reads the definition past
the cutoff), and the script that writes them is deterministic and true to the tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.evaluate import evaluate_files
from codegold.index import build_index
from codegold.model import iter_attempts

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
AGENTS = EXAMPLE / "agents"
V2 = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"
RUNS = (("agent-a", "swe-agent"), ("agent-b", "claude-code"), ("agent-c", "mini-swe-agent"))


@pytest.fixture(scope="module")
def v2_index(example_repo: tuple[Path, dict[str, str]],
             tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, _ = example_repo
    target = tmp_path_factory.mktemp("agents") / "v2"
    build_index(str(repo), V2, target)
    return target


def _import(tmp_path: Path, index: Path | None, *extra: str) -> Path:
    combined = tmp_path / "attempts.jsonl"
    with combined.open("wb") as out:
        for folder, name in RUNS:
            target = tmp_path / f"{folder}.jsonl"
            args = ["import", "trajectories", str(AGENTS / folder), "--format", name,
                    "--cases", str(AGENTS / "cases.yaml"), "-o", str(target), "-q", *extra]
            if index is not None:
                args += ["--index", str(index)]
            got = CliRunner().invoke(cli, args)
            assert got.exit_code == 0, got.output
            out.write(target.read_bytes())
    return combined


def test_import_then_eval_gives_pass_and_fail(v2_index: Path, tmp_path: Path) -> None:
    attempts = _import(tmp_path, v2_index, "--resolve")
    result = evaluate_files(str(AGENTS / "cases.yaml"), str(attempts))
    by_id = {c.case_id: c for c in result.cases}
    assert by_id["agent-a-finds-definition"].status == "pass"
    assert by_id["agent-a-finds-definition"].first_relevant_rank == 2
    shim = by_id["agent-b-legacy-first"]
    assert shim.status == "fail" and shim.forbidden_chunk_ids[:2] == [
        "traj:src/legacy/session.ts@0", "traj:src/legacy/session.ts#L1-31@1"]
    late = by_id["agent-c-budget"]
    assert late.status == "fail" and late.first_relevant_rank is None
    assert late.first_relevant_rank_any_depth == 8
    # 120 lines: five files whole and the sixth cut after 13 of its 25 lines
    assert late.cutoff == 6 and late.budget is not None and late.budget.used == 120
    for attempt in iter_attempts(str(attempts)):
        assert attempt.manifest is not None and attempt.manifest.revision == V2
        assert all(c.resolved is not None for c in attempt.ranked)


def test_without_an_index_the_attempts_are_invalid(tmp_path: Path) -> None:
    result = evaluate_files(str(AGENTS / "cases.yaml"), str(_import(tmp_path, None)))
    assert {c.status for c in result.cases} == {"invalid"}
    assert all(c.invalid_reason is not None
               and c.invalid_reason.startswith("attempt has no index manifest")
               and "import trajectories --index" in c.invalid_reason for c in result.cases)


def test_eval_resolve_judges_like_import_resolve(v2_index: Path, tmp_path: Path) -> None:
    attempts = _import(tmp_path, v2_index)
    got = CliRunner().invoke(cli, ["eval", str(AGENTS / "cases.yaml"), str(attempts),
                                   "--resolve", str(v2_index), "--json"])
    assert got.exit_code == 0, got.output
    assert '"status":"pass"' in got.output.replace(" ", "")


def test_the_script_is_deterministic(tmp_path: Path) -> None:
    copy = tmp_path / "acme-shop"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, str(copy / "agents" / "make_trajectories.py")], check=True)
    for path in sorted(AGENTS.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            twin = copy / "agents" / path.relative_to(AGENTS)
            assert twin.read_bytes() == path.read_bytes(), path
