"""Latency and cost as figures: per case from the final attempt, percentiles and sums per
slice in results.json, registry metrics the gate can bound."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import InputError
from codegold.model import dump_results
from codegold.model.metrics import get_metric, nearest_rank, parse_metric
from goldkit import SHA_A, attempt, case, chunk, run_eval

TARGET = [{"file": "src/a.py", "symbol": "f"}]
DEFAULTS = {"revision": SHA_A, "cutoff": 3}
HIT = chunk("hit", "src/a.py", "f")


def _cases() -> list[dict[str, Any]]:
    return [case(f"c{i:02d}", TARGET, tags={"area": "auth" if i < 10 else "billing"})
            for i in range(20)]


def _attempts() -> list[dict[str, Any]]:
    out = []
    for i in range(20):
        extra: dict[str, Any] = {}
        if i < 18:  # two cases record no latency at all
            # "total" wins over "wall"; c00..c09 at 10..100 ms, c10..c17 at 110..180
            extra["timing_ms"] = {"total": 10.0 * (i + 1), "wall": 9999.0}
        if i == 5:
            extra["timing_ms"] = {"wall": 60.0}  # no total: wall is the latency
        if i % 2 == 0:
            extra["cost"] = {"tokens": 100 * i, "usd": 0.01}
        out.append(attempt(f"a{i}", f"c{i:02d}", [HIT], **extra))
    return out


def test_per_case_latency_and_cost(tmp_path: Path) -> None:
    result = run_eval(tmp_path, _cases(), _attempts(), DEFAULTS)
    by_id = result.by_id()
    assert by_id["c00"].latency_ms == 10.0
    assert by_id["c05"].latency_ms == 60.0  # wall when total is absent
    assert by_id["c18"].latency_ms is None
    assert by_id["c02"].cost_tokens == 200 and by_id["c02"].cost_usd == 0.01
    assert by_id["c03"].cost_tokens is None and by_id["c03"].cost_usd is None


def test_aggregates_overall_and_per_slice(tmp_path: Path) -> None:
    result = run_eval(tmp_path, _cases(), _attempts(), DEFAULTS)
    s = result.summary
    latencies = [10.0 * (i + 1) for i in range(18)]
    assert s.latency_p50_ms == 90.0 and s.latency_p50_ms == nearest_rank(latencies, 50)
    assert s.latency_p95_ms == 180.0 and s.latency_max_ms == 180.0
    assert s.cost_usd_total == pytest.approx(0.10)
    assert s.cost_tokens_mean == pytest.approx(sum(100 * i for i in range(0, 20, 2)) / 10)
    auth = next(x for x in result.slices if x.key == "tag:area=auth").metrics
    assert auth.latency_max_ms == 100.0 and auth.latency_p50_ms == 50.0
    billing = next(x for x in result.slices if x.key == "tag:area=billing").metrics
    assert billing.latency_p95_ms == 180.0 and billing.cost_usd_total == pytest.approx(0.05)
    doc = json.loads(dump_results(result))
    assert doc["summary"]["latency_p95_ms"] == 180.0
    assert doc["cases"][0]["latency_ms"] == 10.0


def test_nothing_recorded_gives_no_figure(tmp_path: Path) -> None:
    attempts = [attempt(f"a{i}", f"c{i:02d}", [HIT]) for i in range(20)]
    attempts[0]["timing_ms"] = {"total": -5.0}  # a clock that ran backwards is no latency
    s = run_eval(tmp_path, _cases(), attempts, DEFAULTS).summary
    assert s.latency_p50_ms is None and s.latency_max_ms is None
    assert s.cost_usd_total is None and s.cost_tokens_mean is None


def test_invalid_cases_are_left_out(tmp_path: Path) -> None:
    attempts = _attempts()
    attempts[19] = attempt("a19", "c19", [HIT], error="timeout", timing_ms={"total": 99999.0})
    assert run_eval(tmp_path, _cases(), attempts, DEFAULTS).summary.latency_max_ms == 180.0


def test_results_are_byte_identical(tmp_path: Path) -> None:
    first = dump_results(run_eval(tmp_path, _cases(), _attempts(), DEFAULTS))
    assert dump_results(run_eval(tmp_path, _cases(), _attempts(), DEFAULTS)) == first
    assert b'"latency_p95_ms":180.0' in first


def test_nearest_rank() -> None:
    assert nearest_rank([3.0, 1.0, 2.0], 50) == 2.0
    assert nearest_rank([5.0], 95) == 5.0
    assert nearest_rank([float(i) for i in range(1, 101)], 95) == 95.0
    assert nearest_rank([float(i) for i in range(1, 21)], 95) == 19.0


def test_registry_entries() -> None:
    for name in ("latency_p50_ms", "latency_p95_ms", "latency_max_ms", "cost_usd_total",
                 "cost_tokens_mean"):
        metric = parse_metric(name)
        assert not metric.higher_is_better and metric.paired is None
    assert get_metric("latency_p95_ms").format(180.0) == "180 ms"


def _gate(tmp_path: Path, rules: str) -> tuple[int, dict[str, Any] | str]:
    results = tmp_path / "results.json"
    results.write_bytes(dump_results(run_eval(tmp_path, _cases(), _attempts(), DEFAULTS)))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"format: 1\nrules:\n{rules}", encoding="utf-8")
    res = CliRunner().invoke(cli, ["gate", str(results), "--policy", str(policy), "--json"])
    try:
        return res.exit_code, json.loads(res.output)
    except json.JSONDecodeError:
        return res.exit_code, res.output


def test_gate_bounds_latency_and_cost(tmp_path: Path) -> None:
    code, verdict = _gate(tmp_path, "  - {metric: latency_p95_ms, max: 200}\n"
                                    "  - {metric: cost_usd_total, max: 1.5}\n")
    assert code == 0, verdict
    code, verdict = _gate(tmp_path, "  - {metric: latency_p95_ms, max: 150}\n")
    assert code == 1 and isinstance(verdict, dict)
    check = verdict["checks"][0]
    assert not check["passed"]
    assert check["cases"] == ["c15", "c16", "c17"]  # the cases slower than the bound


@pytest.mark.parametrize("bound", ["-1", ".nan", ".inf"])
def test_gate_latency_bound_must_be_a_finite_non_negative_number(tmp_path: Path,
                                                                 bound: str) -> None:
    code, out = _gate(tmp_path, f"  - {{metric: latency_p95_ms, max: {bound}}}\n")
    assert code == 2 and isinstance(out, str) and "error:" in out and "latency_p95_ms" in out


def test_rate_bounds_stay_rates(tmp_path: Path) -> None:
    code, out = _gate(tmp_path, "  - {metric: hit_rate, min: 2}\n")
    assert code == 2 and "[0, 1]" in str(out)


def test_parse_metric_accepts_digits_in_names() -> None:
    assert str(parse_metric("latency_p95_ms")) == "latency_p95_ms"
    with pytest.raises(InputError):
        parse_metric("9lives")
