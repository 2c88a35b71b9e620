"""The check functions one by one: order, purity, and the identifier tokenizer."""

from __future__ import annotations

import dataclasses

import pytest
from fakeindex import FakeIndex, entry, ichunk, sdef

from codegold.diagnose.causes import CAUSE_ORDER
from codegold.diagnose.checks import (
    CASE_CHECKS,
    GROUP_CHECKS,
    RETURNED_CHECKS,
    TARGET_CHECKS,
    CaseFacts,
    Finding,
    identifiers,
    look_up,
    query_rewrite_loss,
    tokenize,
)
from codegold.diagnose.engine import diagnose_case
from codegold.model import Attempt, Query
from runfactory import chunk, make_case, make_result


def test_checks_run_in_the_documented_cause_order() -> None:
    assert [c.__name__ for c in CASE_CHECKS] == ["invalid_run", "revision_mismatch",
                                                 "label_forbids_its_target"]  # a stale_label
    names = [check.__name__ for check in (*TARGET_CHECKS, *RETURNED_CHECKS)]
    names.insert(len(names), "query_rewrite_loss")
    names += [check.__name__ for check in GROUP_CHECKS]
    assert names == sorted(names, key=CAUSE_ORDER.__getitem__)
    assert names == ["stale_label", "excluded_by_policy", "not_chunked", "metadata_mismatch",
                     "split_context", "query_rewrite_loss", "retrieval_miss", "reranker_demotion",
                     "below_cutoff"]


def _facts(raw: str, rewritten: str | None) -> CaseFacts:
    result = make_result(make_case("q", query=raw))
    attempt = Attempt(attempt_id="q-a1", case_id="q", query=Query(raw=raw, rewritten=rewritten))
    return CaseFacts(result=result, attempt=attempt, index=None, repo=None)


@pytest.mark.parametrize(("raw", "rewritten", "lost"), [
    # a backticked word is an identifier; "subtotal" does not keep it
    ("Where is `total` computed?", "where is subtotal computed", ["total"]),
    ("Where is `total` computed?", "total computation", []),
    # prose abbreviations are not identifiers
    ("retries, e.g. on timeouts, i.e. 504s", "retries timeouts", []),
    ("what does e.g. mean vs. etc. here", "meaning", []),
    # code-shaped words are, and must come back whole
    ("why does create_session fail", "why does session creation fail", ["create_session"]),
    ("where does RetryPolicy read config", "retry policy config", ["RetryPolicy"]),
    ("open src/auth/login.ts please", "login.ts", ["src/auth/login.ts"]),
    ("open src/auth/login.ts please", "src/auth/login.ts", []),
    ("Flask._find_error_handler lookup", "_find_error_handler lookup", ["Flask._find_error_handler"]),
    ("what calls parse_signature()?", "callers of parse_signature", []),
    ("who reads sha256 digests", "who reads digests", ["sha256"]),
    ("a plain question about sessions", "sessions", []),
    # a word joined to a number (an issue key, an encoding): its words are what a search
    # keeps; the number alone is no search term
    ("fixes mem leak relating to issue-1834 (#1893)", "fixes mem leak relating issue", []),
    ("decode utf-8 bodies", "decode utf bodies", []),
    ("see issue-1834", "see", ["issue-1834"]),
    ("why does retry_policy-2 fail", "why fail", ["retry_policy-2"]),
    # a name kept in lower case is kept: search engines read words in lower case
    ("cleanup in CMake for finding catch", "cmake finding catch", []),
    ("Fix UTF-8 config filenames in CLI11", "utf config filenames cli11", []),
    ("where does RetryPolicy read config", "retrypolicy config", []),
    # a link is an address, not a name the search needed
    ("see https://github.com/apple/swift-package-manager/issues/7218 for the crash", "crash", []),
    ("see https://example.org/a/b and src/auth/login.ts", "login", ["src/auth/login.ts"]),
])
def test_rewrite_loss_compares_identifier_tokens(raw: str, rewritten: str, lost: list[str]) -> None:
    found = query_rewrite_loss(_facts(raw, rewritten))
    if not lost:
        assert found is None
    else:
        assert isinstance(found, Finding) and found.cause == "query_rewrite_loss"
        assert found.summary == f"the rewrite dropped {', '.join(lost)}"


def test_one_tokenizer_for_both_queries() -> None:
    assert [t.text for t in tokenize("use `a.b` and x_y, e.g. now.")] == [
        "use", "a.b", "and", "x_y", "e.g", "now"]
    assert identifiers("use `a.b` and x_y, e.g. now.") == ["a.b", "x_y"]
    assert identifiers("`total` and total") == ["total"]


def test_without_a_rewrite_the_check_says_it_did_not_run() -> None:
    outcome = query_rewrite_loss(_facts("create_session", None))
    assert outcome is not None and not isinstance(outcome, Finding)
    assert outcome.line == "query_rewrite_loss: the attempt records no rewritten query"


def test_diagnosis_leaves_the_facts_it_was_given_alone() -> None:
    svc = "src/auth/session.py"
    index = FakeIndex([ichunk("svc-1", svc, 1, 20, symbol="SessionService.createSession")],
                      [entry(svc)], [sdef("SessionService.createSession", svc, 2, 20, "svc-1")])
    case = make_case("c", symbol="destroySession")
    facts = CaseFacts(result=make_result(case), attempt=None, index=index, repo=None)
    def snapshot() -> tuple[object, ...]:
        return (facts.result, facts.attempt, facts.not_run, facts.definitions, facts.inventory)

    before = snapshot()
    first = diagnose_case(facts)
    assert snapshot() == before and facts.not_run == ()
    assert diagnose_case(facts) == first
    assert first.finding.cause == "stale_label"
    assert "did you mean: SessionService.createSession" in " ".join(first.finding.evidence)
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.not_run = ("x",)  # type: ignore[misc]
    looked = look_up(facts, case.groups[0].any_of[0])
    assert looked.definitions == () and looked.present == (svc,)


def test_a_returned_chunk_that_covers_the_definition_with_other_metadata() -> None:
    svc = "src/auth/session.py"
    index = FakeIndex([ichunk("svc-1", svc, 1, 20, symbol="SessionService.createSession")],
                      [entry(svc)], [sdef("SessionService.createSession", svc, 2, 20, "svc-1")])
    wrong = chunk("svc-1", svc, symbol="SessionService", role="definition", start=1, end=20)
    result = make_result(make_case("m"), ranked=[wrong])
    attempt = Attempt(attempt_id="m-a1", case_id="m", ranked=[wrong])
    found = diagnose_case(CaseFacts(result=result, attempt=attempt, index=index, repo=None)).finding
    assert found.cause == "metadata_mismatch"
    assert "labelled symbol=SessionService" in found.summary
