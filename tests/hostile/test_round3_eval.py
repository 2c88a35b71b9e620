"""Hostile scoring, third round: line spans of millions of lines must not cost memory in
proportion to their length, and evidence read outside the repository never counts."""

from __future__ import annotations

import json
from pathlib import Path

from goldkit import attempt, case, chunk, write_attempts, write_cases
from hostilekit import assert_no_traceback, run_cli

# Far below what a set of (file, line) pairs for these spans took (3.5-3.8 GB).
MEMORY = 1024**3


def _eval(tmp_path: Path, cases: list[dict[str, object]], attempts: list[dict[str, object]],
          *extra: str) -> dict[str, object]:
    cases_path = write_cases(tmp_path, cases)
    attempts_path = write_attempts(tmp_path, attempts)
    out = tmp_path / "results.json"
    proc = run_cli("eval", cases_path, attempts_path, "-o", out, "-q", *extra, timeout=120,
                   memory=MEMORY)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    result: dict[str, object] = json.loads(out.read_text())
    return result


def _case(result: dict[str, object]) -> dict[str, object]:
    cases = result["cases"]
    assert isinstance(cases, list)
    found: dict[str, object] = cases[0]
    return found


def test_a_chunk_of_ten_million_lines_is_counted_in_bounded_memory(tmp_path: Path) -> None:
    ranked = [chunk("big", "src/a.py", start_line=1, end_line=10_000_000),
              chunk("b", "src/b.py", start_line=5, end_line=60_000_000)]
    # an agent's case that fails: diagnosis reads the same spans
    agent = [chunk("r", "src/c.py", start_line=100, end_line=50_000_000, kind="read", step=0),
             chunk("s", "src/c.py", start_line=1, end_line=90_000_000, kind="search_hit",
                   step=1)]
    result = _eval(tmp_path, [case("c1", [{"file": "src/a.py", "lines": [3, 7]}]),
                              case("c2", [{"file": "src/c.py", "symbol": "f",
                                           "lines": [1, 5]}])],
                   [attempt("x", "c1", ranked), attempt("y", "c2", agent)])
    lines = _case(result)["lines"]
    assert isinstance(lines, dict)
    assert lines["gold_seen"] == 5 and lines["seen"] == 10_000_000 + 59_999_996
    assert lines["read"] == lines["seen"]
    # the report and diagnosis read the same spans within the same bound
    for args in (("diagnose", tmp_path / "results.json", "-o", tmp_path / "diag"),
                 ("report", tmp_path / "results.json", "--md", tmp_path / "r.md")):
        proc = run_cli(*args, timeout=120, memory=MEMORY)
        assert_no_traceback(proc)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_a_gold_span_of_twenty_million_lines_is_counted_in_bounded_memory(
        tmp_path: Path) -> None:
    groups = [{"id": "g", "edit": True,
               "any_of": [{"file": "src/a.py", "lines": [1, 20_000_000]},
                          {"file": "src/b.py", "lines": [1, 90_000_000]}]}]
    ranked = [chunk("a", "src/a.py", start_line=10, end_line=19_999_999),
              chunk("b", "src/b.py", start_line=1, end_line=30_000_000)]
    result = _eval(tmp_path, [case("c1", groups=groups)],
                   [attempt("x", "c1", ranked, final="no patch, no names")],
                   "--budget", "lines=40000000")
    lines = _case(result)["lines"]
    assert isinstance(lines, dict)
    # b.py shows more lines of its target over the whole ranking (30M against 19,999,990)
    assert lines["gold"] == 90_000_000 and lines["gold_seen"] == 40_000_000 - 19_999_990
    assert lines["evidence_drop"] == 1.0


def test_a_read_outside_the_repository_never_satisfies_a_target(tmp_path: Path) -> None:
    # The agent read /src/a.ts, not the checkout at /testbed: the same path once normalised.
    ranked = [chunk("outside", "src/a.ts", start_line=1, end_line=40, outside_repo=True,
                    kind="read", step=1),
              chunk("other", "src/b.ts", start_line=1, end_line=5, kind="read", step=2)]
    cases = [case("c1", [{"file": "src/a.ts", "lines": [1, 10]}]),
             case("c2", [{"file": "src/*.ts"}])]
    attempts = [attempt("x", "c1", ranked), attempt("y", "c2", ranked[:1])]
    result = _eval(tmp_path, cases, attempts)
    first, second = result["cases"]  # type: ignore[misc]
    assert first["status"] == "fail" and first["missing_groups"] == ["accepted"]
    assert first["lines"]["gold_seen"] == 0 and first["lines"]["seen"] == 45
    assert second["status"] == "fail" and second["first_relevant_rank_any_depth"] is None
    # diagnosis: the agent never touched the repository's src/a.ts
    proc = run_cli("diagnose", tmp_path / "results.json", "-o", tmp_path / "diag", timeout=120,
                   memory=MEMORY)
    assert_no_traceback(proc)
    diagnoses = json.loads((tmp_path / "diag" / "diagnoses.json").read_text())["diagnoses"]
    assert [d["cause"] for d in diagnoses] == ["never_searched", "never_searched"]


def test_diagnose_on_a_terminal_prints_no_markdown_escapes(tmp_path: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    from hostilekit import CODE

    ranked = [chunk("c", "src/other_[x].py", kind="read", step=0)]
    _eval(tmp_path, [case("my_case*one", [{"file": "src/a_b.py", "symbol": "Foo.__init__"}])],
          [attempt("x", "my_case*one", ranked)])
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-c", CODE, "diagnose", str(tmp_path / "results.json")],
                              stdout=follower, stderr=subprocess.PIPE, timeout=120, check=False,
                              env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
        os.close(follower)
        follower = -1
        out = b""
        while True:
            try:
                block = os.read(leader, 65536)
            except OSError:
                break
            if not block:
                break
            out += block
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    text = out.decode()
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "my_case*one" in text and "never_searched" in text
    assert "\\" not in text and "|---" not in text, text
