"""Budgets (lines, tokens, steps) and line-level figures: tiny hand-computed cases, an
independent implementation over plain sets of (file, line), and hypothesis invariants."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.cli.main import cli
from codegold.errors import CodegoldError, InputError
from codegold.evaluate import evaluate_attempts
from codegold.model import (
    Attempt,
    Case,
    CaseSet,
    Chunk,
    EvidenceGroup,
    Manifest,
    Target,
    dump_results,
)
from codegold.model.cases import Budget, parse_budget
from goldkit import SHA_A, attempt, case, chunk, run_eval, write_attempts, write_cases


def span(chunk_id: str, file: str, first: int, last: int, **extra: Any) -> dict[str, Any]:
    return chunk(chunk_id, file, start_line=first, end_line=last, **extra)


# --- budgets: what is visible --------------------------------------------------------------


def test_line_budget_cuts_the_crossing_chunk_at_the_budget(tmp_path: Path) -> None:
    ranked = [span("a", "src/a.py", 1, 10), span("b", "src/b.py", 1, 10),
              span("c", "src/c.py", 1, 10)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/b.py"}], budget={"lines": 15})],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.cutoff == 2  # a whole, b cut after its first 5 lines
    assert r.status == "pass" and r.first_relevant_rank == 2
    use = r.budget_use
    assert use is not None
    assert (use.used, use.visible_chunks, use.cut_chunk_id, use.cut_lines) == (15, 2, "b", 5)
    assert r.case.cutoff == 0 and r.case.budget_or_none == Budget(unit="lines", limit=15)


def test_line_budget_leaves_out_what_comes_after(tmp_path: Path) -> None:
    ranked = [span("a", "src/a.py", 1, 10), span("c", "src/c.py", 1, 10)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/c.py"}], budget={"lines": 10})],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.cutoff == 1 and r.status == "fail" and r.first_relevant_rank_any_depth == 2
    assert r.budget_use is not None and r.budget_use.cut_chunk_id is None


def test_token_budget_cuts_in_proportion_and_reads_excerpts(tmp_path: Path) -> None:
    # a: 40 chars of excerpt -> 10 tokens; b: 100 tokens over 10 lines, 30 tokens left -> 3 lines
    ranked = [span("a", "src/a.py", 1, 4, excerpt="x" * 40),
              span("b", "src/b.py", 1, 10, tokens=100)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/b.py", "lines": [1, 10]}],
                                 budget={"tokens": 40})],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.cutoff == 2
    assert r.budget_use is not None and r.budget_use.cut_lines == 3
    figures = r.line_figures
    assert figures is not None and figures.recall == pytest.approx(0.3)


def test_token_budget_drops_a_chunk_of_which_no_line_fits(tmp_path: Path) -> None:
    ranked = [span("a", "src/a.py", 1, 4, tokens=38), span("b", "src/b.py", 1, 10, tokens=100)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/b.py"}], budget={"tokens": 40})],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.cutoff == 1 and r.status == "fail"


def test_step_budget_excludes_later_steps(tmp_path: Path) -> None:
    ranked = [span("a", "src/a.py", 1, 5, step=0, kind="search_hit"),
              span("b", "src/b.py", 1, 5, step=1, kind="read"),
              span("c", "src/c.py", 1, 5, step=3, kind="read")]
    result = run_eval(tmp_path, [case("c1", [{"file": "src/c.py"}], budget={"steps": 2}),
                                 case("c2", [{"file": "src/c.py"}], budget={"steps": 3})],
                      [attempt("x", "c1", ranked), attempt("y", "c2", ranked)]).by_id()
    assert result["c1"].cutoff == 2 and result["c1"].status == "fail"
    assert result["c2"].cutoff == 3 and result["c2"].status == "pass"
    reach = result["c2"].group_reach
    assert [(g.group, g.rank, g.step, g.lines) for g in reach] == [("accepted", 3, 3, 15)]


def test_one_shot_retriever_chunks_have_sizes_too(tmp_path: Path) -> None:
    ranked = [chunk("a", "src/a.py", excerpt="one\ntwo\nthree"), span("b", "src/b.py", 5, 9)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/b.py"}], budget={"lines": 8})],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.cutoff == 2 and r.budget_use is not None and r.budget_use.used == 8


def test_a_case_budget_replaces_the_default_cutoff_and_back(tmp_path: Path) -> None:
    defaults = {"revision": SHA_A, "budget": {"lines": 50}}
    cases_path = write_cases(tmp_path, [case("b", [{"file": "a.py"}]),
                                        case("k", [{"file": "a.py"}], cutoff=3)], defaults)
    from codegold.model import load_cases

    loaded = {c.id: c for c in load_cases(str(cases_path)).cases}
    assert loaded["b"].budget_or_none == Budget(unit="lines", limit=50) and loaded["b"].cutoff == 0
    assert loaded["k"].budget_or_none is None and loaded["k"].cutoff == 3


@pytest.mark.parametrize(("cases", "defaults", "words"), [
    ([case("c", [{"file": "a.py"}], cutoff=3, budget={"lines": 5})], None, "not both"),
    ([case("c", [{"file": "a.py"}])], {"revision": SHA_A, "cutoff": 3, "budget": {"steps": 2}},
     "defaults set both"),
    ([case("c", [{"file": "a.py"}], budget={"lines": 5, "tokens": 9})], None, "budget"),
    ([case("c", [{"file": "a.py"}], budget={"pages": 5})], None, "budget"),
    ([case("c", [{"file": "a.py"}], budget={"lines": 0})], None, "budget"),
    ([case("c", [{"file": "a.py", "lines": [9, 3]}])], None, "comes after the last"),
    ([case("c", [{"file": "src/*.py", "lines": [1, 3]}])], None, "exact file path"),
    ([case("c", [{"file": "a.py", "lines": [1]}])], None, "lines"),
    ([case("c", [{"file": "a.py"}])], {"revision": SHA_A}, "or a budget"),
])
def test_cutoff_and_budget_rules_are_clear_errors(tmp_path: Path, cases: list[dict[str, Any]],
                                                  defaults: dict[str, Any] | None,
                                                  words: str) -> None:
    from codegold.model import load_cases

    path = write_cases(tmp_path, cases, defaults)
    with pytest.raises(CodegoldError) as err:
        load_cases(str(path))
    assert words in str(err.value)


def test_parse_budget() -> None:
    assert parse_budget("lines=400") == Budget(unit="lines", limit=400)
    assert parse_budget("tokens=8000") == Budget(unit="tokens", limit=8000)
    assert parse_budget("steps= 0012") == Budget(unit="steps", limit=12)
    for bad in ("lines", "pages=3", "lines=-1", "lines=0", "lines=x", "lines=\u00b2",
                "lines=" + "9" * 5000, "lines=1\u00b2"):  # '²' passes str.isdigit; 5,000
        with pytest.raises(InputError):                   # digits are past int()'s limit
            parse_budget(bad)


def test_eval_budget_option_judges_every_case_at_it(tmp_path: Path) -> None:
    cases_path = write_cases(tmp_path, [case("c1", [{"file": "src/b.py"}])])
    attempts_path = write_attempts(tmp_path, [attempt("x", "c1", [
        span("a", "src/a.py", 1, 10), span("b", "src/b.py", 1, 10)])])
    out = tmp_path / "r.json"
    res = CliRunner().invoke(cli, ["eval", str(cases_path), str(attempts_path), "-o", str(out),
                                   "--budget", "lines=10", "-q"])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["cases"][0]["status"] == "fail" and data["cases"][0]["cutoff"] == 1
    assert data["cases"][0]["budget"]["budget"] == {"unit": "lines", "limit": 10}
    res = CliRunner().invoke(cli, ["eval", str(cases_path), str(attempts_path), "--budget",
                                   "pages=3"])
    assert res.exit_code != 0 and "UNIT=N" in res.output


def test_plain_cases_carry_no_budget_or_line_fields(tmp_path: Path) -> None:
    result = run_eval(tmp_path, [case("c1", [{"file": "src/a.py"}])],
                      [attempt("x", "c1", [span("a", "src/a.py", 1, 3)])])
    text = dump_results(result).decode()
    for key in ('"budget"', '"lines"', '"reach"', '"line_recall"', '"budget_trend"',
                '"line_cases"'):
        assert key not in text, key


# --- budgets cut reads: the part past the budget is not seen ------------------------------------

WHOLE_FILE = {"rule": "span", "symbols": ["ponyint_early", "ponyint_sched_start"],
              "role": "definition"}


def _cut_read(target: dict[str, Any], budget: int) -> Any:
    """An agent that read 123 lines elsewhere, then `cat` the whole of src/sched.c (1-400),
    whose span resolution found two definitions in it."""
    ranked = [span("o", "src/other.c", 1, 123, kind="read", step=0),
              span("f", "src/sched.c", 1, 400, kind="read", step=1, resolved=WHOLE_FILE)]
    return ranked, case("c1", [target], budget={"lines": budget})


@pytest.mark.parametrize(("target", "budget", "status"), [
    # the definition at 300-320 is past line 77, where the budget cut the read
    ({"file": "src/sched.c", "symbol": "ponyint_sched_start", "lines": [300, 320]}, 200, "fail"),
    ({"file": "src/sched.c", "symbol": "ponyint_sched_start", "lines": [300, 320]}, 600, "pass"),
    # a definition the cut part holds by its first line
    ({"file": "src/sched.c", "symbol": "ponyint_early", "lines": [60, 90]}, 200, "pass"),
    # no lines given: only the definition the read starts with is held by its first lines
    ({"file": "src/sched.c", "symbol": "ponyint_sched_start"}, 200, "fail"),
    ({"file": "src/sched.c", "symbol": "ponyint_early"}, 200, "pass"),
    # a file target is satisfied by any line of the file
    ({"file": "src/sched.c"}, 200, "pass"),
])
def test_a_read_cut_at_the_budget_satisfies_groups_only_by_its_part(
        tmp_path: Path, target: dict[str, Any], budget: int, status: str) -> None:
    ranked, the_case = _cut_read(target, budget)
    r = run_eval(tmp_path, [the_case], [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.status == status, r
    if status == "fail":
        assert r.budget_use is not None and r.budget_use.cut_lines == 77
        assert r.first_relevant_rank is None and r.first_relevant_rank_any_depth == 2
        if "lines" in target:
            assert r.line_figures is not None and r.line_figures.recall == 0.0
        assert r.group_reach is not None and r.group_reach[0].rank is None


def test_a_retriever_window_cut_at_the_budget_keeps_the_definition_it_starts_with(
        tmp_path: Path) -> None:
    ranked = [span("a", "src/a.py", 1, 10), span("w", "src/b.py", 10, 50, symbol="handle")]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/b.py", "symbol": "handle"}],
                                 budget={"lines": 30})],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    assert r.status == "pass" and r.budget_use is not None and r.budget_use.cut_lines == 20


def test_diagnosis_sees_a_cut_read_as_read_past_the_budget(tmp_path: Path) -> None:
    from codegold.diagnose import diagnose_run

    target = {"file": "src/sched.c", "symbol": "ponyint_sched_start", "lines": [300, 320]}
    ranked, the_case = _cut_read(target, 200)
    run = run_eval(tmp_path, [the_case], [attempt("x", "c1", ranked)])
    summary, _ = diagnose_run(run)
    (d,) = summary.diagnoses
    assert d.cause == "read_past_budget", d
    assert any("lines 1-77" in e for e in d.evidence)
    plain = [{k: v for k, v in c.items() if k not in ("kind", "step")} for c in ranked]
    run = run_eval(tmp_path, [the_case], [attempt("x", "c1", plain)])
    summary, _ = diagnose_run(run)
    assert summary.diagnoses[0].cause == "below_cutoff", summary.diagnoses[0]


# --- line-level figures: hand-computed --------------------------------------------------------


def test_line_figures_by_hand(tmp_path: Path) -> None:
    # gold: src/a.py 3-6 (4 lines). Seen: a.py 1-4 (4), a.py 3-8 (6), b.py 1-2 (2).
    # distinct seen: a.py 1-8 (8) + b.py 1-2 (2) = 10; read = 12; gold seen = 3-6 = 4.
    ranked = [span("1", "src/a.py", 1, 4), span("2", "src/a.py", 3, 8), span("3", "src/b.py", 1, 2)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/a.py", "lines": [3, 6]}])],
                 [attempt("x", "c1", ranked)]).by_id()["c1"]
    f = r.line_figures
    assert f is not None
    assert (f.gold, f.seen, f.gold_seen, f.read) == (4, 10, 4, 12)
    assert f.recall == 1.0 and f.precision == pytest.approx(0.4)
    assert f.f1 == pytest.approx(2 * 0.4 / 1.4)
    assert f.efficiency == pytest.approx(4 / 12) and f.redundancy == pytest.approx(1 - 10 / 12)
    assert f.evidence_drop is None  # no final recorded
    # at 0.5x of cutoff 5 (2 chunks) the gold lines are already all seen
    assert f.recall_at == {"0.5x": 1.0, "1x": 1.0, "2x": 1.0}


def test_alternative_targets_count_the_best_seen_one(tmp_path: Path) -> None:
    groups = [{"id": "g", "any_of": [{"file": "x.py", "lines": [1, 10]},
                                     {"file": "y.py", "lines": [1, 2]}]}]
    r = run_eval(tmp_path, [case("c1", groups=groups)],
                 [attempt("x", "c1", [span("1", "y.py", 1, 2)])]).by_id()["c1"]
    f = r.line_figures
    assert f is not None and f.recall == 1.0 and f.gold == 2


def test_line_figures_aggregate_per_slice_with_case_counts(tmp_path: Path) -> None:
    cases = [case("l1", [{"file": "a.py", "lines": [1, 4]}], tags={"area": "x"}),
             case("l2", [{"file": "a.py", "lines": [1, 4]}], tags={"area": "x"}),
             case("plain", [{"file": "a.py"}], tags={"area": "y"})]
    result = run_eval(tmp_path, cases, [attempt("1", "l1", [span("a", "a.py", 1, 2)]),
                                        attempt("2", "l2", [span("a", "a.py", 1, 4)]),
                                        attempt("3", "plain", [span("a", "a.py", 1, 4)])])
    s = result.summary
    assert s.line_cases == 2 and s.line_recall == pytest.approx(0.75)
    assert s.budget_trend == {"line_recall@0.5x": 0.75, "line_recall@1x": 0.75,
                              "line_recall@2x": 0.75}
    by_key = {sl.key: sl.metrics for sl in result.slices}
    assert by_key["tag:area=x"].line_cases == 2
    assert isinstance(by_key["tag:area=y"].line_cases, msgspec.UnsetType)


def test_missing_case_with_gold_lines_scores_zero(tmp_path: Path) -> None:
    result = run_eval(tmp_path, [case("l1", [{"file": "a.py", "lines": [1, 4]}])], [])
    f = result.by_id()["l1"].line_figures
    assert f is not None and f.recall == 0.0 and f.seen == 0
    assert result.summary.line_recall == 0.0


# --- evidence drop ---------------------------------------------------------------------------

PATCH_B = """diff --git a/src/b.py b/src/b.py
--- a/src/b.py
+++ b/src/b.py
@@ -1 +1 @@
-x
+y
"""


@pytest.mark.parametrize(("final", "drop", "dropped"), [
    (PATCH_B, 0.5, ["src/a.py:1-2 (login)"]),             # patch leaves a.py alone
    ("Fixed it in `login` and src/b.py.", 0.0, []),        # the answer names both
    ("Changed b.py only.", 0.5, ["src/a.py:1-2 (login)"]),  # the answer names b.py
    ("nothing useful", 1.0, ["src/a.py:1-2 (login)", "src/b.py:1-2"]),
])
def test_evidence_drop(tmp_path: Path, final: str, drop: float, dropped: list[str]) -> None:
    groups = [{"id": "a", "edit": True,
               "any_of": [{"file": "src/a.py", "symbol": "login", "lines": [1, 2]}]},
              {"id": "b", "edit": True, "any_of": [{"file": "src/b.py", "lines": [1, 2]}]}]
    ranked = [span("1", "src/a.py", 1, 2, symbol="login"), span("2", "src/b.py", 1, 2)]
    r = run_eval(tmp_path, [case("c1", groups=groups)],
                 [attempt("x", "c1", ranked, final=final)]).by_id()["c1"]
    f = r.line_figures
    assert f is not None and f.evidence_drop == pytest.approx(drop) and f.dropped == dropped


PATCH_A_CODE = """diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,3 @@
 def login():
