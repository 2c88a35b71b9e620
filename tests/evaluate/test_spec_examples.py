"""The spec's worked examples, scored exactly as DESIGN.md says."""

from __future__ import annotations

from pathlib import Path

from codegold.evaluate import evaluate_files
from codegold.model import CaseResult


def _results(spec_dir: Path) -> dict[str, CaseResult]:
    result = evaluate_files(str(spec_dir / "cases.yaml"), str(spec_dir / "attempts.jsonl"))
    return result.by_id()


def test_deprecated_create_session_is_caught(spec_dir: Path) -> None:
    r = _results(spec_dir)["session-expiry"]
    assert r.status == "fail"
    assert r.first_relevant_rank == 3
    assert r.reciprocal_rank == 1 / 3
    assert r.hit is True
    assert r.forbidden_chunk_ids == ["c-legacy"]
    assert r.missing_groups == []


def test_overloaded_parse_in_the_wrong_module_is_not_accepted(spec_dir: Path) -> None:
    r = _results(spec_dir)["webhook-parse"]
    assert r.status == "fail"
    assert r.first_relevant_rank is None
    assert r.missing_groups == ["accepted"]


def test_retry_policy_definition_past_the_cutoff(spec_dir: Path) -> None:
    r = _results(spec_dir)["retry-policy"]
    assert r.status == "fail"
    assert r.first_relevant_rank is None
    assert r.reciprocal_rank == 0.0
    # Cutoff 10 would have passed: the definition sits at rank 6.
    assert r.first_relevant_rank_any_depth == 6


def test_two_group_recall_is_half(spec_dir: Path) -> None:
    r = _results(spec_dir)["retry-config"]
    assert r.group_recall == 0.5
    assert r.missing_groups == ["configuration"]
    assert r.status == "fail"
