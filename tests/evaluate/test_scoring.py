"""Per-case scoring and aggregation on tiny hand-computed cases (DESIGN.md "Scoring")."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from codegold.evaluate.match import file_matches, symbol_matches
from codegold.model.paths import PathPattern
from goldkit import SHA_A, SHA_B, attempt, case, chunk, manifest, run_eval

# --- revisions and manifests --------------------------------------------------------------


def test_revision_mismatch_fails_and_is_listed(tmp_path: Path) -> None:
    ranked = [chunk("ok", "src/a.py"), chunk("old", "src/b.py", revision=SHA_B)]
    r = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])],
                 [attempt("a1", "c", ranked)]).by_id()["c"]
    assert r.status == "fail"
    assert r.hit and r.group_recall == 1.0
    assert r.revision_mismatches == ["old"]
    assert r.unknown_revision == []


def test_revision_mismatch_past_the_cutoff_is_ignored(tmp_path: Path) -> None:
    ranked = [chunk("ok", "src/a.py"), chunk("old", "src/b.py", revision=SHA_B)]
    r = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}], cutoff=1)],
                 [attempt("a1", "c", ranked)]).by_id()["c"]
    assert r.status == "pass" and r.revision_mismatches == []


def test_chunk_without_revision_makes_the_case_invalid(tmp_path: Path) -> None:
    ranked = [chunk("ok", "src/a.py"), chunk("anon", "src/b.py", revision=None)]
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])], [attempt("a1", "c", ranked)])
    r = result.by_id()["c"]
    assert r.status == "invalid"
    assert r.unknown_revision == ["anon"]
    assert r.invalid_reason is not None and "revision" in r.invalid_reason
    assert result.summary.invalid == 1 and result.summary.scored == 0
    assert result.summary.hit_rate is None  # never averaged in


@pytest.mark.parametrize(("retriever", "ranked", "words"), [
    ("agent:swe-agent", [chunk("r", "src/a.py", kind="read", step=1)],
     "codegold import trajectories --index INDEX"),
    (None, [chunk("r", "src/a.py", kind="read", step=1)], "import trajectories --index"),
    ("reference", [chunk("r", "src/a.py")], "codegold run --index INDEX` records"),
    ("command:./windows.py", [chunk("r", "src/a.py")], "--resolve"),
    ("mcp:stdio:server", [chunk("r", "src/a.py")], "carry its own `manifest`"),
    (None, [chunk("r", "src/a.py")], "codegold run --index INDEX"),
])
def test_an_attempt_without_a_manifest_says_how_to_get_one(
        tmp_path: Path, retriever: str | None, ranked: list[dict[str, object]],
        words: str) -> None:
    extra = {"retriever": retriever} if retriever else {}
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])],
                      [attempt("a1", "c", ranked, with_manifest=False, **extra)])
    reason = result.by_id()["c"].invalid_reason
    assert reason is not None and reason.startswith("attempt has no index manifest (")
    assert words in reason, reason


@pytest.mark.parametrize(("the_manifest", "words"), [
    (False, "no index manifest"),
    (manifest(complete=False), "incomplete"),
    (manifest(index_build_id=None), "index_build_id"),
    (manifest(chunker=None), "chunker"),
    (manifest(revision=None), "revision"),
    (manifest(revision=SHA_B), SHA_B),
])
def test_untrusted_manifest_makes_the_case_invalid(
        tmp_path: Path, the_manifest: dict[str, object] | bool, words: str) -> None:
    cases = [case("bad", [{"file": "src/a.py"}]), case("good", [{"file": "src/a.py"}]),
             case("miss", [{"file": "src/a.py"}])]
    perfect = [chunk("ok", "src/a.py")]
    result = run_eval(tmp_path, cases, [
        attempt("a1", "bad", perfect, with_manifest=the_manifest),
        attempt("a2", "good", [chunk("x", "src/zzz.py")]),
    ])
    r = result.by_id()["bad"]
    assert r.status == "invalid"
    assert r.invalid_reason is not None and words in r.invalid_reason
    s = result.summary
    assert (s.cases, s.scored, s.pass_, s.fail, s.invalid, s.missing) == (3, 2, 0, 1, 1, 1)
    # the invalid case's perfect ranking never lifts the rates
    assert s.hit_rate == 0.0 and s.mrr == 0.0 and s.mean_group_recall == 0.0


def test_retriever_error_is_invalid(tmp_path: Path) -> None:
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])],
                      [attempt("a1", "c", [], error="timeout after 30 s")])
    r = result.by_id()["c"]
    assert r.status == "invalid"
    assert r.invalid_reason is not None and "timeout after 30 s" in r.invalid_reason


# --- retries, missing and unknown cases ---------------------------------------------------


def test_retries_score_the_final_attempt_and_keep_every_id(tmp_path: Path) -> None:
    good, bad = [chunk("ok", "src/a.py")], [chunk("no", "src/zzz.py")]
    # file order deliberately differs from the retry chain: a3 retries a1, a2 retries a3
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])], [
        attempt("a1", "c", bad),
        attempt("a3", "c", bad, retry_of="a1"),
        attempt("a2", "c", good, retry_of="a3"),
    ])
    r = result.by_id()["c"]
    assert r.attempt_id == "a2" and r.status == "pass"
    assert r.attempt_ids == ["a1", "a3", "a2"]
    assert result.attempts_read == 3
    assert result.warnings == []


def test_final_attempt_before_its_retried_one_in_file_order(tmp_path: Path) -> None:
    good, bad = [chunk("ok", "src/a.py")], [chunk("no", "src/zzz.py")]
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])], [
        attempt("a2", "c", bad, retry_of="a1"),
        attempt("a1", "c", good),
    ])
    r = result.by_id()["c"]
    assert r.attempt_id == "a2" and r.status == "fail"


def test_ambiguous_finals_are_warned(tmp_path: Path) -> None:
    good, bad = [chunk("ok", "src/a.py")], [chunk("no", "src/zzz.py")]
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])], [
        attempt("a1", "c", good),
        attempt("a2", "c", bad),
    ])
    r = result.by_id()["c"]
    assert r.attempt_ids == ["a1", "a2"]
    assert r.attempt_id in ("a1", "a2")
    assert any("'c'" in w and "final" in w for w in result.warnings)


def test_missing_attempts_count_as_failures_and_are_listed(tmp_path: Path) -> None:
    cases = [case("hit", [{"file": "src/a.py"}]), case("lost", [{"file": "src/a.py"}]),
             case("lost2", [{"file": "src/a.py"}])]
    result = run_eval(tmp_path, cases, [attempt("a1", "hit", [chunk("ok", "src/a.py")])])
    by = result.by_id()
    assert by["lost"].status == "missing" and by["lost2"].status == "missing"
    assert by["lost"].missing_groups == ["accepted"]
    assert by["lost"].attempt_id is None and by["lost"].attempt_ids == []
    s = result.summary
    assert (s.scored, s.pass_, s.missing) == (3, 1, 2)
    assert s.hit_rate == pytest.approx(1 / 3) and s.mrr == pytest.approx(1 / 3)
    assert s.mean_group_recall == pytest.approx(1 / 3)
    assert [c.case_id for c in result.cases if c.status == "missing"] == ["lost", "lost2"]


def test_attempts_for_unknown_cases_are_warned(tmp_path: Path) -> None:
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}])], [
        attempt("a1", "c", [chunk("ok", "src/a.py")]),
        attempt("a2", "ghost", []),
        attempt("a3", "ghost", []),
    ])
    assert len(result.cases) == 1
    assert any("ghost" in w and "unknown" in w for w in result.warnings)
    assert result.attempts_read == 3


# --- matching -----------------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("test/**/session*.spec.ts", "test/session.spec.ts", True),
    ("test/**/session*.spec.ts", "test/a/b/session-x.spec.ts", True),
    ("test/**/session*.spec.ts", "test/a/other.spec.ts", False),
    ("test/**/session*.spec.ts", "src/test/session.spec.ts", False),
    ("test/*.spec.ts", "test/a.spec.ts", True),
    ("test/*.spec.ts", "test/a/b.spec.ts", False),  # * does not cross /
    ("src/?.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False),
    ("src/[ab].py", "src/b.py", True),
    ("src/[ab].py", "src/c.py", False),
    ("src/a.py", "src/a.py", True),
    ("src/a.py", "src/a.pyi", False),
    ("./src/a.py", "src/a.py", True),
])
def test_file_patterns(pattern: str, path: str, expected: bool) -> None:
    assert file_matches(pattern, path) is expected


def test_glob_targets_in_a_case(tmp_path: Path) -> None:
    target = {"file": "test/**/session*.spec.ts", "roles": ["test"]}
    cases = [case(f"c{i}", [target]) for i in range(4)]
    result = run_eval(tmp_path, cases, [
        attempt("a0", "c0", [chunk("x", "test/session.spec.ts", role="test")]),
        attempt("a1", "c1", [chunk("x", "test/a/b/session-x.spec.ts", role="test")]),
        attempt("a2", "c2", [chunk("x", "test/a/b/session-x.spec.ts", role="call_site")]),
        attempt("a3", "c3", [chunk("x", "testing/session.spec.ts", role="test")]),
    ])
    assert [c.status for c in result.cases] == ["pass", "pass", "fail", "fail"]


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("src/legacy/", "src/legacy/session.ts", True),
    ("src/legacy/", "src/legacy-new/session.ts", False),
    ("src/legacy", "src/legacy-new/session.ts", True),  # a prefix is a plain string prefix
    ("src/**/legacy/*.ts", "src/a/legacy/x.ts", True),
    ("src/**/legacy/*.ts", "src/a/legacy/deep/x.ts", False),
    ("**/*.min.js", "web/app.min.js", True),
    ("vendor/*", "vendor/x/y.go", False),
])
def test_forbidden_prefix_versus_glob(pattern: str, path: str, expected: bool) -> None:
    assert PathPattern.forbidden(pattern).matches(path) is expected


def test_forbidden_chunks_only_inside_the_cutoff(tmp_path: Path) -> None:
    ranked = [chunk("ok", "src/a.py"), chunk("f1", "src/legacy/a.py"),
              chunk("f2", "gen/x.pb.go"), chunk("f3", "src/legacy/b.py")]
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}], cutoff=3,
                                      forbidden=["gen/**/*.pb.go", "gen/*.pb.go"])],
                      [attempt("a1", "c", ranked)],
                      defaults={"revision": SHA_A, "cutoff": 5, "forbidden": ["src/legacy/"]})
    r = result.by_id()["c"]
    assert r.status == "fail"
    assert r.forbidden_chunk_ids == ["f1", "f2"]
    assert result.summary.forbidden_rate == 1.0


@pytest.mark.parametrize(("wanted", "symbols", "expected"), [
    ("createSession", ("createSession",), True),
    ("createSession", ("SessionService.createSession",), True),
    ("createSession", ("recreateSession",), False),
    ("createSession", ("SessionService.recreateSession",), False),
    ("SessionService.createSession", ("auth.SessionService.createSession",), True),
    ("SessionService.createSession", ("OtherService.createSession",), False),
    ("createSession", ("other", "Svc.createSession"), True),
    # separators: Class#method, Class::method, module:func all read as dotted
    ("SessionService#createSession", ("auth.SessionService.createSession",), True),
    ("SessionService.createSession", ("SessionService::createSession",), True),
    ("auth::SessionService::createSession", ("auth.SessionService#createSession",), True),
    ("pkg.mod:func", ("pkg.mod.func",), True),
    ("mod:func", ("pkg.mod.func",), True),
    ("createSession", ("SessionService#createSession",), True),
    ("createSession", ("crate::session::createSession",), True),
    # a qualified target still needs the qualifier, whatever the separator
    ("SessionService#createSession", ("OtherService::createSession",), False),
    ("SessionService::createSession", ("createSession",), False),
    ("Svc:create", ("MySvc.create",), False),
    ("create", ("Svc#recreate",), False),
])
def test_symbol_suffix_on_dotted_boundary(wanted: str, symbols: tuple[str, ...],
                                          expected: bool) -> None:
    assert symbol_matches(wanted, symbols) is expected


def test_symbol_role_and_file_all_matter(tmp_path: Path) -> None:
    target = {"file": "src/auth/svc.ts", "symbol": "createSession", "roles": ["definition"]}
    rankings = {
        "exact": [chunk("x", "src/auth/svc.ts", "SessionService.createSession", "definition")],
        "symbols_list": [chunk("x", "src/auth/svc.ts", role="definition",
                               symbols=["helper", "createSession"])],
        "suffix_only": [chunk("x", "src/auth/svc.ts", "recreateSession", "definition")],
        "wrong_role": [chunk("x", "src/auth/svc.ts", "createSession", "call_site")],
        "wrong_file": [chunk("x", "src/legacy/svc.ts", "createSession", "definition")],
        "no_symbol": [chunk("x", "src/auth/svc.ts", role="definition")],
    }
    result = run_eval(tmp_path, [case(name, [target]) for name in rankings],
                      [attempt(f"a-{n}", n, r) for n, r in rankings.items()])
    assert {c.case_id: c.status for c in result.cases} == {
        "exact": "pass", "symbols_list": "pass", "suffix_only": "fail", "wrong_role": "fail",
        "wrong_file": "fail", "no_symbol": "fail"}


# --- groups, supporting evidence and nDCG -------------------------------------------------


GROUPS = [
    {"id": "alpha", "any_of": [{"file": "src/alpha.py"}]},
    {"id": "beta", "any_of": [{"file": "src/beta.py"}, {"file": "lib/beta/*.py"}]},
    {"id": "example", "required": False, "any_of": [{"file": "test/**/test_*.py"}]},
]


def test_supporting_groups_never_fail_a_case(tmp_path: Path) -> None:
    ranked = [chunk("a", "src/alpha.py"), chunk("b", "lib/beta/x.py")]
    result = run_eval(tmp_path, [case("c", groups=GROUPS)], [attempt("a1", "c", ranked)])
    r = result.by_id()["c"]
    assert r.status == "pass"
    assert r.supporting_found == [] and r.missing_groups == [] and r.group_recall == 1.0


def test_supporting_found_is_reported(tmp_path: Path) -> None:
    ranked = [chunk("t", "test/unit/test_alpha.py"), chunk("a", "src/alpha.py")]
    r = run_eval(tmp_path, [case("c", groups=GROUPS)], [attempt("a1", "c", ranked)]).by_id()["c"]
    assert r.status == "fail"
    assert r.supporting_found == ["example"]
    assert r.missing_groups == ["beta"]
    assert r.group_recall == 0.5
    # the supporting chunk at rank 1 is not a "relevant" hit: only required targets count
    assert r.first_relevant_rank == 2 and r.reciprocal_rank == 0.5


def _dcg(gains: list[int]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_ndcg_by_hand(tmp_path: Path) -> None:
    ranked = [
        chunk("d", "src/decoy.py"),             # 0
        chunk("t", "test/test_x.py"),           # supporting: 1
        chunk("a", "src/alpha.py"),             # required: 2
        chunk("a2", "src/alpha.py"),            # alpha already credited: 0
        chunk("b", "src/beta.py"),              # past cutoff 4: ignored
    ]
    r = run_eval(tmp_path, [case("c", groups=GROUPS, cutoff=4)],
                 [attempt("a1", "c", ranked)]).by_id()["c"]
    expected = (1 / math.log2(3) + 2 / math.log2(4)) / (2 + 2 / math.log2(3) + 1 / math.log2(4))
    assert r.ndcg == pytest.approx(expected, abs=1e-12)
    assert r.first_relevant_rank == 3 and r.group_recall == 0.5


def test_ndcg_ideal_is_truncated_at_the_cutoff(tmp_path: Path) -> None:
    ranked = [chunk("a", "src/alpha.py"), chunk("b", "src/beta.py")]
    r = run_eval(tmp_path, [case("c", groups=GROUPS, cutoff=2)],
                 [attempt("a1", "c", ranked)]).by_id()["c"]
    assert r.ndcg == pytest.approx(1.0, abs=1e-12)  # ideal@2 holds the two required gains only


def test_ndcg_chunk_satisfying_two_groups_credits_the_required_one(tmp_path: Path) -> None:
    groups = [{"id": "req", "any_of": [{"file": "src/*.py"}]},
              {"id": "sup", "required": False, "any_of": [{"file": "src/x.py"}]}]
    ranked = [chunk("x", "src/x.py"), chunk("y", "src/x.py")]
    r = run_eval(tmp_path, [case("c", groups=groups, cutoff=2)],
                 [attempt("a1", "c", ranked)]).by_id()["c"]
    assert r.ndcg == pytest.approx(_dcg([2, 1]) / _dcg([2, 1]), abs=1e-12)
    assert r.supporting_found == ["sup"]


def test_missing_case_has_zero_ndcg(tmp_path: Path) -> None:
    result = run_eval(tmp_path, [case("c", groups=GROUPS)], [])
    assert result.by_id()["c"].ndcg == 0.0 and result.summary.ndcg == 0.0


# --- aggregates and slices ----------------------------------------------------------------


def test_aggregates_and_slices_with_counts(tmp_path: Path) -> None:
    ts_def = {"file": "src/auth/svc.ts", "symbol": "f", "roles": ["definition"]}
    py_any = {"file": "src/pay/api.py"}
    cases = [
        case("p1", [ts_def], query_class="exact_identifier", tags={"area": "auth"}),
        case("p2", [ts_def], query_class="exact_identifier", tags={"area": "auth", "risk": "high"}),
        case("f1", [py_any], query_class="descriptive", tags={"area": "pay"}),
        case("m1", [py_any], query_class="descriptive", tags={"area": "pay", "risk": "high"}),
        case("i1", [py_any], query_class="descriptive", tags={"area": "pay"}),
    ]
    good_ts = [chunk("d", "src/x.ts"), chunk("t", "src/auth/svc.ts", "f", "definition")]
    result = run_eval(tmp_path, cases, [
        attempt("a1", "p1", good_ts),
        attempt("a2", "p2", good_ts[::-1]),
        attempt("a3", "f1", [chunk("x", "src/pay/other.py"), chunk("y", "src/legacy/z.py")]),
        attempt("a5", "i1", [chunk("x", "src/pay/api.py")], with_manifest=False),
    ], defaults={"revision": SHA_A, "cutoff": 5, "forbidden": ["src/legacy/"]})
    s = result.summary
    assert (s.cases, s.scored, s.pass_, s.fail, s.invalid, s.missing) == (5, 4, 2, 1, 1, 1)
    assert s.hit_rate == pytest.approx(2 / 4)
    assert s.mrr == pytest.approx((0.5 + 1.0) / 4)
    assert s.mean_group_recall == pytest.approx(2 / 4)
    assert s.forbidden_rate == pytest.approx(1 / 4)
    assert s.revision_mismatch_rate == 0.0

    slices = {sl.key: sl for sl in result.slices}
    assert set(slices) == {
        "query_class=exact_identifier", "query_class=descriptive", "tag:area=auth",
        "tag:area=pay", "tag:risk=high", "language=typescript", "language=python",
        "role=definition", "role=any"}
    qc = slices["query_class=exact_identifier"]
    assert (qc.dimension, qc.value) == ("query_class", "exact_identifier")
    assert (qc.metrics.cases, qc.metrics.scored, qc.metrics.hit_rate) == (2, 2, 1.0)
    desc = slices["query_class=descriptive"].metrics
    assert (desc.cases, desc.scored, desc.invalid, desc.missing, desc.hit_rate) == (3, 2, 1, 1, 0.0)
    risk = slices["tag:risk=high"].metrics
    assert (risk.cases, risk.scored, risk.hit_rate) == (2, 2, 0.5)
    assert slices["language=typescript"].metrics.cases == 2
    assert slices["language=python"].metrics.cases == 3
    assert slices["role=definition"].metrics.cases == 2
    assert slices["role=any"].metrics.forbidden_rate == pytest.approx(1 / 2)
    by = result.by_id()
    assert "tag:risk=high" in by["m1"].slices and "language=python" in by["m1"].slices


def test_no_scored_cases_gives_no_rates(tmp_path: Path) -> None:
    result = run_eval(tmp_path, [case("c", [{"file": "a.py"}])],
                      [attempt("a1", "c", [chunk("x", "a.py")], with_manifest=False)])
    s = result.summary
    assert s.scored == 0 and s.invalid == 1
    assert (s.hit_rate, s.mrr, s.mean_group_recall, s.ndcg, s.forbidden_rate,
            s.revision_mismatch_rate) == (None, None, None, None, None, None)


def test_retry_cycle_and_duplicate_attempt_ids_are_warned(tmp_path: Path) -> None:
    good, bad = [chunk("ok", "src/a.py")], [chunk("no", "src/zzz.py")]
    result = run_eval(tmp_path, [case("c", [{"file": "src/a.py"}]),
                                 case("d", [{"file": "src/a.py"}])], [
        attempt("a1", "c", bad, retry_of="a2"),
        attempt("a2", "c", good, retry_of="a1"),
        attempt("x", "d", good),
        attempt("x", "d", bad, retry_of="x"),
    ])
    by = result.by_id()
    assert by["c"].attempt_ids == ["a1", "a2"]
    assert any("'c'" in w and "0 attempts are final" in w for w in result.warnings)
    assert any("duplicate attempt id" in w and "'x'" in w for w in result.warnings)
