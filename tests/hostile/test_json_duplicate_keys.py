"""A key given twice in one JSON object: JSON parsers keep the last value silently, so a
second ``"forbidden": []`` empties the list and a second ``"zero_tolerance": []`` drops
the checks. YAML refuses duplicates; JSON case and policy files must too."""

from __future__ import annotations

import json
from pathlib import Path

from goldkit import attempt, chunk, write_attempts, write_cases
from hostilekit import assert_clean_error, run_cli


def _case_json(tmp_path: Path) -> Path:
    path = tmp_path / "cases.json"
    path.write_text(
        '{"format": 1, "cases": [\n'
        ' {"id": "ok", "query": "q", "revision": "' + "a" * 40 + '",\n'
        '  "accepted": [{"file": "src/a.py"}], "forbidden": ["src/x/"]},\n'
        ' {"id": "c", "query": "q", "revision": "' + "a" * 40 + '",\n'
        '  "accepted": [{"file": "src/a.py"}],\n'
        '  "forbidden": ["src/legacy/"],\n'
        '  "forbidden": []}\n'
        ']}\n', encoding="utf-8")
    return path


def test_a_repeated_key_in_a_json_case_file_is_refused(tmp_path: Path) -> None:
    cases = _case_json(tmp_path)
    attempts = write_attempts(tmp_path, [attempt("a", "c", [chunk("bad", "src/legacy/a.py")])])
    proc = run_cli("eval", cases, attempts, "-o", tmp_path / "r.json", "-q", timeout=60)
    line = assert_clean_error(proc, contains=["duplicate key", "forbidden", "cases.json"])
    assert ":7" in line, line  # the line of the second "forbidden"


def test_a_repeated_key_in_a_jsonl_case_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"format": 1}\n{"id": "c", "query": "q", "revision": "' + "a" * 40
                    + '", "accepted": [{"file": "a.py"}], "forbidden": ["x/"], "forbidden": []}\n',
                    encoding="utf-8")
    attempts = write_attempts(tmp_path, [attempt("a", "c", [chunk("bad", "x/a.py")])])
    proc = run_cli("eval", path, attempts, "-o", tmp_path / "r.json", "-q", timeout=60)
    assert_clean_error(proc, contains=["duplicate key", "forbidden"])


def test_a_repeated_key_in_a_json_gate_policy_is_refused(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [{"id": "c", "query": "q", "accepted": [{"file": "src/a.py"}],
                                    "forbidden": ["src/legacy/"]}])
    attempts = write_attempts(tmp_path, [attempt("a", "c", [chunk("ok", "src/a.py"),
                                                            chunk("bad", "src/legacy/a.py")])])
    results = tmp_path / "results.json"
    run_cli("eval", cases, attempts, "-o", results, "-q", timeout=60)
    assert json.loads(results.read_text(encoding="utf-8"))["cases"][0]["forbidden_chunk_ids"]
    policy = tmp_path / "policy.json"
    policy.write_text('{"format": 1,\n "zero_tolerance": ["forbidden_sources"],\n'
                      ' "zero_tolerance": []}\n', encoding="utf-8")
    proc = run_cli("gate", results, "--policy", policy, timeout=60)
    line = assert_clean_error(proc, contains=["duplicate key", "zero_tolerance", "policy.json"])
    assert ":3" in line, line
