"""The metric registry: what a metric is, how it is parsed, and that every part shows it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import InputError
from codegold.evaluate.aggregate import aggregate
from codegold.model import Aggregates, RunResult, dump_results
from codegold.model.metrics import (
    ALL_METRICS,
    METRICS,
    get_metric,
    is_scored,
    metric_names,
    parse_metric,
    scored_cases,
)
from codegold.report import ReportInput, render_html, render_junit, render_markdown

sys.path.insert(0, str(Path(__file__).parent.parent / "report"))
from sample import sample_runs

COUNTS = {"cases", "scored", "pass", "fail", "invalid", "missing", "trend", "line_cases",
          "final_cases", "budget_trend"}


def test_aggregates_hold_one_field_per_registry_metric() -> None:
    fields = {f.encode_name for f in msgspec.structs.fields(Aggregates)}
    assert fields - COUNTS == set(metric_names())


def test_names_are_unique_and_text_form_is_the_name() -> None:
    assert len(set(metric_names())) == len(ALL_METRICS)
    for metric in ALL_METRICS:
        assert str(metric) == metric.name
        assert parse_metric(metric.name) == metric
        assert metric.direction in ("higher", "lower")
        assert metric.description and metric.label and metric.short


def test_parse_with_cutoff_and_aliases() -> None:
    recall5 = parse_metric("recall@5")
    assert recall5.name == "mean_group_recall" and recall5.cutoff == 5
    assert str(recall5) == "mean_group_recall@5"
    assert parse_metric(" hit_rate @ 10 ").cutoff == 10
    assert parse_metric("hit") == get_metric("hit_rate")
    assert hash(parse_metric("mrr@3")) == hash(get_metric("mrr").at(3))
    assert parse_metric("mrr@3") != get_metric("mrr")


@pytest.mark.parametrize("text", ["precision", "hit_rate@0", "hit_rate@", "@5", "", "hit rate"])
def test_bad_metric_text_is_input_error_naming_the_valid_ones(text: str) -> None:
    with pytest.raises(InputError) as err:
        parse_metric(text)
    assert "hit_rate" in str(err.value) or "at least 1" in str(err.value)


def test_scored_means_pass_fail_missing() -> None:
    _, new = sample_runs()
    statuses = [c.status for c in scored_cases(new.cases)]
    assert "invalid" not in statuses and len(statuses) == 5
    assert all(is_scored(c) == (c.status != "invalid") for c in new.cases)


def test_hand_computed_figures() -> None:
    # sample: pass (rank 2), fail past cutoff, fail forbidden at rank 1, fail none,
    # invalid, missing -> 5 scored cases.
    _, new = sample_runs()
    summary = aggregate(new.cases)
    assert summary.scored == 5
    assert summary.hit_rate == pytest.approx(2 / 5)
    assert summary.pass_rate == pytest.approx(1 / 5)
    assert summary.mrr == pytest.approx((0.5 + 1.0) / 5)
    assert summary.forbidden_rate == pytest.approx(1 / 5)
    assert get_metric("pass_rate").aggregate([]) is None


def test_lower_is_better_only_for_failure_rates_latency_and_cost() -> None:
    lower = {m.name for m in METRICS if not m.higher_is_better}
    assert lower == {"forbidden_rate", "revision_mismatch_rate", "latency_p50_ms",
                     "latency_p95_ms", "latency_max_ms", "cost_usd_total", "cost_tokens_mean"}


def _new_run() -> RunResult:
    _, new = sample_runs()
    # every case records a latency and a cost, so every registry figure has a value
    cases = [msgspec.structs.replace(c, latency_ms=10.0 * (i + 1), cost_tokens=100 * i,
                                     cost_usd=0.001 * i) for i, c in enumerate(new.cases)]
    return msgspec.structs.replace(new, cases=cases, summary=aggregate(cases))


def test_every_metric_appears_in_results_json() -> None:
    doc = json.loads(dump_results(_new_run()))
    for metric in METRICS:
        assert metric.name in doc["summary"]
        assert all(metric.name in s["metrics"] for s in doc["slices"])


def test_every_metric_appears_in_report_markdown_and_html() -> None:
    report = ReportInput(results=_new_run())
    markdown = render_markdown(report)
    html = render_html(report)
    junit = render_junit(report)
    for metric in METRICS:
        assert f'<property name="{metric.name}" value=' in junit, metric.name
        assert f"| {metric.label.replace('_', chr(92) + '_')} |" in markdown, metric.name
        assert metric.label in html, metric.name


def test_every_metric_appears_in_the_eval_summary_and_can_be_gated(tmp_path: Path) -> None:
    from rich.console import Console

    from codegold.cli._summary import render_summary

    run = _new_run()
    console = Console(width=400, record=True)
    render_summary(console, run)
    text = console.export_text()
    head = text.splitlines()[2]
    below = next(line for line in text.splitlines() if line.startswith("all cases: "))
    for metric in METRICS:
        # Rates are table columns; recorded figures (latency, cost) one line below the table.
        if metric.recorded is None:
            assert metric.short in head, metric.name
        else:
            assert metric.label in below, metric.name

    results = tmp_path / "results.json"
    results.write_bytes(dump_results(run))
    rules = "".join(f"  - {{metric: {m.name}, min: 0.0}}\n" for m in METRICS)
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules:\n" + rules, encoding="utf-8")
    res = CliRunner().invoke(cli, ["gate", str(results), "--policy", str(policy), "--json"])
    assert res.exit_code == 0, res.output
    checked = [c["rule"].split()[0] for c in json.loads(res.output)["checks"]]
    assert checked == [m.name for m in METRICS]


def test_every_metric_is_documented() -> None:
    docs = Path(__file__).parent.parent.parent / "docs"
    concepts = (docs / "concepts.md").read_text(encoding="utf-8")
    gate = (docs / "gate.md").read_text(encoding="utf-8")
    for metric in ALL_METRICS:
        assert f"| `{metric.name}` |" in concepts, metric.name
        assert f"`{metric.name}`" in gate, metric.name


def test_rendering_kinds() -> None:
    hit = get_metric("hit_rate")
    assert hit.format(0.4) == "0.400" and hit.format(None) == "n/a"
    assert hit.format(0.4, 4) == "0.4000"
    import dataclasses

    assert dataclasses.replace(hit, render="percent").format(0.4) == "40.0%"
    assert dataclasses.replace(hit, render="ms").format(12.6) == "13 ms"
    assert dataclasses.replace(hit, render="number").format(3.0) == "3"
