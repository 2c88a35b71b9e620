"""Hostile histories, case files and results for what codegold writes from them, fourth
round: ``cases mine`` reading a diff as git writes it (quoted names, lines that look like
headers, line separators that are not newlines), and results files whose figures no
scorer could have written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codegold.evaluate import evaluate_files
from codegold.model import dump_results, load_cases
from gitrepo import Repo, git
from goldkit import SHA_A, attempt, case, chunk, write_attempts, write_cases
from hostilekit import assert_clean_error, run_cli

BEFORE = "def first():\n    return 1\n\n\ndef second():\n    return 2\n"
AFTER = BEFORE.replace("return 2", "return 3")


def _mined(tmp_path: Path, repo: Repo) -> tuple[list[tuple[str, str | None]], str]:
    """The (file, symbol) targets ``cases mine`` drafted, and what it printed."""
    out = tmp_path / "mined.yaml"
    proc = run_cli("cases", "mine", repo.path, "-o", out, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    targets = [(t.file, t.symbol) for c in load_cases(str(out)).cases
               for g in c.groups for t in g.any_of]
    return targets, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", ["back\\slash.py", 'say "hi".py', "tab\there.py",
                                  "new\nline.py"])
def test_mine_reads_a_quoted_file_name(tmp_path: Path, name: str) -> None:
    """git quotes a name holding a backslash, a quote or a control character in a diff's
    header (``--- "a/back\\\\slash.py"``): the quotes were taken as part of the name, no
    such file existed at the parent, and the fix was skipped as changing no file."""
    repo = Repo(tmp_path / "repo")
    repo.commit({name: BEFORE}, "start")
    repo.commit({name: AFTER}, "Fix second returning the wrong total (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert targets == [(name, "second")], printed


def test_mine_counts_a_names_only_list_by_names_not_words(tmp_path: Path) -> None:
    """A fix to one file whose name holds spaces was counted as that many files, and
    skipped as larger than --max-files."""
    repo = Repo(tmp_path / "repo")
    name = "a b c d e f g h i j.py"
    repo.commit({name: BEFORE}, "start")
    repo.commit({name: AFTER}, "Fix second (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert targets == [(name, "second")], printed


def test_mine_does_not_read_removed_and_added_lines_as_a_file_header(tmp_path: Path) -> None:
    """A removed ``-- old`` followed by an added ``++ new`` are ``--- old`` and ``+++ new``
    in the diff: they were read as another file's header, and the rest of the hunk (the
    change to ``second``) went to that file."""
    repo = Repo(tmp_path / "repo")
    text = 'def first():\n    return """\n-- old note\n"""\n\n\ndef second():\n    return 2\n'
    repo.commit({"notes.py": text}, "start")
    repo.commit({"notes.py": text.replace("-- old note", "++ new note")
                 .replace("return 2", "return 3")}, "Fix second and the note (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert sorted(targets) == [("notes.py", "first"), ("notes.py", "second")], printed


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c", "\x85"])
def test_mine_counts_lines_by_newlines_only(tmp_path: Path, separator: str) -> None:
    """A form feed (common in GNU-style sources) or a Unicode line separator in an
    unchanged line was read as a line break: every old line after it was counted one
    too far, and the change fell outside the definition it was in."""
    repo = Repo(tmp_path / "repo")
    text = (f"def first():\n    return 1\n\n\ndef second():\n    x = 1  # {separator} page\n"
            "    return x\n\n\ndef third():\n    return 3\n")
    repo.commit({"paged.py": text}, "start")
    repo.commit({"paged.py": text.replace("return x", "return x + 1")}, "Fix second (#7)")
    targets, printed = _mined(tmp_path, repo)
    assert targets == [("paged.py", "second")], printed


@pytest.mark.parametrize("kind", ["empty", "orphan"])
def test_mine_on_a_head_without_commits_says_so(tmp_path: Path, kind: str) -> None:
    """An empty repository, or one checked out on a branch without commits, gave git's
    usage line ('git <command> [<revision>...] -- [<file>...]') as the error."""
    repo = Repo(tmp_path / "repo")
    if kind == "orphan":
        repo.commit({"a.py": BEFORE}, "start")
        git(repo.path, "checkout", "-q", "--orphan", "fresh")
    proc = run_cli("cases", "mine", repo.path, "-o", tmp_path / "m.yaml", timeout=60)
    assert_clean_error(proc, contains=["HEAD has no commits", "no history to mine"])
    assert not (tmp_path / "m.yaml").exists()

@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x85"])
def test_an_agents_final_patch_is_read_by_newlines_only(separator: str) -> None:
    """The same line splitting in an agent's final patch: a form feed in a context line
    ended the hunk one line early, its last changed lines went unread, and a fix that
    changed code was judged to change none (its evidence-drop figures with it)."""
    from codegold.evaluate.patches import code_changed_files

    patch = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
             f"@@ -1,2 +1,2 @@\n x = 1  # {separator} page\n-y = 2\n+y = 3\n")
    assert code_changed_files(patch) == {"calc.py"}


def test_an_agents_final_patch_with_a_quoted_name_names_the_file() -> None:
    from codegold.evaluate.patches import code_changed_files, patch_files

    patch = ('diff --git "a/say \\"hi\\".py" "b/say \\"hi\\".py"\n'
             '--- "a/say \\"hi\\".py"\n+++ "b/say \\"hi\\".py"\n@@ -1 +1 @@\n-y = 2\n+y = 3\n')
    assert patch_files(patch) == {'say "hi".py'}
    assert code_changed_files(patch) == {'say "hi".py'}

# --- results whose figures no scorer wrote -----------------------------------------------

_IDS = ["a1", "a2", "b1"]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results file of three cases, one failing (hit rate 2/3)."""
    folder = tmp_path_factory.mktemp("scored")
    target = [{"file": "src/a.py", "symbol": "f"}]
    cases = write_cases(folder, [case(i, target) for i in _IDS], {"revision": SHA_A, "cutoff": 3})
    hit, miss = chunk("hit", "src/a.py", "f"), chunk("miss", "src/z.py")
    att = write_attempts(folder, [attempt(str(n), i, [miss if i == "a2" else hit])
                                  for n, i in enumerate(_IDS)])
    path = folder / "results.json"
    path.write_bytes(dump_results(evaluate_files(str(cases), str(att))))
    return path


