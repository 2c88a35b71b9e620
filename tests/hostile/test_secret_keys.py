"""Secrets in mapping KEYS: a retriever (or a hand-written attempts file) that puts a
credential in a ``filters`` or ``timing_ms`` key must not see it written to attempts,
results, diagnoses or bundles in clear."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hostilekit import assert_no_traceback, run_cli

GITHUB = "ghp_" + "KeyPlanted0123456789abcdefABCDEF0123"
AWS = "AKIA" + "KEYPLANTED7Q3ZXW"
REVISION = "a" * 40
CASES = (f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
         "  - {id: one, query: q, accepted: [{file: src/a.py}]}\n")


def _clean(folder: Path, skip: set[Path]) -> list[str]:
    names = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path not in skip:
            text = path.read_text(encoding="utf-8", errors="replace")
            assert GITHUB not in text and AWS not in text, f"a key leaked into {path}"
            names.append(path.name)
    return names


def test_secret_keys_from_a_retriever_never_reach_attempts(tmp_path: Path) -> None:
    script = tmp_path / "r.py"
    answer = {"ranked": [{"chunk_id": "c", "file": "src/a.py", "revision": REVISION}],
              "filters": {f"token={GITHUB}": 1, "lang": {AWS: "x"}},
              "timing_ms": {f"auth {GITHUB}": 3.0, "total": 4.0}}
    script.write_text(f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(answer))})\n")
    (tmp_path / "cases.yaml").write_text(CASES)
    proc = run_cli("run", tmp_path / "cases.yaml", "-o", tmp_path / "attempts.jsonl", "-q",
                   "--retriever", f"command:{sys.executable} {script}", timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert GITHUB not in proc.stdout + proc.stderr
    assert "attempts.jsonl" in _clean(tmp_path, {script})
    assert "<SECRET:" in (tmp_path / "attempts.jsonl").read_text()


def test_secret_keys_in_an_attempts_file_never_reach_results_or_bundles(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(CASES)
    attempt = {"attempt_id": "a1", "case_id": "one",
               "ranked": [{"chunk_id": "c", "file": "src/b.py", "revision": REVISION}],
               "query": {"raw": "q", "filters": {f"token={GITHUB}": True, "x": {AWS: 1}}},
               "timing_ms": {f"auth {GITHUB}": 3.0, "total": 4.0}}
    attempts = tmp_path / "in" / "attempts.jsonl"
    attempts.parent.mkdir()
    attempts.write_text(json.dumps(attempt) + "\n")
    printed = []
    for args in (("eval", "cases.yaml", attempts, "-o", "results.json"),
                 ("eval", "cases.yaml", attempts, "--json"),
                 ("diagnose", "results.json", "-o", "diag", "--attempts", attempts),
                 ("report", "results.json", "-o", "report.html", "--diagnosis", "diag")):
        proc = run_cli(*args, cwd=tmp_path, timeout=60)
        assert_no_traceback(proc)
        assert proc.returncode in (0, 1), (args, proc.stderr[-2000:])
        printed.append(proc.stdout + proc.stderr)
    assert GITHUB not in "".join(printed) and AWS not in "".join(printed)
    names = _clean(tmp_path, {attempts})
    assert {"results.json", "diagnoses.json", "report.html"} <= set(names), names
    assert any(name.endswith(".json") and name not in ("results.json", "diagnoses.json")
               for name in names), names  # a bundle was written and checked