-    return 1
+    # the fix
+    return 2
"""
PATCH_A_COMMENT = """diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,4 @@
 def login():
-    return 1
+    # a note about the bug
+
+    return   1
"""
PATCH_C_COMMENT = """diff --git a/src/x.c b/src/x.c
--- a/src/x.c
+++ b/src/x.c
@@ -10,2 +10,6 @@ static int f(void)
 {
-  return 1;
+  /* the bug is
+     somewhere below */
+  // TODO: fix
+   return 1;
 }
"""
PATCH_C_CODE = PATCH_C_COMMENT.replace("+   return 1;", "+   return 2;")
PATCH_C_INCLUDE = """diff --git a/src/x.c b/src/x.c
--- a/src/x.c
+++ b/src/x.c
@@ -1,1 +1,2 @@
 #include <a.h>
+#include <b.h>
"""


@pytest.mark.parametrize(("final", "drop"), [
    (PATCH_A_CODE, 0.0),      # the upstream fix: the read-only callee b is never dropped
    (PATCH_A_COMMENT, 1.0),   # a comment and whitespace change no code: the edit group drops
    (PATCH_B, 1.0),           # a patch of the read-only file leaves the edit group out
    ("I changed login in src/a.py", 0.0),
])
def test_evidence_drop_concerns_only_the_groups_a_fix_must_change(
        tmp_path: Path, final: str, drop: float) -> None:
    groups = [{"id": "a", "edit": True,
               "any_of": [{"file": "src/a.py", "symbol": "login", "lines": [1, 2]}]},
              {"id": "b", "any_of": [{"file": "src/b.py", "lines": [1, 2]}]}]
    ranked = [span("1", "src/a.py", 1, 2, symbol="login"), span("2", "src/b.py", 1, 2)]
    r = run_eval(tmp_path, [case("c1", groups=groups)],
                 [attempt("x", "c1", ranked, final=final)]).by_id()["c1"]
    f = r.line_figures
    assert f is not None and f.evidence_drop == pytest.approx(drop)
    assert all("src/b.py" not in d for d in f.dropped)


def test_no_edit_group_no_evidence_drop(tmp_path: Path) -> None:
    ranked = [span("1", "src/a.py", 1, 2)]
    r = run_eval(tmp_path, [case("c1", [{"file": "src/a.py", "lines": [1, 2]}])],
                 [attempt("x", "c1", ranked, final="nothing")]).by_id()["c1"]
    assert r.line_figures is not None and r.line_figures.evidence_drop is None


def test_code_changed_files_tell_comments_from_code() -> None:
    from codegold.evaluate.patches import code_changed_files

    assert code_changed_files(PATCH_C_COMMENT) == set()
    assert code_changed_files(PATCH_C_CODE) == {"src/x.c"}
    assert code_changed_files(PATCH_C_INCLUDE) == {"src/x.c"}  # '#' is code in C
    assert code_changed_files(PATCH_A_COMMENT) == set()
    assert code_changed_files(PATCH_A_CODE) == {"src/a.py"}
    assert code_changed_files("no patch at all") is None
    # a removed line that reads "-- x" is hunk content, not a file header
    sql = ("diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n"
           "--- old note\n select 1;\n")
    assert code_changed_files(sql) == set()
    docs = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n"
    assert code_changed_files(docs) == set()


# --- the independent implementation -----------------------------------------------------------


def oracle(budget: tuple[str, int] | None, cutoff: int, chunks: list[tuple[str, int, int, int]],
           gold: list[list[tuple[str, int, int]]]) -> dict[str, float]:
    """Line figures from plain sets. ``chunks``: (file, first, last, tokens); ``gold``: per
    group, its alternatives (file, first, last)."""
    seen_list: list[tuple[str, int]] = []
    if budget is None:
        for file, first, last, _ in chunks[:cutoff]:
            seen_list += [(file, n) for n in range(first, last + 1)]
    else:
        unit, limit = budget
        left = limit
        for file, first, last, tokens in chunks:
            size = last - first + 1
            cost = size if unit == "lines" else tokens
            if cost <= left:
                seen_list += [(file, n) for n in range(first, last + 1)]
                left -= cost
                continue
            keep = left if unit == "lines" else (size * left) // cost
            seen_list += [(file, n) for n in range(first, first + min(keep, size))]
            break
    seen = set(seen_list)
    # each group's alternative is the one the whole ranking shows most of
    shown = {(file, n) for file, first, last, _ in chunks for n in range(first, last + 1)}
    gold_set: set[tuple[str, int]] = set()
    for alternatives in gold:
        best: set[tuple[str, int]] = set()
        best_count = -1
        for file, first, last in alternatives:
            lines = {(file, n) for n in range(first, last + 1)}
            if len(lines & shown) > best_count:
                best, best_count = lines, len(lines & shown)
        gold_set |= best
    hit = len(gold_set & seen)
    recall = hit / len(gold_set)
    precision = hit / len(seen) if seen else 0.0
    return {"recall": recall, "precision": precision,
            "f1": 2 * precision * recall / (precision + recall) if hit else 0.0,
            "efficiency": hit / len(seen_list) if seen_list else 0.0,
            "redundancy": 1 - len(seen) / len(seen_list) if seen_list else 0.0}


FILES = st.sampled_from(["a.py", "b.py", "c.py"])
CHUNKS = st.lists(st.tuples(FILES, st.integers(1, 30), st.integers(0, 12), st.integers(0, 60))
                  .map(lambda t: (t[0], t[1], t[1] + t[2], t[3])), max_size=12)
GOLD = st.lists(st.lists(st.tuples(FILES, st.integers(1, 30), st.integers(0, 8))
                         .map(lambda t: (t[0], t[1], t[1] + t[2])), min_size=1, max_size=3),
                min_size=1, max_size=3)
BUDGETS = st.one_of(st.none(), st.tuples(st.sampled_from(["lines", "tokens"]),
                                         st.integers(1, 120)))


def _score(budget: tuple[str, int] | None, cutoff: int, chunks: list[tuple[str, int, int, int]],
           gold: list[list[tuple[str, int, int]]], final: str | None = None) -> Any:
    groups = tuple(EvidenceGroup(id=f"g{i}", required=True, edit=True,
                                 any_of=tuple(Target(file=f, lines=(a, b)) for f, a, b in alts))
                   for i, alts in enumerate(gold))
    the_case = Case(id="c", query="q", repository=None, revision=SHA_A,
                    cutoff=0 if budget else cutoff, query_class="q", groups=groups,
                    budget=Budget(unit=budget[0], limit=budget[1]) if budget else msgspec.UNSET)
    ranked = [Chunk(chunk_id=str(i), file=f, start_line=a, end_line=b, tokens=t, revision=SHA_A)
              for i, (f, a, b, t) in enumerate(chunks)]
    manifest = msgspec.convert({"revision": SHA_A, "index_build_id": "b", "complete": True,
                                "chunker": {"name": "x", "version": "1"}}, type=Manifest)
    run = evaluate_attempts(CaseSet(path="cases", sha256="0", cases=(the_case,)),
                            [Attempt(attempt_id="a", case_id="c", ranked=ranked,
                                     manifest=manifest, final=final)])
    return run.cases[0]


@settings(max_examples=150, deadline=None)
@given(BUDGETS, st.integers(1, 8), CHUNKS, GOLD)
def test_line_figures_agree_with_an_independent_implementation(
        budget: tuple[str, int] | None, cutoff: int, chunks: list[tuple[str, int, int, int]],
        gold: list[list[tuple[str, int, int]]]) -> None:
    result = _score(budget, cutoff, chunks, gold)
    figures = result.line_figures
    expected = oracle(budget, cutoff, chunks, gold)
    for name, value in expected.items():
        got = getattr(figures, name)
        assert got == pytest.approx(value, abs=1e-12), name
        assert 0.0 <= got <= 1.0, name


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["lines", "tokens"]), st.integers(1, 100), st.integers(0, 100), CHUNKS, GOLD)
def test_line_recall_never_falls_as_the_budget_grows(unit: str, small: int, more: int,
                                                    chunks: list[tuple[str, int, int, int]],
                                                    gold: list[list[tuple[str, int, int]]]) -> None:
    low = _score((unit, small), 1, chunks, gold).line_figures
    high = _score((unit, small + more), 1, chunks, gold).line_figures
    assert low.recall <= high.recall + 1e-12
    labels = ["0.5x", "1x", "2x"]
    values = [low.recall_at[x] for x in labels]
    assert values == sorted(values) and math.isclose(values[1], low.recall)


@settings(max_examples=80, deadline=None)
@given(BUDGETS, CHUNKS, GOLD, st.sampled_from(["", "a.py", "see b.py and c.py", PATCH_B,
                                               "diff --git a/a.py b/a.py\n+++ b/a.py\n"]))
def test_every_line_figure_stays_between_0_and_1(
        budget: tuple[str, int] | None, chunks: list[tuple[str, int, int, int]],
        gold: list[list[tuple[str, int, int]]], final: str) -> None:
    result = _score(budget, 3, chunks, gold, final=final)
    f = result.line_figures
    for value in (f.recall, f.precision, f.f1, f.efficiency, f.redundancy,
                  *f.recall_at.values()):
        assert 0.0 <= value <= 1.0
    assert f.evidence_drop is None if f.gold_seen == 0 else 0.0 <= f.evidence_drop <= 1.0


def test_the_gate_holds_line_figures_with_their_case_count(tmp_path: Path) -> None:
    cases = [case("l1", [{"file": "a.py", "lines": [1, 4]}]), case("plain", [{"file": "a.py"}])]
    run_eval(tmp_path, cases, [attempt("1", "l1", [span("a", "a.py", 1, 2)]),
                               attempt("2", "plain", [span("a", "a.py", 1, 4)])])
    results = tmp_path / "results.json"
    cases_path = write_cases(tmp_path, cases)
    res = CliRunner().invoke(cli, ["eval", str(cases_path), str(tmp_path / "attempts.jsonl"),
                                   "-o", str(results), "-q"])
    assert res.exit_code == 0, res.output
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules:\n  - {metric: line_recall, min: 0.9}\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["gate", str(results), "--policy", str(policy)])
    assert res.exit_code == 1
    assert "line_recall >= 0.9 on all cases: 0.5000 (n=1)" in res.output
    assert "cases: l1" in res.output
