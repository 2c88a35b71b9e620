"""An agent's case in the reports (a timeline of steps with the budget line, satisfied
groups and forbidden reads) and two agent versions compared on the line-level figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from codegold.compare import compare_runs
from codegold.model import RunResult
from codegold.report import ReportInput, render_html, render_markdown
from codegold.report.payload import build_payload
from goldkit import attempt, case, chunk, run_eval

TARGET = {"file": "src/auth/session.py", "symbol": "createSession", "lines": [10, 20]}


def entry(chunk_id: str, file: str, first: int, last: int, step: int, kind: str,
          **extra: Any) -> dict[str, Any]:
    return chunk(chunk_id, file, start_line=first, end_line=last, step=step, kind=kind,
                 tool="grep" if kind == "search_hit" else "read_file", **extra)


def _agent_run(tmp_path: Path, late: bool) -> RunResult:
    evidence = entry("h", TARGET["file"], 10, 20, 2, "read", symbol="createSession")
    ranked = [entry("s", TARGET["file"], 12, 12, 0, "search_hit"),
              entry("l", "src/legacy/session.py", 1, 10, 1, "read"),
              *([entry("x", "src/other.py", 1, 40, 1, "read")] if late else []),
              evidence]
    cases = [case(f"agent-{n}", [TARGET], forbidden=["src/legacy/"], budget={"lines": 30})
             for n in range(3)]
    folder = tmp_path / ("late" if late else "early")
    folder.mkdir()
    return run_eval(folder, cases, [attempt(f"t{n}", f"agent-{n}", ranked) for n in range(3)])


def test_the_html_payload_holds_the_timeline(tmp_path: Path) -> None:
    run = _agent_run(tmp_path, late=True)
    row = build_payload(ReportInput(results=run)).cases[0]
    assert isinstance(row.timeline, list)
    kinds = [(r.step, r.kind, r.forbidden, r.past_budget) for r in row.timeline]
    assert kinds == [(0, "search_hit", False, False), (1, "read", True, False),
                     (1, "read", False, False), (2, "read", False, True)]
    assert row.timeline[2].cut and "first 19 counted" in row.timeline[2].lines
    assert isinstance(row.budget, str) and "lines=30" in row.budget
    html = render_html(ReportInput(results=run))
    assert "budget reached" in html and "tl-entry" in html and "line recall" in html
    assert "budget ×0.5" in html and "budget ×2" in html


def test_a_satisfied_group_is_marked_where_it_happened(tmp_path: Path) -> None:
    run = _agent_run(tmp_path, late=False)
    row = build_payload(ReportInput(results=run)).cases[0]
    assert isinstance(row.timeline, list)
    assert [r.satisfied for r in row.timeline] == [[], [], ["accepted"]]


def test_plain_cases_carry_no_timeline(tmp_path: Path) -> None:
    run = run_eval(tmp_path, [case("c", [{"file": "a.py"}])],
                   [attempt("t", "c", [chunk("a", "a.py")])])
    payload = build_payload(ReportInput(results=run))
    text = msgspec.json.encode(payload).decode()
    assert "timeline" not in text and "line_figures" not in text


def test_markdown_shows_a_compact_timeline(tmp_path: Path) -> None:
    text = render_markdown(ReportInput(results=_agent_run(tmp_path, late=True)))
    assert "## Agent timelines (3)" in text
    line = next(x for x in text.splitlines() if x.startswith("- **agent-0**"))
    assert "s0 search src/auth/session.py:12-12" in line
    assert "✗ forbidden" in line and "‖ budget ‖" in line
    assert "| line recall |" in text
    assert "over the 3 cases with gold lines" in text and "| 2x | 0.818 |" in text


def test_two_agent_versions_compare_on_line_recall(tmp_path: Path) -> None:
    early, late = _agent_run(tmp_path, late=False), _agent_run(tmp_path, late=True)
    comparison = compare_runs(early, late, min_slice_cases=1, n_resamples=99, n_bootstrap=50)
    deltas = {d.metric: d for d in comparison.overall.metrics}
    assert deltas["line_recall"].base == 1.0 and deltas["line_recall"].diff < 0
    assert "evidence_drop" not in deltas  # neither version records a final
    plain = run_eval(tmp_path, [case("c", [{"file": "a.py"}])],
                     [attempt("t", "c", [chunk("a", "a.py")])])
    assert "line_recall" not in {d.metric for d in compare_runs(plain, plain).overall.metrics}


RESOLVED = {"rule": "span", "symbols": ["SessionService.createSession"], "role": "definition"}


def _resolved_run(tmp_path: Path) -> RunResult:
    """An imported trajectory resolved at import: its chunks report no symbol or role,
    their resolution holds them; a search listed a file without lines."""
    ranked = [chunk("f", "src/auth/session.py", kind="search_hit", step=0, tool="find"),
              entry("h", TARGET["file"], 10, 20, 1, "read", resolved=RESOLVED)]
    # a second required group nobody found: the case fails, so the report draws its timeline
    groups = [{"id": "session", "any_of": [TARGET]}, {"id": "other", "any_of": [{"file": "x.py"}]}]
    return run_eval(tmp_path, [case("agent", groups=groups, cutoff=5)],
                    [attempt("t", "agent", ranked)])


def test_the_report_shows_the_symbols_and_roles_the_import_resolved(tmp_path: Path) -> None:
    run = _resolved_run(tmp_path)
    row = build_payload(ReportInput(results=run)).cases[0]
    assert [(r.symbol, r.role) for r in row.ranked] == [
        ("", ""), ("SessionService.createSession", "definition")]
    assert isinstance(row.timeline, list)
    assert [(r.symbol, r.role) for r in row.timeline] == [
        ("", ""), ("SessionService.createSession", "definition")]
    assert "(SessionService.createSession)" in render_markdown(ReportInput(results=run))


def test_a_bundle_shows_resolved_symbols_and_no_none_lines(tmp_path: Path) -> None:
    from codegold.diagnose import diagnose_run
    from codegold.diagnose.bundle import render_bundle_markdown

    ranked = [chunk("f", "src/auth/session.py", kind="search_hit", step=0, tool="find"),
              entry("h", "src/auth/other.py", 10, 20, 1, "read", resolved=RESOLVED)]
    run = run_eval(tmp_path, [case("agent", [{"file": "src/auth/x.py"}], cutoff=5)],
                   [attempt("t", "agent", ranked)])
    _, diagnosed = diagnose_run(run)
    text = render_bundle_markdown(diagnosed[0].bundle, diagnosed[0].diagnosis)
    assert "None-None" not in text and "rank: None" not in text
    assert "| src/auth/session.py | \\- |" in text
    assert "| SessionService.createSession | definition |" in text
