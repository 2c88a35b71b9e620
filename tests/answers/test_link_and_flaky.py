"""Answers linked to their retrieval (planted broken links, each answer class) and repeated
attempts compared (planted nondeterminism found by ``codegold flaky``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.evaluate.answers import AnswerFinding, link_answers
from codegold.evaluate.flaky import find_flaky
from codegold.model import iter_attempts, load_cases
from codegold.model.answers import iter_answers
from goldkit import SHA_B, attempt, case, chunk, manifest, write_attempts, write_cases

GOOD = chunk("good", "src/auth/session.ts", "createSession", "definition")
OTHER = chunk("other", "src/cart/cart.ts", "addItem", "definition")
LEGACY = chunk("legacy", "src/legacy/session.ts", "createSession", "definition")
OLD_REV = chunk("old", "src/auth/session.ts", "createSession", "definition", revision=SHA_B)


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    cases = write_cases(tmp_path, [
        case("c1", [{"file": "src/auth/session.ts", "symbol": "createSession"}],
             forbidden=["src/legacy/"]),
        case("c2", [{"file": "src/cart/cart.ts", "symbol": "addItem"}]),
    ])
    attempts = write_attempts(tmp_path, [
        attempt("a1", "c1", [GOOD, OTHER, LEGACY, OLD_REV]),
        attempt("a1-new", "c1", [OTHER, GOOD]),
        attempt("a2", "c2", [OTHER, GOOD]),
        attempt("a-incomplete", "c2", [OTHER], with_manifest=manifest(complete=False)),
        attempt("a-error", "c2", [], error="timed out"),
    ])
    return cases, attempts


def _answers(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def _run(tmp_path: Path, records: list[dict[str, object]]) -> dict[str, AnswerFinding]:
    cases, attempts = _inputs(tmp_path)
    result = link_answers(load_cases(str(cases)), iter_attempts(str(attempts)),
                          iter_answers(str(_answers(tmp_path, records))))
    return {f.answer_id: f for f in result.answers}


def test_each_answer_class(tmp_path: Path) -> None:
    found = _run(tmp_path, [
        {"answer_id": "ignored", "case_id": "c1", "attempt_id": "a1", "context_ids": ["good"],
         "verdict": "fail", "cited": [{"file": "src/auth/session.ts", "symbol": "createSession"}]},
        {"answer_id": "absent", "case_id": "c1", "attempt_id": "a1", "context_ids": ["other"],
         "verdict": "fail"},
        {"answer_id": "stale-forbidden", "case_id": "c1", "attempt_id": "a1",
         "context_ids": ["good", "legacy"], "verdict": "fail"},
        {"answer_id": "stale-revision", "case_id": "c1", "attempt_id": "a1",
         "context_ids": ["old"], "verdict": "fail"},
        {"answer_id": "lucky", "case_id": "c2", "attempt_id": "a2", "context_ids": ["good"],
         "verdict": "pass"},
    ])
    assert found["ignored"].answer_class == "evidence_ignored"
    assert found["ignored"].route == "answer_ignored_evidence"
    assert found["ignored"].cited_evidence is True
    assert found["absent"].answer_class == "evidence_absent"
    assert found["stale-forbidden"].answer_class == "evidence_stale"
    assert found["stale-revision"].answer_class == "evidence_stale"
    assert found["lucky"].passed_without_evidence is True


def test_planted_broken_linkage_is_never_classified(tmp_path: Path) -> None:
    found = _run(tmp_path, [
        {"answer_id": "first", "case_id": "c1", "attempt_id": "a1", "context_ids": ["good"],
         "verdict": "fail"},
        {"answer_id": "missing-attempt", "case_id": "c1", "attempt_id": "nope",
         "context_ids": ["good"], "verdict": "fail"},
        {"answer_id": "reused-but-new", "case_id": "c1", "attempt_id": "a1-new",
         "retry_of": "first", "retrieval": "reused", "context_ids": ["good"], "verdict": "fail"},
        {"answer_id": "new-but-same", "case_id": "c1", "attempt_id": "a1", "retry_of": "first",
         "retrieval": "new", "context_ids": ["good"], "verdict": "fail"},
        {"answer_id": "retry-unsaid", "case_id": "c1", "attempt_id": "a1", "retry_of": "first",
         "context_ids": ["good"], "verdict": "fail"},
        {"answer_id": "incomplete", "case_id": "c2", "attempt_id": "a-incomplete",
         "context_ids": ["other"], "verdict": "fail"},
        {"answer_id": "errored", "case_id": "c2", "attempt_id": "a-error", "verdict": "fail"},
        {"answer_id": "other-case", "case_id": "c2", "attempt_id": "a1", "verdict": "fail"},
        {"answer_id": "good-retry", "case_id": "c1", "attempt_id": "a1-new", "retry_of": "first",
         "retrieval": "new", "context_ids": ["good", "injected-x"], "verdict": "fail"},
    ])
    broken = {k for k, f in found.items() if f.linkage == "broken"}
    assert broken == {"missing-attempt", "reused-but-new", "new-but-same", "retry-unsaid",
                      "incomplete", "errored", "other-case"}
    assert all(found[k].answer_class is None for k in broken)
    assert found["good-retry"].injected_ids == ["injected-x"]
    assert found["good-retry"].answer_class == "evidence_ignored"


def test_link_cli_exit_codes(tmp_path: Path) -> None:
    cases, attempts = _inputs(tmp_path)
    answers = _answers(tmp_path, [{"answer_id": "x", "case_id": "c1", "attempt_id": "nope",
                                   "verdict": "fail"}])
    done = CliRunner().invoke(cli, ["link", str(cases), str(attempts), str(answers)])
    assert done.exit_code == 1 and "broken x" in done.output
    allowed = CliRunner().invoke(cli, ["link", str(cases), str(attempts), str(answers),
                                       "--allow-broken"])
    assert allowed.exit_code == 0
    bad = _answers(tmp_path, [{"answer_id": "x", "case_id": "c1", "attempt_id": "a1",
                               "verdict": "maybe"}])
    invalid = CliRunner().invoke(cli, ["link", str(cases), str(attempts), str(bad)])
    assert invalid.exit_code == 2 and "answers.jsonl:1" in invalid.output


def test_flaky_finds_planted_random_tie_breaks(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [case(f"c{n}", [{"file": f"src/f{n}.py"}], cutoff=2)
                                   for n in range(6)])
    rng = random.Random(4)
    records = []
    for n in range(6):
        tied = [chunk(f"t{n}-{i}", f"src/f{n}.py" if i == 0 else f"src/x{i}.py", score=1.0)
                for i in range(4)]
        for repeat in range(3):
            order = list(tied)
            if n % 2:  # odd cases: ties broken at random, as a careless retriever would
                rng.shuffle(order)
            records.append(attempt(f"r{repeat}/c{n}", f"c{n}", order,
                                   repeat_group=f"c{n}"))
    attempts = write_attempts(tmp_path, records)
    report = find_flaky(load_cases(str(cases)), iter_attempts(str(attempts)))
    assert report.groups_compared == 6
    flaky = {f.case_id for f in report.flaky}
    assert flaky <= {"c1", "c3", "c5"} and len(flaky) >= 2
    assert all("tie" in " ".join(f.likely_sources) for f in report.flaky)
    done = CliRunner().invoke(cli, ["flaky", str(cases), str(attempts)])
    assert done.exit_code == 1 and "flaky c" in done.output