def _set(*keys: str | int, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return edit


def _both(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        for one in edits:
            one(data)
    return edit


def _twice(data: dict[str, Any]) -> None:
    data["cases"].append(dict(data["cases"][0]))


TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], None], list[str]]] = {
    "rate raised": (_set("summary", "hit_rate", value=1.0),
                    ["summary gives hit_rate 1", "cases give 0.666667"]),
    "rate 1e308": (_set("summary", "hit_rate", value=1e308), ["hit_rate 1e+308", "[0, 1]"]),
    "case flag": (_set("cases", 1, "hit", value=True), ["hit_rate 0.666667", "cases give 1"]),
    "slice rate": (_set("slices", 0, "metrics", "hit_rate", value=1.0), ["slice", "hit_rate 1"]),
    "trend figure": (_set("summary", "trend", "hit_rate@3", value=1.0), ["hit_rate@3 1"]),
    "unknown trend": (_set("summary", "trend", "bogus@3", value=1.0), ["'bogus@3'"]),
    "counts": (_both(_set("summary", "pass", value=3), _set("summary", "fail", value=0)),
               ["pass: 3", "give 2"]),
    "zero cases": (_set("summary", "cases", value=0), ["cases: 0", "give 3"]),
    "case rate above one": (_both(_set("cases", 1, "reciprocal_rank", value=1.5),
                                  _set("summary", "mrr", value=3.5 / 3)),
                            ["case 'a2'", "mrr 1.5", "[0, 1]"]),
    "negative latency": (_set("cases", 0, "latency_ms", value=-5.0), ["latency_ms -5.0"]),
    "latency no case has": (_set("summary", "latency_p95_ms", value=1.0),
                            ["latency_p95_ms 1", "no value"]),
    "case listed twice": (_twice, ["case 'a1' is listed twice"]),
}


@pytest.mark.parametrize("kind", sorted(TAMPERED))
def test_gate_refuses_figures_its_cases_do_not_give(tmp_path: Path, scored: Path,
                                                    kind: str) -> None:
    """The gate read the stored summary: a results file edited to a hit rate of 1.0 (or
    1e308) passed a rule its own cases fail, and a case listed twice counted twice."""
    edit, words = TAMPERED[kind]
    data = json.loads(scored.read_text(encoding="utf-8"))
    edit(data)
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data), encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules: [{metric: hit_rate, min: 0.9}]\n", encoding="utf-8")
    proc = run_cli("gate", results, "--policy", policy, timeout=60)
    assert_clean_error(proc, contains=["not the figures its cases give", *words])


