"""``codegold search --as-case``: a ready case stanza for the picked results, pinned to the
index's revision, that loads as a case and passes on the reference retriever."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.model import load_cases

QUERY = "where is createSession defined"


@pytest.fixture(scope="module")
def index(example_repo: tuple[Path, dict[str, str]],
          tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    repo, shas = example_repo
    sha = shas["v2"]
    out = tmp_path_factory.mktemp("ascase") / "idx"
    build_index(str(repo), sha, out)
    return out, sha


def _search(*args: str) -> list[dict[str, object]]:
    done = CliRunner().invoke(cli, ["search", *args, "--json"])
    assert done.exit_code == 0, done.output
    ranked: list[dict[str, object]] = json.loads(done.stdout)["ranked"]
    return ranked


def test_stanza_names_the_picked_results_and_loads(index: tuple[Path, str], tmp_path: Path) -> None:
    folder, sha = index
    ranked = _search(str(folder), QUERY)
    done = CliRunner().invoke(cli, ["search", str(folder), QUERY, "--as-case", "--pick", "1,3"])
    assert done.exit_code == 0, done.output
    stanza = yaml.safe_load(done.stdout)
    assert len(stanza) == 1
    case = stanza[0]
    assert case["revision"] == sha and case["query"] == QUERY
    assert [t["file"] for t in case["accepted"]] == [ranked[0]["file"], ranked[2]["file"]]
    assert case["accepted"][0].get("symbol") == ranked[0].get("symbol")
    path = tmp_path / "cases.yaml"
    assert "cutoff" not in case  # the case file's defaults decide it, not -k
    path.write_text("format: 1\ndefaults: {cutoff: 5}\ncases:\n" + done.stdout)
    loaded = load_cases(str(path)).cases
    assert loaded[0].revision == sha and loaded[0].id == "where-is-createsession-defined"
    # The stanza describes what the index holds: running it on that index passes.
    out = tmp_path / "a.jsonl"
    run = CliRunner().invoke(cli, ["run", str(path), "--index", str(folder), "-o", str(out), "-q"])
    assert run.exit_code == 0, run.output
    result = CliRunner().invoke(cli, ["eval", str(path), str(out), "--json"])
    assert '"pass"' in result.output


def test_default_pick_is_the_top_result(index: tuple[Path, str]) -> None:
    folder, _ = index
    ranked = _search(str(folder), QUERY)
    done = CliRunner().invoke(cli, ["search", str(folder), QUERY, "--as-case"])
    assert done.exit_code == 0, done.output
    assert [t["file"] for t in yaml.safe_load(done.stdout)[0]["accepted"]] == [ranked[0]["file"]]


@pytest.mark.parametrize(("args", "message"), [
    (["--as-case", "--pick", "0"], "outside"),
    (["--as-case", "--pick", "1,x"], "ranks like"),
    (["--as-case", "--pick", "11"], "outside"),
    (["--as-case", "--pick", ",".join(["1"] * 500)], "at most"),
    (["--pick", "1"], "needs --as-case"),
    (["--as-case", "--json"], "cannot be combined"),
])
def test_bad_picks_are_clean_errors(index: tuple[Path, str], args: list[str],
                                    message: str) -> None:
    folder, _ = index
    done = CliRunner().invoke(cli, ["search", str(folder), QUERY, *args])
    assert done.exit_code == 2, done.output
    assert message in done.output and "Traceback" not in done.output


def test_hostile_query_text_stays_one_safe_stanza(index: tuple[Path, str], tmp_path: Path) -> None:
    folder, sha = index
    query = "createSession\x1b[31m: {evil: [1]}\n- id: injected\u202e"
    done = CliRunner().invoke(cli, ["search", str(folder), query, "--as-case"])
    assert done.exit_code == 0, done.output
    assert "\x1b" not in done.output and "\u202e" not in done.output
    stanza = yaml.safe_load(done.stdout)
    assert len(stanza) == 1 and stanza[0]["query"] == query and stanza[0]["revision"] == sha
