"""Requests and workflows refuse bad settings by their own names; the CLI words each as
its flag (``flag``), so a Python caller and the command give the same refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.cli._common import flag
from codegold.errors import InputError
from codegold.execute import parse_executor
from codegold.workflows.demo import run_demo
from codegold.workflows.exporting import TrecRequest
from codegold.workflows.indexing import BuildRequest
from codegold.workflows.searching import parse_pick


def _worded(err: pytest.ExceptionInfo[InputError]) -> str:
    return err.value.worded(flag)


@pytest.mark.parametrize("given", [{}, {"revision": "v1", "revisions": "a,b"},
                                   {"revision": "v1", "revisions": "a", "cases": Path("c")}])
def test_a_build_names_exactly_one_of_revision_revisions_cases(given: dict[str, object]) -> None:
    with pytest.raises(InputError) as err:
        BuildRequest(repo=Path("r"), output=Path("o"), **given)  # type: ignore[arg-type]
    assert _worded(err).startswith("index needs exactly one of --revision, --revisions or "
                                   "--cases (got ")
    assert "'revision'" in str(err.value)  # the library's own words: the setting's name
    named = [f"--{name}" for name in ("revision", "revisions", "cases") if name in given]
    assert _worded(err).endswith(f"(got {', '.join(named) or 'none'})")


def test_a_build_refuses_contradictions() -> None:
    with pytest.raises(InputError) as err:
        BuildRequest(repo=Path("r"), output=Path("o"), revisions="a", store=Path("s"),
                     no_store=True)
    assert _worded(err) == "--store and --no-store contradict each other; give one"
    with pytest.raises(InputError) as err:
        BuildRequest(repo=Path("r"), output=Path("o"), revision="v1",
                     executor=parse_executor("ray"))
    assert _worded(err).startswith("--executor ray applies to many-revision builds")
    assert BuildRequest(repo=Path("r"), output=Path("o"), revisions="a",
                        executor=parse_executor("ray")).revisions == "a"


@pytest.mark.parametrize("prefix", ["", "out/", "out/..", "."])
def test_a_trec_export_needs_a_file_prefix(prefix: str) -> None:
    with pytest.raises(InputError) as err:
        TrecRequest(source="results.json", output=prefix)
    assert _worded(err).startswith("-o takes a path prefix such as out/run")
    assert TrecRequest(source="results.json", output="out/run").paths == [
        "out/run.file.run", "out/run.file.qrels", "out/run.symbol.run", "out/run.symbol.qrels"]


def test_picked_ranks_are_distinct_and_in_order() -> None:
    assert parse_pick("3, 1,3", 5) == [3, 1]
    with pytest.raises(InputError) as err:
        parse_pick("6", 5)
    assert _worded(err) == "--pick rank 6 is outside 1..5 (-k 5)"


def test_the_demo_runs_no_foreign_example_unless_trusted(tmp_path: Path) -> None:
    example = tmp_path / "ex"
    example.mkdir()
    sentinel = tmp_path / "ran"
    (example / "build_example.py").write_text(f"open({str(sentinel)!r}, 'w')\n",
                                              encoding="utf-8")
    with pytest.raises(InputError) as err:
        run_demo(tmp_path / "out", example=example)
    assert "unless you pass --trust-example" in _worded(err)
    assert not sentinel.exists() and not (tmp_path / "out").exists()
