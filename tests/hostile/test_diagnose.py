"""Hostile input to `codegold diagnose`: what an untrusted retriever or label author sends.

A retriever controls every field of its chunks (spans, paths, symbols) and the rewritten
query; a label author controls targets, globs and forbidden lists. Diagnosis must finish
with exit 0 and a cause for every failure, or stop with one clear error line, never a
traceback, in bounded time and memory, and never write outside its output folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from hostilekit import (
    assert_clean_error,
    assert_no_traceback,
    assert_sentinels,
    plant_sentinels,
    run_cli,
)
from plantedrepo import Planted, build, line_of


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return build(tmp_path_factory.mktemp("hostile-planted"))


def _write(tmp: Path, planted: Planted, cases: list[dict[str, Any]], attempts: list[dict[str, Any]]) -> Path:
    (tmp / "cases.yaml").write_text(yaml.safe_dump({
        "format": 1, "defaults": {"repository": "acme/shop", "revision": planted.revision, "cutoff": 5},
        "cases": cases}), encoding="utf-8")
    with (tmp / "attempts.jsonl").open("w", encoding="utf-8") as out:
        for a in attempts:
            for key in ("ranked", "candidates"):  # chunks carry the case revision, so checks run
                a[key] = [{**c, "revision": planted.revision} for c in a.get(key) or []]
            out.write(json.dumps({"manifest": planted.manifest, **a}) + "\n")
    proc = run_cli("eval", tmp / "cases.yaml", tmp / "attempts.jsonl", "-o", tmp / "results.json", "-q")
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return tmp / "results.json"


def _chunk(cid: str, file: str, start: int | None, end: int | None, **extra: Any) -> dict[str, Any]:
    return {"chunk_id": cid, "file": file, "start_line": start, "end_line": end, **extra}


def test_hostile_spans_symbols_and_queries_get_a_cause_each(planted: Planted, tmp_path: Path) -> None:
    big = "src/shop/big.py"
    start = line_of("src/shop/big.py", "def process_order")
    hostile_ranked = [
        _chunk("reversed", big, 30, 4),
        _chunk("negative", big, -50, -1),
        _chunk("huge", big, 1, 10**15, symbol="x" * 10_000),
        _chunk("traversal", "../../../etc/passwd", 1, 2, symbol="root"),
        _chunk("nolines", big, None, None, symbol="process_order\n`|<script>"),
        _chunk("zero", big, 0, 0, role="definition"),
        *[_chunk(f"w{i}", big, start + i, start + i) for i in range(40)],
    ]
    cases = [
        {"id": "spans", "query": "process_order", "accepted": [{"file": big, "symbol": "process_order"}]},
        {"id": "../../escape", "query": "`" * 50_001 + "x_y" * 20_000,
         "accepted": [{"file": "src/**/*.py", "symbol": "a(b[c*+?"}]},
        {"id": "glob-forbidden", "query": "e.g. i.e. " * 20_000,
         "accepted": [{"file": "src/legacy/**", "roles": ["definition"]}], "forbidden": ["src/legacy/"]},
        {"id": "directory-target", "query": "q", "accepted": [{"file": "src/shop", "symbol": "App"}]},
        # names nothing, so diagnosis looks for the closest names: long labels must stay cheap
        {"id": "long-label", "query": "q", "accepted": [
            {"file": "src/shop/big.py", "symbol": "Q" * 50_000, "roles": ["definition"]},
            {"file": "src/shop/" + "d/" * 5_000 + "gone.py"}]},
    ]
    attempts = [
        {"attempt_id": "a1", "case_id": "spans", "ranked": hostile_ranked, "candidates": hostile_ranked,
         "query": {"raw": "process_order", "rewritten": "-" * 100_000}},
        {"attempt_id": "a2", "case_id": "../../escape", "ranked": hostile_ranked[:3],
         "query": {"raw": "`" * 50_001, "rewritten": "`" * 3}},
        {"attempt_id": "a3", "case_id": "glob-forbidden", "ranked": []},
        {"attempt_id": "a4", "case_id": "directory-target", "ranked": hostile_ranked[3:5]},
        {"attempt_id": "a5", "case_id": "long-label", "ranked": hostile_ranked},
    ]
    results = _write(tmp_path, planted, cases, attempts)
    planted_files = plant_sentinels(tmp_path / "work", ("keep-me.txt", "diag-sibling.txt"))
    out = tmp_path / "work" / "diag"
    for extra in ([], ["--repo", str(planted.repo)]):
        proc = run_cli("diagnose", results, "--index", planted.index, *extra, "-o", out, timeout=60)
        assert_no_traceback(proc)
        assert proc.returncode == 0, proc.stderr[-2000:]
        found = json.loads((out / "diagnoses.json").read_text(encoding="utf-8"))
        causes = {d["case_id"]: d["cause"] for d in found["diagnoses"]}
        assert set(causes) == {"spans", "../../escape", "glob-forbidden", "directory-target", "long-label"}
        assert causes["glob-forbidden"] == "stale_label"  # the case forbids its own target
        assert causes["long-label"] == "stale_label"
        assert "invalid_run" not in causes.values()
        assert all((out / d["bundle_json"]).resolve().is_relative_to(out.resolve())
                   for d in found["diagnoses"])
    assert_sentinels(planted_files)
    assert not (tmp_path / "escape").exists()


def test_no_index_only_a_repository_that_is_not_one(planted: Planted, tmp_path: Path) -> None:
    cases = [{"id": "c", "query": "q", "accepted": [{"file": "src/shop/calc.py", "symbol": "total"}]}]
    results = _write(tmp_path, planted, cases, [{"attempt_id": "a", "case_id": "c", "ranked": []}])
    not_a_repo = plant_sentinels(tmp_path / "plain", ("keep-me.txt",))
    proc = run_cli("diagnose", results, "--repo", tmp_path / "plain", timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "retrieval_miss" in proc.stdout
    assert_sentinels(not_a_repo)


@pytest.mark.parametrize("content", ['{"format": 1, "cases": [', '{"format": 1}', "\x00\xff"])
def test_results_that_are_not_results_give_one_error_line(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "results.json"
    bad.write_text(content, encoding="utf-8", errors="surrogateescape")
    assert_clean_error(run_cli("diagnose", bad, timeout=60))
