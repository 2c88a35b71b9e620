"""Hostile input to the commands added last: ``link``, ``flaky``, ``compare`` with N runs,
``index build --revisions/--cases``: exit 2, one ``error:`` line, no traceback, bounded
time and memory, user files intact."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gitrepo import Repo
from hostilekit import (
    HOSTILE_FILES,
    assert_clean_error,
    assert_sentinels,
    control_named,
    plant_sentinels,
    run_cli,
)

RECORDED = Path(__file__).resolve().parents[2] / "examples" / "acme-shop" / "recorded"
TIMEOUT = 90


@pytest.fixture(scope="module")
def run_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded example run: cases, attempts and their results."""
    folder = tmp_path_factory.mktemp("run")
    for name in ("cases.yaml", "attempts.jsonl"):
        shutil.copy(RECORDED / name, folder / name)
    done = run_cli("eval", folder / "cases.yaml", folder / "attempts.jsonl", "-o",
                   folder / "results.json", timeout=TIMEOUT)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    shutil.copy(folder / "results.json", folder / "results2.json")
    Repo(folder / "repo").commit({"a.py": "def f():\n    return 1\n"})
    return folder


HOSTILE: dict[str, Callable[[Path], Path]] = {
    **HOSTILE_FILES,
    "control-chars-in-name": control_named(),
}

COMMANDS: dict[str, list[str]] = {
    "link answers": ["link", "{RUN}/cases.yaml", "{RUN}/attempts.jsonl", "{X}"],
    "link attempts": ["link", "{RUN}/cases.yaml", "{X}", "{RUN}/attempts.jsonl"],
    "flaky attempts": ["flaky", "{RUN}/cases.yaml", "{X}"],
    "flaky cases": ["flaky", "{X}", "{RUN}/attempts.jsonl"],
    "compare third run": ["compare", "{RUN}/results.json", "{RUN}/results2.json", "{X}"],
    "index --revisions": ["index", "build", "{RUN}/repo", "--revisions", "{X}", "-o", "{OUT}/ix"],
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_hostile_input_file_is_one_clean_error(run_files: Path, tmp_path: Path, command: str,
                                                 kind: str) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    out = tmp_path / "out"
    planted = plant_sentinels(out)
    hostile = HOSTILE[kind](inputs)
    args = [a.replace("{X}", str(hostile)).replace("{OUT}", str(out)).replace("{RUN}", str(run_files))
            for a in COMMANDS[command]]
    proc = run_cli(*args, timeout=TIMEOUT)
    assert_clean_error(proc)
    assert sorted(p.name for p in out.iterdir()) == ["keep-me.txt"]
    assert_sentinels(planted)


def test_link_never_writes_over_an_input(run_files: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"format": 1, "answer_id": "a1", "case_id": "x"}\n', encoding="utf-8")
    before = answers.read_bytes()
    for output in (answers, run_files / "attempts.jsonl"):
        kept = output.read_bytes()
        proc = run_cli("link", run_files / "cases.yaml", run_files / "attempts.jsonl", answers,
                       "-o", output, timeout=TIMEOUT)
        assert_clean_error(proc, contains="input")
        assert output.read_bytes() == kept
    assert answers.read_bytes() == before


def test_an_attempts_file_with_no_attempt_is_not_a_clean_bill(run_files: Path,
                                                              tmp_path: Path) -> None:
    """Zero attempts is no evidence of stability: flaky must not say "0 flaky"."""
    empty = tmp_path / "attempts.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert_clean_error(run_cli("flaky", run_files / "cases.yaml", empty, timeout=TIMEOUT),
                       contains="no attempt")


def test_a_revisions_file_with_a_nul_byte_never_reaches_git(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"a.py": "def f():\n    return 1\n"})
    revisions = tmp_path / "revs.txt"
    revisions.write_bytes(sha.encode() + b"\n" + b"HEAD\0--output=/tmp/x\n")
    proc = run_cli("index", "build", repo.path, "--revisions", revisions, "-o", tmp_path / "ix",
                   timeout=TIMEOUT)
    assert_clean_error(proc, contains="NUL")


@pytest.mark.parametrize("flag", ["--revisions", "--cases"])
def test_a_folder_of_indexes_is_never_the_repository_itself(tmp_path: Path, flag: str) -> None:
    repo = Repo(tmp_path / "repo")
    sha = repo.commit({"a.py": "def f():\n    return 1\n"})
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ncases:\n  - id: c\n    query: q\n    revision: '{sha}'\n"
                     "    accepted: [{file: a.py}]\n", encoding="utf-8")
    before = sorted(p.name for p in repo.path.iterdir())
    proc = run_cli("index", "build", repo.path, flag, sha if flag == "--revisions" else cases,
                   "-o", repo.path, timeout=TIMEOUT)
    assert_clean_error(proc, contains="repository itself")
    assert sorted(p.name for p in repo.path.iterdir()) == before
