"""Index freshness: an attempt that queried before its index was built is ``invalid``
(``index_not_ready``); an index of another revision is ``index_stale``."""

from __future__ import annotations

from pathlib import Path

from goldkit import SHA_A, SHA_B, attempt, case, chunk, manifest, run_eval

GOOD = chunk("good", "src/auth/session.ts", "createSession", "definition")
CASE = case("c1", [{"file": "src/auth/session.ts", "symbol": "createSession"}], revision=SHA_A)


def _result(tmp_path: Path, **extra: object) -> tuple[str, str | None]:
    result = run_eval(tmp_path, [CASE], [attempt("a1", "c1", [GOOD], **extra)]).cases[0]
    return result.status, result.invalid_reason


def test_queried_before_the_build_is_not_ready(tmp_path: Path) -> None:
    status, reason = _result(tmp_path, queried_at="2026-01-01T09:59:59.500Z",
                             manifest=manifest(created_at="2026-01-01T10:00:00Z"))
    assert status == "invalid"
    assert reason is not None and reason.startswith("index_not_ready: ")
    assert "2026-01-01T10:00:00Z" in reason


def test_offsets_and_naive_times_are_compared_as_utc(tmp_path: Path) -> None:
    status, reason = _result(tmp_path, queried_at="2026-01-01T11:30:00+02:00",
                             manifest=manifest(created_at="2026-01-01T10:00:00"))
    assert status == "invalid" and reason is not None and reason.startswith("index_not_ready")


def test_queried_after_or_in_the_same_second_passes(tmp_path: Path) -> None:
    for queried in ("2026-01-01T10:00:00.900Z", "2026-01-01T10:00:05Z"):
        status, reason = _result(tmp_path, queried_at=queried,
                                 manifest=manifest(created_at="2026-01-01T10:00:00Z"))
        assert (status, reason) == ("pass", None)


def test_missing_or_unreadable_times_do_not_judge(tmp_path: Path) -> None:
    for extra in ({"queried_at": "yesterday"}, {},
                  {"manifest": manifest(created_at="not a time"),
                   "queried_at": "2026-01-01T10:00:00Z"}):
        assert _result(tmp_path, **extra) == ("pass", None)


def test_index_of_another_revision_is_stale(tmp_path: Path) -> None:
    status, reason = _result(tmp_path, manifest=manifest(revision=SHA_B))
    assert status == "invalid"
    assert reason is not None and reason.startswith("index_stale: ") and SHA_B in reason


def test_chunk_level_mismatch_is_not_index_stale(tmp_path: Path) -> None:
    old = chunk("old", "src/auth/session.ts", "createSession", "definition", revision=SHA_B)
    result = run_eval(tmp_path, [CASE], [attempt("a1", "c1", [old])]).cases[0]
    assert result.status == "fail" and result.revision_mismatches == ["old"]
    assert result.invalid_reason is None
