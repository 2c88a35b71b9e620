"""Nesting past the 100 levels docs/security.md promises, at every JSON entry point: a
retriever's answer (one error attempt, the run goes on), results.json for every command
that reads it, diagnoses.json, a torn last line that ``run --resume`` repairs, and
attempts whose free-form ``filters`` nest deep."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from codegold.model.results import dump_results
from goldkit import attempt, chunk, write_cases
from hostilekit import assert_clean_error, assert_no_traceback, run_cli
from runfactory import make_case, make_result, make_run

REVISION = "a" * 40
DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize("answer", [
    '{"ranked": [], "filters": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}",
    "[" * 100_000 + "]" * 100_000,
    '{"ranked": ' + "[" * 2000 + "]" * 2000 + "}",
])
def test_a_deep_answer_is_one_error_attempt(tmp_path: Path, answer: str) -> None:
    (tmp_path / "answer.json").write_text(answer)
    script = tmp_path / "r.py"
    script.write_text("import sys\nsys.stdin.read()\n"
                      f"sys.stdout.write(open({str(tmp_path / 'answer.json')!r}).read())\n")
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
                     "  - {id: one, query: q, accepted: [{file: a.py}]}\n"
                     "  - {id: two, query: q, accepted: [{file: b.py}]}\n")
    out = tmp_path / "attempts.jsonl"
    proc = run_cli("run", cases, "-o", out, "-q", "--retriever",
                   f"command:{sys.executable} {script}", timeout=120)
    assert_no_traceback(proc)
    assert proc.returncode == 3, proc.stderr[-2000:]
    attempts = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["case_id"] for a in attempts] == ["one", "two"]
    assert all("deeper than 100" in a["error"] or "not a retrieval response" in a["error"]
               for a in attempts), attempts


def _results(tmp_path: Path) -> Path:
    path = tmp_path / "results.json"
    path.write_bytes(b'{"format": 1, "cases": ' + DEEP + b"}")
    return path


@pytest.mark.parametrize("argv", [
    ("report", "{results}", "-o", "{tmp}/r.html"),
    ("gate", "{results}", "--policy", "{tmp}/policy.yaml"),
    ("compare", "{results}", "{good}"),
    ("diagnose", "{results}", "-o", "{tmp}/diag"),
    ("export", "trec", "{results}", "-o", "{tmp}/run.trec"),
])
def test_deep_results_are_one_clean_error(tmp_path: Path, argv: tuple[str, ...]) -> None:
    results = _results(tmp_path)
    good = tmp_path / "good.json"
    good.write_bytes(dump_results(make_run([make_result(make_case("c"))])))
    (tmp_path / "policy.yaml").write_text("format: 1\nzero_tolerance: [forbidden_sources]\n")
    args = [a.format(results=results, tmp=tmp_path, good=good) for a in argv]
    proc = run_cli(*args, timeout=60)
    assert_clean_error(proc, contains=["results.json"])


def test_deep_diagnoses_are_one_clean_error(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(dump_results(make_run([make_result(make_case("c"))])))
    diag = tmp_path / "diag"
    diag.mkdir()
    (diag / "diagnoses.json").write_bytes(b'{"format": 1, "diagnoses": ' + DEEP + b"}")
    proc = run_cli("report", good, "--diagnosis", diag, "-o", tmp_path / "r.html", timeout=60)
    assert_clean_error(proc, contains=["diagnoses.json"])


def test_a_deep_torn_last_line_is_dropped_on_resume(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
                     "  - {id: one, query: q, accepted: [{file: a.py}]}\n")
    out = tmp_path / "attempts.jsonl"
    out.write_bytes(b'{"attempt_id": "x", "case_id": "one", "filters": ' + b"[" * 100_000)
    proc = run_cli("run", cases, "-o", out, "-q", "--resume", "--retriever",
                   "command:echo []", timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert [json.loads(line)["case_id"] for line in out.read_text().splitlines()] == ["one"]


@pytest.mark.parametrize("depth", [200, 960])
def test_attempts_nested_past_the_limit_are_refused(tmp_path: Path, depth: int) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "a.py"}]}])
    line = json.dumps(attempt("a", "c", [chunk("ok", "a.py")]))[:-1]
    line += ', "query": {"raw": "q", "filters": ' + '{"k": ' * depth + "1" + "}" * depth + "}}"
    attempts = tmp_path / "attempts.jsonl"
    attempts.write_text(line + "\n")
    proc = run_cli("eval", cases, attempts, "-o", tmp_path / "r.json", "-q", timeout=60)
    assert_clean_error(proc, contains=["deeper than 100", "attempts.jsonl:1"])