def test_report_and_compare_refuse_an_edited_figure_too(tmp_path: Path, scored: Path) -> None:
    data = json.loads(scored.read_text(encoding="utf-8"))
    data["summary"]["mrr"] = 0.99
    results = tmp_path / "results.json"
    results.write_text(json.dumps(data), encoding="utf-8")
    for argv in (("report", results, "-o", tmp_path / "r.html"),
                 ("compare", scored, results)):
        assert_clean_error(run_cli(*argv, timeout=60), contains=["mrr 0.99", str(results)])
    assert not (tmp_path / "r.html").exists()


def test_untouched_results_still_load(tmp_path: Path, scored: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules: [{metric: hit_rate, min: 0.5}]\n", encoding="utf-8")
    proc = run_cli("gate", scored, "--policy", policy, timeout=60)
    assert proc.returncode == 0, proc.stderr


# --- cases check -------------------------------------------------------------------------

@pytest.mark.parametrize(("lines", "words"), [
    ("[1, 99]", ["lines [1, 99] run past", "(6)", "lines 7-99"]),
    ("[5, 7]", ["lines [5, 7] run past", "line 7 can never"]),
])
def test_check_refuses_gold_lines_running_past_the_file(tmp_path: Path, lines: str,
                                                        words: list[str]) -> None:
    """Gold lines past the file's end were accepted when the range started inside it:
    lines no chunk holds can never be shown, so the case's line recall was capped below 1
    whatever the retriever did, without a word."""
    repo = Repo(tmp_path / "repo")
    revision = repo.commit({"calc.py": BEFORE})
    index = tmp_path / "idx"
    built = run_cli("index", repo.path, "--revision", revision, "-o", index, "--quiet",
                    timeout=120)
    assert built.returncode == 0, built.stderr
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"format: 1\ndefaults: {{revision: {revision}, cutoff: 3}}\ncases:\n"
                     f"  - id: past\n    query: second\n"
                     f"    accepted: [{{file: calc.py, symbol: second, lines: {lines}}}]\n"
                     "  - id: inside\n    query: where is second\n"
                     "    accepted: [{file: calc.py, symbol: second, lines: [5, 6]}]\n",
                     encoding="utf-8")
    proc = run_cli("cases", "check", cases, "--index", index, "--json", timeout=60)
    findings = json.loads(proc.stdout)["findings"]
    assert [(f["case_id"], f["code"], f["severity"]) for f in findings] == [
        ("past", "lines_outside_file", "error")], findings
    for word in words:
        assert word in findings[0]["message"], findings[0]["message"]
    assert proc.returncode == 1


# --- compare ---------------------------------------------------------------------------

def test_compare_warns_when_paired_cases_were_judged_differently(tmp_path: Path) -> None:
    """A baseline scored on another case file whose cases share the ids: every case read
    as newly failing, a regression of the retriever, without a word that the gold had
    changed under it."""
    hit = chunk("hit", "src/a.py", "f")
    paths = {}
    for name, target in (("base", [{"file": "src/a.py", "symbol": "f"}]),
                         ("new", [{"file": "src/z.py"}])):
        cases = write_cases(tmp_path, [case(i, target) for i in _IDS],
                            {"revision": SHA_A, "cutoff": 3}, name=f"{name}.yaml")
        att = write_attempts(tmp_path, [attempt(str(n), i, [hit]) for n, i in enumerate(_IDS)],
                             name=f"{name}.jsonl")
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_bytes(dump_results(evaluate_files(str(cases), str(att))))
    out = tmp_path / "cmp.json"
    proc = run_cli("compare", paths["base"], paths["new"], "--json", out, timeout=120)
    assert proc.returncode == 0, proc.stderr
    warnings = json.loads(out.read_text(encoding="utf-8"))["warnings"]
    assert any("3 paired case(s) were scored against another query, gold" in w
               and "'a1'" in w for w in warnings), warnings
    same = run_cli("compare", paths["base"], paths["base"], "--json", out, timeout=120)
    assert same.returncode == 0, same.stderr
    assert not any("scored against another" in w
                   for w in json.loads(out.read_text(encoding="utf-8"))["warnings"])
