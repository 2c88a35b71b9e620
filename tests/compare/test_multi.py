"""compare_systems and ``codegold compare A B C --baseline``: N systems side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.compare import (
    compare_runs,
    compare_systems,
    dump_comparison,
    dump_multi_comparison,
    render_comparison_markdown,
    render_multi_comparison_markdown,
)
from codegold.errors import InputError
from codegold.model import RunResult, dump_results
from runfactory import make_case, make_result, make_run


def _systems() -> list[tuple[str, RunResult]]:
    """ref hits everything; bm25 loses 15 auth cases; windows matches ref but one rank."""
    ref, bm25, windows = [], [], []
    for i in range(40):
        area = "auth" if i < 20 else "billing"
        case = make_case(f"c{i:02d}", tags={"area": area})
        ref.append(make_result(case, rank=1))
        bm25.append(make_result(case, rank=None if i < 15 else 1))
        windows.append(make_result(case, rank=2 if i == 39 else 1))
    return [("ref.json", make_run(ref)), ("bm25.json", make_run(bm25)),
            ("windows.json", make_run(windows))]


def _test(cmp_tests: list, system: str, slice_: str, metric: str):  # type: ignore[no-untyped-def,type-arg]
    return next(t for t in cmp_tests if (t.system, t.slice, t.metric) == (system, slice_, metric))


def test_tables_rows_are_systems_columns_are_slices_with_n() -> None:
    cmp = compare_systems(_systems(), baseline="ref.json")
    hit = next(t for t in cmp.tables if t.metric == "hit_rate")
    assert hit.columns == ["all", "query_class=descriptive", "tag:area=auth", "tag:area=billing"]
    assert [row[0].system for row in hit.rows] == ["ref.json", "bm25.json", "windows.json"]
    bm25 = {col: fig for col, fig in zip(hit.columns, hit.rows[1], strict=True)}
    assert bm25["all"].value == pytest.approx(25 / 40) and bm25["all"].n == 40
    assert bm25["tag:area=auth"].value == pytest.approx(5 / 20) and bm25["tag:area=auth"].n == 20
    assert bm25["tag:area=billing"].value == 1.0
    # every registry metric gets a table
    assert {t.metric for t in cmp.tables} >= {"hit_rate", "mrr", "pass_rate", "forbidden_rate"}


def test_each_system_is_tested_against_the_baseline_with_holm_over_all() -> None:
    runs = _systems()
    cmp = compare_systems(runs, baseline="ref.json")
    assert {t.system for t in cmp.tests} == {"bm25.json", "windows.json"}
    bm25 = _test(cmp.tests, "bm25.json", "all", "hit_rate")
    assert bm25.diff == pytest.approx(-15 / 40) and bm25.significant and bm25.improved is False
    windows = _test(cmp.tests, "windows.json", "all", "hit_rate")
    assert windows.diff == 0 and not windows.significant
    # Holm runs over the whole family: more tests than a two-run comparison holds,
    # so an adjusted p-value is at least the two-run one.
    pair = compare_runs(runs[0][1], runs[1][1])
    two_run = {d.metric: d for d in pair.overall.metrics}["hit_rate"]
    assert bm25.p_value == two_run.p_value
    assert bm25.p_adjusted is not None and two_run.p_adjusted is not None
    assert bm25.p_adjusted >= two_run.p_adjusted
    tested = [t.p_value for t in cmp.tests if t.p_value is not None]
    assert len(tested) == 2 * len(pair.overall.metrics) * 4


def test_status_differences_list_each_system() -> None:
    cmp = compare_systems(_systems(), baseline="ref.json")
    assert [d.case_id for d in cmp.differences] == [f"c{i:02d}" for i in range(15)]
    assert cmp.differences[0].statuses == ["pass", "fail", "pass"]
    # a rank move that keeps the status is not a status difference
    assert "c39" not in {d.case_id for d in cmp.differences}


def test_baseline_choice_and_bad_input() -> None:
    runs = _systems()
    other = compare_systems(runs, baseline="bm25.json")
    assert {t.system for t in other.tests} == {"ref.json", "windows.json"}
    assert _test(other.tests, "ref.json", "all", "hit_rate").improved is True
    with pytest.raises(InputError, match="not one of the results"):
        compare_systems(runs, baseline="nope.json")
    with pytest.raises(InputError, match="given twice"):
        compare_systems([runs[0], runs[1], runs[0]], baseline="ref.json")
    with pytest.raises(InputError, match="at least 2"):
        compare_systems(runs[:1], baseline="ref.json")


def test_multi_is_deterministic_and_markdown_escapes() -> None:
    runs = _systems()
    evil = make_case("evil|<img src=x>")
    runs = [(name, make_run([*run.cases, make_result(evil, rank=1 if name == "ref.json" else None)]))
            for name, run in runs]
    first = dump_multi_comparison(compare_systems(runs, baseline="ref.json"))
    assert first == dump_multi_comparison(compare_systems(runs, baseline="ref.json"))
    text = render_multi_comparison_markdown(compare_systems(runs, baseline="ref.json"))
    assert "### hit rate (higher is better)" in text
    assert "| ref.json (baseline) |" in text.replace("\\", "")
    assert "<img" not in text and "evil\\|&lt;img src=x&gt;" in text
    assert "(n=20)" in text


def _write(folder: Path) -> list[str]:
    paths = []
    for name, run in _systems():
        (folder / name).write_bytes(dump_results(run))
        paths.append(str(folder / name))
    return paths


def test_cli_three_systems_markdown_and_json(tmp_path: Path) -> None:
    ref, bm25, windows = _write(tmp_path)
    runner = CliRunner()
    out = tmp_path / "multi.json"
    result = runner.invoke(cli, ["compare", ref, bm25, windows, "--baseline", ref,
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 systems, baseline" in result.output
    data = json.loads(out.read_text())
    assert data["kind"] == "multi" and data["baseline"] == ref and len(data["systems"]) == 3
    bad = runner.invoke(cli, ["compare", ref, bm25, windows, "--baseline", "x.json"])
    assert bad.exit_code == 2 and "--baseline found 'x.json'" in bad.output
    one = runner.invoke(cli, ["compare", ref])
    assert one.exit_code == 2 and "at least 2" in one.output


def test_cli_two_files_keep_the_two_run_output(tmp_path: Path) -> None:
    ref, bm25, _ = _write(tmp_path)
    runs = dict(_systems())
    runner = CliRunner()
    result = runner.invoke(cli, ["compare", ref, bm25])
    assert result.exit_code == 0, result.output
    expected = compare_runs(runs["ref.json"], runs["bm25.json"], base_name=ref, new_name=bm25)
    facts = [(ref, "unknown", "unknown"), (bm25, "unknown", "unknown")]  # no attempts here
    assert result.output == render_comparison_markdown(expected, runs=facts)
    # --baseline with two files picks which one is BASE
    swapped = runner.invoke(cli, ["compare", ref, bm25, "--baseline", bm25, "--json",
                                  str(tmp_path / "c.json")])
    assert swapped.exit_code == 0
    assert (tmp_path / "c.json").read_bytes() == dump_comparison(compare_runs(
        runs["bm25.json"], runs["ref.json"], base_name=bm25, new_name=ref))
