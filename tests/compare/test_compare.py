"""compare_runs on planted changes: case lists, tested deltas, small-slice warnings."""

from __future__ import annotations

import pytest

from codegold.compare import compare_runs, dump_comparison, render_comparison_markdown
from codegold.model import RunResult
from runfactory import make_case, make_result, make_run


def _runs() -> tuple[RunResult, RunResult]:
    base, new = [], []
    for i in range(40):
        area = "auth" if i < 20 else "billing"
        case = make_case(f"c{i:02d}", tags={"area": area})
        base.append(make_result(case, rank=1))
        if area == "auth" and i < 14:  # planted regression: 14 auth cases lose their hit
            new.append(make_result(case, rank=None))
        elif i == 30:
            new.append(make_result(case, rank=3))  # rank move, still passing
        else:
            new.append(make_result(case, rank=1))
    for i in range(3):  # a slice too small to conclude
        case = make_case(f"tiny{i}", tags={"area": "search"}, query_class="exact_identifier")
        base.append(make_result(case, rank=None))
        new.append(make_result(case, rank=2))
    case = make_case("flaky", tags={"area": "billing"})
    base.append(make_result(case, rank=1))
    new.append(make_result(case, rank=None, status="invalid", invalid_reason="manifest missing"))
    return make_run(base), make_run(new)


def test_planted_regression_is_flagged() -> None:
    base, new = _runs()
    cmp = compare_runs(base, new, base_name="base.json", new_name="new.json")
    assert [c.case_id for c in cmp.changes_of("newly_failing")] == [f"c{i:02d}" for i in range(14)]
    assert [c.case_id for c in cmp.changes_of("newly_passing")] == ["tiny0", "tiny1", "tiny2"]
    assert [c.case_id for c in cmp.changes_of("rank_down")] == ["c30"]
    assert [c.case_id for c in cmp.changes_of("became_invalid")] == ["flaky"]
    assert cmp.paired == 43  # invalid case is not paired

    hit = {d.metric: d for d in cmp.overall.metrics}["hit_rate"]
    assert hit.diff == pytest.approx((3 - 14) / 43)
    assert hit.improved is False
    assert hit.ci_low is not None and hit.ci_high is not None and hit.ci_low < hit.diff < hit.ci_high

    by_key = {s.key: s for s in cmp.slices}
    auth = {d.metric: d for d in by_key["tag:area=auth"].metrics}["hit_rate"]
    billing = {d.metric: d for d in by_key["tag:area=billing"].metrics}["hit_rate"]
    assert auth.significant and auth.diff == pytest.approx(-14 / 20)
    assert auth.p_adjusted is not None and auth.p_value is not None
    assert auth.p_adjusted >= auth.p_value
    assert not billing.significant
    tiny = by_key["tag:area=search"]
    assert tiny.too_small and tiny.paired == 3
    assert all(d.p_value is None for d in tiny.metrics)
    assert any("tag:area=search" in w and "too small" in w for w in cmp.warnings)
    forbidden = {d.metric: d for d in cmp.overall.metrics}["forbidden_rate"]
    assert forbidden.diff == 0 and not forbidden.significant and forbidden.improved is None


def test_comparison_is_deterministic() -> None:
    base, new = _runs()
    first = dump_comparison(compare_runs(base, new))
    assert first == dump_comparison(compare_runs(base, new))


def test_identical_runs_show_no_change() -> None:
    base, _ = _runs()
    cmp = compare_runs(base, base)
    assert cmp.changes == []
    assert all(not d.significant and d.diff == 0 for d in cmp.overall.metrics)


def test_markdown_names_the_regression_and_escapes_ids() -> None:
    base, new = _runs()
    case = make_case("evil|<img src=x>")
    base = make_run([*base.cases, make_result(case, rank=1)])
    new = make_run([*new.cases, make_result(case, rank=None)])
    text = render_comparison_markdown(compare_runs(base, new))
    assert "**15 newly failing**" in text
    assert "tag:area=auth (20): hit rate" in text.replace("\\", "")
    assert "<img" not in text and "evil\\|&lt;img src=x&gt;" in text
    assert "too small to conclude" in text


def test_cli_writes_markdown_and_json(tmp_path: pytest.TempPathFactory) -> None:
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from codegold.cli.main import cli
    from codegold.model import dump_results

    base, new = _runs()
    out = Path(str(tmp_path))
    (out / "base.json").write_bytes(dump_results(base))
    (out / "new.json").write_bytes(dump_results(new))
    runner = CliRunner()
    result = runner.invoke(cli, ["compare", str(out / "base.json"), str(out / "new.json"),
                                 "--json", str(out / "cmp.json")])
    assert result.exit_code == 0, result.output
    assert "**14 newly failing**" in result.output
    data = json.loads((out / "cmp.json").read_text())
    assert data["format"] == 1 and data["paired"] == 43
    missing = runner.invoke(cli, ["compare", str(out / "nope.json"), str(out / "new.json")])
    assert missing.exit_code == 2 and "error:" in missing.output
