"""Hypothesis invariants of scoring and gating (STYLE.md "Tests four ways")."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegold.evaluate import evaluate_attempts, score_case
from codegold.evaluate.match import GroupMatcher
from codegold.evaluate.score import CaseScorer
from codegold.gate import Policy, Rule, decide
from codegold.gate.policy import Baseline
from codegold.model import (
    Aggregates,
    Attempt,
    Case,
    CaseResult,
    CaseSet,
    Chunk,
    ChunkerInfo,
    EvidenceGroup,
    Manifest,
    Target,
)

SHA_A, SHA_B = "a" * 40, "b" * 40
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

GROUPS = (
    EvidenceGroup(id="alpha", required=True, any_of=(
        Target(file="src/alpha.py", symbol="make", roles=("definition",)),)),
    EvidenceGroup(id="beta", required=True, any_of=(Target(file="lib/beta/*.py"),)),
    EvidenceGroup(id="example", required=False, any_of=(Target(file="test/**/test_*.py"),)),
)


def _case(case_id: str, cutoff: int) -> Case:
    return Case(id=case_id, query="q", repository="acme/shop", revision=SHA_A, cutoff=cutoff,
                query_class="descriptive", groups=GROUPS, forbidden=("src/legacy/",),
                tags={"risk": "high"})


def _c(cid: str, file: str, symbol: str | None = None, role: str | None = None,
       revision: str | None = SHA_A) -> Chunk:
    return Chunk(chunk_id=cid, file=file, symbol=symbol, role=role, revision=revision)


POOL: tuple[Chunk, ...] = (
    _c("alpha1", "src/alpha.py", "Factory.make", "definition"),
    _c("alpha2", "src/alpha.py", "make", "definition"),
    _c("alpha-callsite", "src/alpha.py", "make", "call_site"),
    _c("alpha-remake", "src/alpha.py", "remake", "definition"),
    _c("beta1", "lib/beta/x.py"),
    _c("beta2", "lib/beta/y.py", "y", "definition"),
    _c("beta-deep", "lib/beta/deep/z.py"),
    _c("example1", "test/test_alpha.py", role="test"),
    _c("example2", "test/unit/test_beta.py", role="test"),
    _c("legacy", "src/legacy/alpha.py", "make", "definition"),
    _c("stale", "src/other.py", revision=SHA_B),
    _c("noise1", "src/noise.py"),
    _c("noise2", "docs/readme.md"),
    _c("noise3", "src/alpha_test.py"),
)
_MATCHER: GroupMatcher = CaseScorer(_case("x", 1)).matcher
ACCEPTABLE = frozenset(c.chunk_id for c in POOL
                       if any(GROUPS[i].required for i in _MATCHER.satisfied(c)))
MANIFEST = Manifest(repository="acme/shop", revision=SHA_A, index_build_id="b1",
                    chunker=ChunkerInfo(name="codegold", version="1"), complete=True)

rankings = st.lists(st.sampled_from(POOL), max_size=len(POOL), unique_by=lambda c: c.chunk_id)
cutoffs = st.integers(min_value=1, max_value=10)


def _attempt(case_id: str, ranked: list[Chunk], *, manifest: Manifest | None = MANIFEST,
             attempt_id: str | None = None) -> Attempt:
    return Attempt(attempt_id=attempt_id or f"a-{case_id}", case_id=case_id, ranked=ranked,
                   manifest=manifest)


def _rates(m: Aggregates) -> list[float | None]:
    return [m.hit_rate, m.mean_group_recall, m.mrr, m.ndcg, m.forbidden_rate,
            m.revision_mismatch_rate]


@st.composite
def run_inputs(draw: st.DrawFn) -> tuple[CaseSet, list[Attempt]]:
    n = draw(st.integers(min_value=1, max_value=6))
    cases = tuple(_case(f"c{i}", draw(cutoffs)) for i in range(n))
    attempts: list[Attempt] = []
    for c in cases:
        kind = draw(st.sampled_from(("ok", "ok", "ok", "missing", "no-manifest", "error")))
        if kind == "missing":
            continue
        attempts.append(Attempt(
            attempt_id=f"a-{c.id}", case_id=c.id, ranked=draw(rankings),
            manifest=None if kind == "no-manifest" else MANIFEST,
            error="boom" if kind == "error" else None))
    return CaseSet(path="cases.yaml", sha256="0" * 64, cases=cases), attempts


@SETTINGS
@given(run_inputs())
def test_every_rate_lies_between_zero_and_one(data: tuple[CaseSet, list[Attempt]]) -> None:
    case_set, attempts = data
    result = evaluate_attempts(case_set, attempts)
    for metrics in [result.summary, *(s.metrics for s in result.slices)]:
        assert metrics.scored == metrics.pass_ + metrics.fail + metrics.missing
        assert metrics.cases == metrics.scored + metrics.invalid
        for value in _rates(metrics):
            assert value is None or 0.0 <= value <= 1.0
            assert (value is None) == (metrics.scored == 0)
    for r in result.cases:
        for value in (r.reciprocal_rank, r.group_recall, r.ndcg):
            assert 0.0 <= value <= 1.0 + 1e-12


@SETTINGS
@given(rankings, cutoffs)
def test_group_recall_and_hit_never_fall_as_k_grows(ranked: list[Chunk], k: int) -> None:
    attempt = _attempt("c", ranked)
    lower = score_case(_case("c", k), attempt)
    higher = score_case(_case("c", k + 1), attempt)
    assert higher.group_recall >= lower.group_recall
    assert higher.hit >= lower.hit
    assert set(higher.missing_groups) <= set(lower.missing_groups)
    assert set(lower.supporting_found) <= set(higher.supporting_found)


def _decided_part(r: CaseResult) -> CaseResult:
    # ``ranked`` keeps a few near misses past the cutoff and ``first_relevant_rank_any_depth``
    # looks at the whole ranking on purpose, and ``group_ranks`` (trend figures) a little
    # past it; everything else must ignore what lies past k.
    return msgspec.structs.replace(r, ranked=r.ranked[: r.cutoff],
                                   first_relevant_rank_any_depth=None,
                                   group_ranks=[g if g is not None and g <= r.cutoff else None
                                                for g in r.group_ranks])


@SETTINGS
@given(rankings, cutoffs, st.randoms(use_true_random=False))
def test_reordering_beyond_the_cutoff_never_changes_the_result(
        ranked: list[Chunk], k: int, rnd: object) -> None:
    import random

    assert isinstance(rnd, random.Random)
    tail = ranked[k:]
    rnd.shuffle(tail)
    dropped = tail[: rnd.randint(0, len(tail))]
    case = _case("c", k)
    before = score_case(case, _attempt("c", ranked))
    for reordered in (ranked[:k] + tail, ranked[:k] + dropped, ranked[:k]):
        after = score_case(case, _attempt("c", reordered))
        assert _decided_part(after) == _decided_part(before)


@st.composite
def gate_scenarios(draw: st.DrawFn) -> tuple[CaseSet, list[Attempt], list[Attempt], Policy,
                                            CaseSet, list[Attempt]]:
    n = draw(st.integers(min_value=1, max_value=5))
    cases = tuple(_case(f"c{i}", draw(cutoffs)) for i in range(n))
    attempts = [_attempt(c.id, draw(rankings)) for c in cases]
    # pick a case with two acceptable chunks inside its cutoff and swap them
    swappable = [(i, [p for p, ch in enumerate(a.ranked[: cases[i].cutoff])
                      if ch.chunk_id in ACCEPTABLE]) for i, a in enumerate(attempts)]
    swappable = [(i, ps) for i, ps in swappable if len(ps) >= 2]
    if not swappable:
        forced = draw(st.integers(min_value=0, max_value=n - 1))
        if cases[forced].cutoff < 2:  # two chunks must fit inside the cutoff
            cases = (*cases[:forced], _case(cases[forced].id, 2), *cases[forced + 1:])
        pair = draw(st.permutations(sorted(ACCEPTABLE)))[:2]
        by_id = {c.chunk_id: c for c in POOL}
        rest = [c for c in attempts[forced].ranked if c.chunk_id not in pair]
        ranked = [by_id[pair[0]], *rest]
        at = draw(st.integers(min_value=1, max_value=max(1, cases[forced].cutoff - 1)))
        ranked.insert(min(at, len(ranked)), by_id[pair[1]])
        attempts[forced] = _attempt(cases[forced].id, ranked)
        swappable = [(forced, [p for p, ch in enumerate(ranked[: cases[forced].cutoff])
                               if ch.chunk_id in ACCEPTABLE])]
    index, positions = draw(st.sampled_from(swappable))
    assert len(positions) >= 2
    x, y = draw(st.permutations(positions))[:2]
    ranked = list(attempts[index].ranked)
    ranked[x], ranked[y] = ranked[y], ranked[x]
    swapped = list(attempts)
    swapped[index] = _attempt(cases[index].id, ranked)

    rules = [Rule(metric="hit_rate", min=draw(st.sampled_from((0.0, 0.3, 0.5, 0.8, 1.0))))]
    if draw(st.booleans()):
        rules.append(Rule(metric="forbidden_rate", max=draw(st.sampled_from((0.0, 0.2, 0.5)))))
    if draw(st.booleans()):
        rules.append(Rule(metric="mean_group_recall", min=0.5, slice="tag:risk=high"))
    if draw(st.booleans()):
        rules.append(Rule(metric="mrr", min=draw(st.sampled_from((0.2, 0.5, 0.9)))))
    zero = draw(st.lists(st.sampled_from(("forbidden_sources", "revision_mismatches",
                                          "invalid_cases", "missing_cases")), unique=True))
    policy = Policy(format=1, rules=rules, zero_tolerance=zero,  # type: ignore[arg-type]
                    baseline=Baseline(results="base.json",
                                      max_new_failures=draw(st.integers(0, 2))))
    base_attempts = [_attempt(c.id, draw(rankings)) for c in cases]
    case_set = CaseSet(path="cases.yaml", sha256="0" * 64, cases=cases)
    return case_set, attempts, swapped, policy, case_set, base_attempts


@SETTINGS
@given(gate_scenarios())
def test_swapping_two_acceptable_chunks_never_flips_a_gate(
        scenario: tuple[CaseSet, list[Attempt], list[Attempt], Policy, CaseSet, list[Attempt]],
) -> None:
    case_set, attempts, swapped, policy, base_set, base_attempts = scenario
    baseline = evaluate_attempts(base_set, base_attempts)
    before = decide(evaluate_attempts(case_set, attempts), policy, baseline)
    after = decide(evaluate_attempts(case_set, swapped), policy, baseline)
    assert after.passed == before.passed
    assert [(c.rule, c.passed, c.cases) for c in after.checks] == \
        [(c.rule, c.passed, c.cases) for c in before.checks]
