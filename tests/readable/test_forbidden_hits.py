"""Forbidden hits are shown where a reader finds them (``file:start-end (symbol)``),
never as a retriever's own chunk hashes, in every place a person reads them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.diagnose.bundle import render_summary_text
from codegold.diagnose.engine import load_diagnoses
from goldkit import attempt, case, chunk, write_attempts, write_cases

HASH = "9f2c4e1ab07d33e5"


def _files(tmp_path: Path) -> tuple[Path, Path]:
    cases = write_cases(tmp_path, [case("shim", [{"file": "src/auth.py", "symbol": "login"}],
                                        forbidden=["src/legacy/"])])
    attempts = write_attempts(tmp_path, [attempt("shim-a", "shim", [
        chunk(HASH, "src/legacy/session.py", symbol="old_login", start_line=10, end_line=41),
        chunk("good", "src/auth.py", symbol="login", start_line=1, end_line=9)])])
    return cases, attempts


def test_every_reader_sees_the_span_not_the_hash(tmp_path: Path) -> None:
    cases, attempts = _files(tmp_path)
    results = tmp_path / "results.json"
    runner = CliRunner()
    shown = runner.invoke(cli, ["eval", str(cases), str(attempts), "-o", str(results)])
    assert shown.exit_code == 0, shown.output
    where = "src/legacy/session.py:10-41 (old_login)"
    assert where in shown.output and HASH not in shown.output
    diag = tmp_path / "diag"
    done = runner.invoke(cli, ["diagnose", str(results), "--attempts", str(attempts),
                               "-o", str(diag)])
    assert done.exit_code == 0, done.output
    # not a terminal here: Markdown, escaped (item: terminal rendering)
    assert "src/legacy/session.py:10-41" in done.output and HASH not in done.output
    assert "src/legacy/session.py:10-41" in (diag / "summary.md").read_text(encoding="utf-8")
    summary = load_diagnoses(diag)
    assert where in render_summary_text(summary)
    md, html = tmp_path / "summary.md", tmp_path / "report.html"
    done = runner.invoke(cli, ["report", str(results), "--diagnosis", str(diag),
                               "-o", str(html), "--md", str(md)])
    assert done.exit_code == 0, done.output
    assert "src/legacy/session.py:10-41" in md.read_text(encoding="utf-8")
    assert HASH not in md.read_text(encoding="utf-8")
    assert "src/legacy/session.py:10-41 (old_login)" in html.read_text(encoding="utf-8")
    # the data keeps the ids: results.json is for programs
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["cases"][0]["forbidden_chunk_ids"] == [HASH]
