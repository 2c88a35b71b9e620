"""The demo's scripted answer stage (no model): answers for the live run's attempts,
linked and classified as `codegold link` would."""

from __future__ import annotations

from pathlib import Path

import msgspec

from codegold.evaluate.answers import ROUTES, link_answers
from codegold.model import Attempt, InputRef, RunResult, iter_attempts, load_cases
from codegold.model.answers import Answer, encode_answer
from codegold.plumbing.outputs import write_text_atomic
from codegold.workflows.steps import Done

# The planted broken link: an answer naming an attempt that was never made.
BROKEN_ANSWER_ID = "demo-answer/broken-link"


def scripted_answers(result: RunResult, attempts: dict[str, Attempt]) -> list[Answer]:
    """The demo's scripted answerer (no model): one answer per live, non-error attempt.

    Its context is the first K ranked chunk ids (K: the case's cutoff), as an answer stage
    would receive them. The fixed rule: the answerer reads the whole context but trusts
    only its top chunk, so it answers correctly exactly when retrieval passed *and* the
    first chunk is relevant evidence (first relevant rank 1). That makes every class
    occur: a fail with forbidden or other-revision context is ``evidence_stale``, one
    without the required evidence ``evidence_absent``, and one that had all the evidence
    below rank 1 ``evidence_ignored``. One more answer, for the first case, names an
    attempt that does not exist: the planted broken link.
    """
    answers: list[Answer] = []
    for case in result.cases:
        attempt = attempts.get(case.attempt_id or "")
        if attempt is None or attempt.error is not None:
            continue
        context = [chunk.chunk_id for chunk in attempt.ranked[:case.cutoff]]
        passed = case.status == "pass" and case.first_relevant_rank == 1
        answers.append(Answer(answer_id=f"demo-answer/{case.case_id}", case_id=case.case_id,
                              attempt_id=attempt.attempt_id, context_ids=context,
                              verdict="pass" if passed else "fail", grader="scripted"))
    if answers:
        first = answers[0]
        answers.append(Answer(answer_id=BROKEN_ANSWER_ID, case_id=first.case_id,
                              attempt_id=f"{first.attempt_id}#never-made",
                              context_ids=first.context_ids, verdict="fail", grader="scripted"))
    return answers


def answer_and_link(live: RunResult, attempts_path: Path, cases_path: Path, out: Path) -> Done:
    """Answer every live attempt with the scripted answerer, link and classify the answers,
    write answers.jsonl and answer-results.json into ``out``, and tabulate the classes."""
    attempts = {a.attempt_id: a for a in iter_attempts(str(attempts_path))}
    answers = scripted_answers(live, attempts)
    answers_path = out / "answers.jsonl"
    write_text_atomic(answers_path, "".join(encode_answer(a).decode() + "\n" for a in answers))
    case_set = load_cases(str(cases_path))
    linked = link_answers(case_set, attempts.values(), answers,
                          inputs={"cases": InputRef(path=case_set.path, sha256=case_set.sha256)})
    results_path = out / "answer-results.json"
    write_text_atomic(results_path,
                      (msgspec.json.format(msgspec.json.encode(linked), indent=2) + b"\n").decode())
    summary = linked.summary
    detail = (f"{summary.answers} answers: {summary.linked} linked, {summary.broken} broken; "
              f"{summary.passed} pass, {summary.failed} fail")
    notes = [f"{name:17} {count:3}  -> {ROUTES[name]}" for name, count in summary.classes.items()]
    notes += [f"broken link: {f.answer_id}: {'; '.join(f.problems)}"
              for f in linked.answers if f.linkage == "broken"]
    return Done(detail, (str(answers_path), str(results_path)), tuple(notes))
