"""The recorded run replays three classic retrieval failures with the outcomes it describes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegold.evaluate import evaluate_files
from codegold.model import CaseResult, iter_attempts, load_cases

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"

RECORDED = EXAMPLE / "recorded"


@pytest.fixture(scope="module")
def results() -> dict[str, CaseResult]:
    run = evaluate_files(str(RECORDED / "cases.yaml"), str(RECORDED / "attempts.jsonl"))
    return {case.case_id: case for case in run.cases}


def test_deprecated_shim_outranks_the_current_code(results: dict[str, CaseResult]) -> None:
    case = results["session-expiry"]
    assert case.status == "fail"
    assert case.first_relevant_rank == 3
    assert case.missing_groups == []
    assert any("src/legacy/session.ts" in chunk_id for chunk_id in case.forbidden_chunk_ids)


def test_overloaded_parse_needs_path_context(results: dict[str, CaseResult]) -> None:
    blind = results["webhook-parse-signature"]
    assert blind.status == "fail" and not blind.hit and blind.missing_groups == ["parser"]
    with_context = results["webhook-parse-signature-open-file"]
    assert with_context.status == "pass" and with_context.first_relevant_rank == 1


def test_usages_crowd_out_the_definition(results: dict[str, CaseResult]) -> None:
    definition = results["retry-policy-definition"]
    assert definition.status == "fail" and definition.first_relevant_rank is None
    assert definition.group_recall == 0.0
    assert results["retry-policy-examples"].status == "pass"
    config = results["retry-policy-configuration"]
    assert config.group_recall == 0.5 and config.missing_groups == ["configuration"]


def test_recorded_cases_match_the_main_case_file() -> None:
    main = {case.id: case for case in load_cases(str(EXAMPLE / "cases.yaml")).cases}
    for case in load_cases(str(RECORDED / "cases.yaml")).cases:
        mine = main[case.id]
        assert (case.query, case.revision, case.groups, case.forbidden, case.cutoff) == (
            mine.query, mine.revision, mine.groups, mine.forbidden, mine.cutoff)
    for attempt in iter_attempts(str(RECORDED / "attempts.jsonl")):
        assert attempt.manifest is not None and attempt.manifest.complete
        assert attempt.manifest.revision == main[attempt.case_id].revision


def test_regenerating_the_recording_gives_identical_bytes(tmp_path: Path) -> None:
    copy = tmp_path / "acme-shop"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, str(copy / "recorded" / "make_recorded.py")], check=True,
                   capture_output=True)
    for name in ("cases.yaml", "attempts.jsonl"):
        assert (copy / "recorded" / name).read_bytes() == (RECORDED / name).read_bytes()
