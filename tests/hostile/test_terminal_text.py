"""Untrusted text printed by ``run`` (case ids, a retriever's stderr, the run id found in
the attempts file on ``--resume``) and written into report.html (bidi overrides) is shown
with its controls made visible, never obeyed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from codegold.model.results import dump_results
from hostilekit import assert_no_traceback, run_cli
from runfactory import make_case, make_result, make_run

REVISION = "a" * 40
ESC = "\x1b"
RAW = (ESC, "\x07", "\x9b", "\u202e", "\u2066")


def _raw_in(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def test_run_error_summary_escapes_ids_and_stderr(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(f'format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n'
                     '  - {id: "evil\\e]0;title\\a\\u202e", query: q, accepted: [{file: a.py}]}\n',
                     encoding="utf-8")
    script = tmp_path / "r.py"
    script.write_text("import sys\nsys.stdin.read()\n"
                      "sys.stderr.write('boom \\x1b[2J\\x1b]52;c;cGF5bG9hZA==\\x07 \\u202e done')\n"
                      "sys.exit(4)\n")
    proc = run_cli("run", cases, "-o", tmp_path / "a.jsonl", "--retriever",
                   f"command:{sys.executable} {script}", timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "case evil" in proc.stderr and "boom" in proc.stderr, proc.stderr
    assert not _raw_in(proc.stdout + proc.stderr), repr(proc.stderr)
    assert "\\x1b" in proc.stderr


def test_resumed_run_id_is_escaped(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {REVISION}, cutoff: 3}}\ncases:\n"
                     "  - {id: one, query: q, accepted: [{file: a.py}]}\n"
                     "  - {id: two, query: q, accepted: [{file: b.py}]}\n", encoding="utf-8")
    out = tmp_path / "a.jsonl"
    out.write_text(json.dumps({"attempt_id": "x", "case_id": "one", "ranked": [],
                               "run_id": f"run-{ESC}]0;owned{ESC}\\\u202e"}) + "\n")
    proc = run_cli("run", cases, "-o", out, "--resume", "--retriever", "command:echo []",
                   timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "run run-" in proc.stderr, proc.stderr
    assert not _raw_in(proc.stdout + proc.stderr), repr(proc.stderr)


def test_report_html_shows_bidi_overrides(tmp_path: Path) -> None:
    case = make_case("id\u202egnp.exe", query="where is \u2066login\u2069 \u202e handled")
    results = tmp_path / "results.json"
    results.write_bytes(dump_results(make_run([make_result(case)])))
    proc = run_cli("report", results, "-o", tmp_path / "r.html", "--md", tmp_path / "r.md",
                   timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "\u202e" not in page and "\u2066" not in page
    assert "\\u202e" in page
