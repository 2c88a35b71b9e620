"""The report reads in order of action: header facts, verdict, failing cases, then figures."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import msgspec
from sample import sample_report

from codegold.assemble import report_header
from codegold.model.attempts import Attempt, encode_attempt
from codegold.model.manifest import ChunkerInfo, Manifest
from codegold.model.results import InputRef
from codegold.report import render_html, render_junit, render_markdown
from codegold.report.model import header_facts
from runfactory import make_case, make_result, make_run


def test_header_from_results_alone_says_unknown() -> None:
    run = sample_report().results
    header = header_facts(run)
    assert header.revision == "aaaaaaaaaaaa"
    assert header.index_build == "build-1"
    assert header.cases_digest == "000000000000"
    assert header.repository == "unknown" and header.retriever == "unknown"
    assert header.chunker == "unknown" and header.date == "unknown"


def _attempts(tmp_path: Path, *, tamper: bool = False) -> tuple[Path, str]:
    manifest = Manifest(repository="acme/shop", revision="a" * 40, revision_given="v1.2",
                        index_build_id="build-1", chunker=ChunkerInfo(name="treesitter", version="7"),
                        created_at="2026-11-01T00:00:00Z", complete=True)
    lines = [encode_attempt(Attempt(attempt_id=f"a{i}", case_id=f"c{i}", manifest=manifest,
                                    retriever="bm25", queried_at=f"2026-11-0{i + 2}T10:00:00Z"))
             for i in range(2)]
    data = b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)
    path = tmp_path / "attempts.jsonl"
    path.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    if tamper:
        path.write_bytes(data.replace(b"bm25", b"evil"))
    return path, digest


def test_header_completed_from_the_attempts_file(tmp_path: Path) -> None:
    _path, digest = _attempts(tmp_path)
    run = make_run([make_result(make_case("c0"), rank=1)])
    run = msgspec.structs.replace(run, inputs={**run.inputs, "attempts": InputRef(
        path="attempts.jsonl", sha256=digest)})
    header = report_header(run, tmp_path / "results.json")
    assert header.repository == "acme/shop"
    assert header.revision == "aaaaaaaaaaaa (v1.2)"
    assert header.chunker == "treesitter 7"
    assert header.retriever == "bm25"
    assert header.date == "2026-11-03T10:00:00Z"
    assert header.retriever_config == "unknown"


def test_header_ignores_an_attempts_file_that_changed(tmp_path: Path) -> None:
    path, digest = _attempts(tmp_path, tamper=True)
    run = make_run([make_result(make_case("c0"), rank=1)])
    run = msgspec.structs.replace(run, inputs={**run.inputs, "attempts": InputRef(
        path=str(path), sha256=digest)})
    header = report_header(run, None)
    assert header.retriever == "unknown" and header.repository == "unknown"


def test_header_facts_in_every_renderer() -> None:
    report = sample_report()
    page, summary, junit = render_html(report), render_markdown(report), render_junit(report)
    for label in ("repository", "revision", "index build", "chunker", "retriever",
                  "retriever config", "codegold", "cases sha256", "date"):
        assert f'data-fact="{label}"' in page, label
        assert label in summary, label
        assert f'name="{label.replace(" ", "_")}"' in junit, label


def test_html_puts_verdict_and_failing_cases_before_figures() -> None:
    page = render_html(sample_report())
    facts, verdict = page.index('id="facts"'), page.index("Gate failed")
    failing = page.index('id="failing"')
    assert facts < verdict < failing < page.index('class="cards"') < page.index("Hit rate by slice")
    table = page[failing:page.index("</div>", failing)]
    for column in ("cause", "owner", "first relevant rank", "missing groups", "forbidden chunk"):
        assert f"<th>{column}</th>" in table, column
    assert "legacy-1" in table  # the forbidden chunk of legacy-leak
    assert "<td>main</td>" in table  # a missing group
    assert '<div class="card bad"><b>3</b><span class="">fail</span>' in page


def test_html_without_gate_still_leads_with_a_verdict() -> None:
    report = dataclasses.replace(sample_report(), gate=None)
    page = render_html(report)
    assert page.index("5 of 6 cases not passing") < page.index('id="failing"')


def test_trend_figures_are_labelled() -> None:
    report = sample_report()
    summary = msgspec.structs.replace(report.results.summary, trend={
        "hit_rate@1": 0.2, "hit_rate@20": 0.6, "mean_group_recall@1": 0.1,
        "mean_group_recall@20": 0.5})
    run = msgspec.structs.replace(report.results, summary=summary)
    report = dataclasses.replace(report, results=run)
    page = render_html(report)
    assert "Trend figures (at fixed depths)" in page
    assert "<th class=num>@20</th>" in page and "0.600" in page
    assert "Trend figures at fixed depths" in render_markdown(report)
    assert "| hit\\_rate@20 | 0.600 |" in render_markdown(report)


def test_summary_order_for_action() -> None:
    text = render_markdown(sample_report())
    order = ["**Gate: FAILED**", "| repository |", "## New failures versus base.json",
             "## Failing cases by owner", "### retrieval-team (2)", "### unassigned (2)",
             "## Slices, weakest first", "<details>"]
    positions = [text.index(o) for o in order]
    assert positions == sorted(positions), order
    # slices by pass rate, then failing count; never by hit rate
    slices = text[text.index("## Slices"):text.index("<details>")]
    keys = [line.split("|")[1].strip() for line in slices.splitlines() if line.startswith("| ")][1:]
    assert keys == ["tag:area=billing", "query\\_class=exact\\_identifier",
                    "query\\_class=descriptive", "tag:area=auth"]
    # figures are folded away
    assert text.index("| hit rate | 0.400 |") > text.index("<details>")


def test_summary_folds_long_lists() -> None:
    results = [make_result(make_case(f"case-{i:03d}"), rank=None) for i in range(60)]
    from codegold.report import ReportInput

    text = render_markdown(ReportInput(results=make_run(results)))
    assert text.count("| case-") == 60
    visible = text[:text.index("<details>")]
    assert visible.count("| case-") == 20
    assert "40 more for unassigned" in text


def test_passing_gate_checks_are_folded_below_the_failed_ones() -> None:
    from codegold.model import Check, Verdict

    report = dataclasses.replace(sample_report(), gate=Verdict(passed=False, checks=[
        Check(rule="mrr >= 0.1", passed=True, figure="0.3", threshold=">= 0.1", cases=[]),
        Check(rule="hit_rate >= 0.9", passed=False, figure="0.4", threshold=">= 0.9", cases=[])]))
    page = render_html(report)
    assert page.index("hit_rate &gt;= 0.9") < page.index("<details><summary>1 of 2 checks passed")
    assert page.index("<details><summary>1 of 2 checks passed") < page.index("mrr &gt;= 0.1")
    assert page.index("mrr &gt;= 0.1") < page.index('id="failing"')
