"""The bundled end-to-end demo: the main job on the acme-shop example, offline.

:func:`run_demo` builds the example repository (``examples/acme-shop``), indexes it at its
two pinned revisions, runs the gold cases through the reference retriever, scores them,
replays the recorded run of the three classic retrieval failures, diagnoses the failures,
gates, and renders the HTML report. Each step is one call of the workflow the matching
command makes (``codegold index``, ``run``, ``eval``, ``diagnose``, ``gate``, ``report``),
and reports a :class:`Step` through ``on_step`` as it finishes; a step that fails is
recorded with its error and the steps that need its output are skipped with the reason,
so the outcome always says what ran. Only the scripted answer stage is the demo's own.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Literal

import msgspec

from codegold import workflows
from codegold.errors import CodegoldError, InputError
from codegold.evaluate.answers import ROUTES, link_answers
from codegold.gate import Verdict
from codegold.model import Attempt, InputRef, RunResult, iter_attempts, load_cases
from codegold.model.answers import Answer, encode_answer
from codegold.plumbing.outputs import write_bytes_atomic, write_text_atomic

StepStatus = Literal["done", "skipped", "failed"]
MARKER = ".codegold-demo"
# What the demo writes inside OUT; only these are removed when a demo folder is reused.
OWNED = ("repo", "indexes", "attempts.jsonl", "results.json", "recorded", "diagnosis",
         "gate.json", "report.html", "summary.md", "junit.xml", "answers.jsonl",
         "answer-results.json")
SPEC_EXAMPLES = ("session-expiry", "webhook-parse-signature", "retry-policy-definition")


@dataclass(frozen=True)
class Step:
    """One finished step: what ran, how it ended, what it wrote."""

    name: str
    status: StepStatus
    detail: str
    outputs: tuple[str, ...] = ()
    seconds: float = 0.0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseLine:
    """One worked example's outcome, as the demo's closing summary shows it."""

    run: str  # "live" or "recorded"
    case_id: str
    status: str
    first_relevant_rank: int | None
    missing_groups: tuple[str, ...]
    forbidden: tuple[str, ...]  # "path (chunk ID, rank N)"
    cause: str | None = None
    owner: str | None = None


@dataclass(frozen=True)
class DemoOutcome:
    out: Path
    steps: tuple[Step, ...]
    results: Path | None
    report: Path | None
    gate_passed: bool | None
    live: bool
    examples: tuple[CaseLine, ...] = field(default=())

    @property
    def skipped(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.status == "skipped")

    @property
    def failed(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.status == "failed")


def default_example_dir() -> Path:
    """``examples/acme-shop`` of the source checkout this codegold runs from."""
    return Path(__file__).resolve().parents[3] / "examples" / "acme-shop"


def _load_script(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("codegold_demo_build_example", path)
    if spec is None or spec.loader is None:
        raise InputError("cannot load the example generator", path=str(path))
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the script executes
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def prepare_out(out: Path) -> None:
    """Make ``out`` ready: new, empty, or a folder an earlier demo wrote (then cleaned)."""
    if out.exists() and not out.is_dir():
        raise InputError("the demo output must be a folder", path=str(out))
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise InputError("folder is not empty and was not written by `codegold demo`; "
                             "give a new --out", path=str(out))
        for name in OWNED:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by `codegold demo`; safe to delete\n", encoding="utf-8")


@dataclass(frozen=True)
class _Done:
    """What a step that finished hands back: one line, the files it wrote, notes."""

    detail: str
    outputs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass
class _State:
    """What the steps pass along. Each step reads what earlier steps left and records its
    own product here; a step whose input is missing is skipped with the reason."""

    example: Path
    out: Path
    workers: int
    shas: dict[str, str] = field(default_factory=dict)  # tag -> sha, in build order
    indexes: dict[str, Path] = field(default_factory=dict)  # sha -> index folder
    live: RunResult | None = None
    recorded: RunResult | None = None
    diagnoses: dict[str, tuple[str, str]] = field(default_factory=dict)  # "run:case" -> cause, owner
    diagnosis_dirs: dict[str, Path] = field(default_factory=dict)  # "live"/"recorded" -> folder
    verdict: Verdict | None = None
    report: Path | None = None

    @property
    def repo(self) -> Path:
        return self.out / "repo"

    @property
    def policy_path(self) -> Path:
        return self.example / "policy.yaml"

    @property
    def main(self) -> tuple[str, RunResult] | None:
        """The run the gate and report judge: the live one, else the recorded replay."""
        if self.live is not None:
            return "live", self.live
        if self.recorded is not None:
            return "recorded", self.recorded
        return None


Work = Callable[[_State], _Done]


class _Steps:
    """Runs named steps in order, timing them; a CodegoldError fails that step only."""

    def __init__(self, state: _State, on_step: Callable[[Step], None] | None,
                 on_start: Callable[[str], None] | None) -> None:
        self.state = state
        self.done: list[Step] = []
        self.on_step = on_step
        self.on_start = on_start

    def _record(self, step: Step) -> Step:
        self.done.append(step)
        if self.on_step is not None:
            self.on_step(step)
        return step

    def run(self, name: str, work: Work, *, unless: str | None = None) -> Step:
        """Run ``work``, or record it skipped when ``unless`` (the reason) is given."""
        if unless is not None:
            return self._record(Step(name=name, status="skipped", detail=unless))
        if self.on_start is not None:
            self.on_start(name)
        started = time.perf_counter()
        try:
            done = work(self.state)
        except CodegoldError as err:
            return self._record(Step(name=name, status="failed", detail=str(err),
                                     seconds=round(time.perf_counter() - started, 2)))
        return self._record(Step(name=name, status="done", detail=done.detail, outputs=done.outputs,
                                 seconds=round(time.perf_counter() - started, 2), notes=done.notes))


def _summary_line(result: RunResult) -> str:
    s = result.summary
    hit = f"{s.hit_rate:.2f}" if s.hit_rate is not None else "-"
    return (f"{s.cases} cases: {s.pass_} pass, {s.fail} fail, {s.invalid} invalid, "
            f"{s.missing} missing; hit rate {hit}")


# --- the steps, in the order the demo runs them: each one workflow call -----------------


def build_example_repository(state: _State) -> _Done:
    module = _load_script(state.example / "build_example.py")
    try:
        shas = module.build(state.repo)
    except module.BuildError as err:
        raise InputError(str(err), path=str(state.repo)) from None
    state.shas.update(shas)
    pins = ", ".join(f"{tag} {sha[:12]}" for tag, sha in state.shas.items())
    return _Done(f"git repository with tags {pins}", (str(state.repo),))


def index_revision(tag: str) -> Work:
    """The step indexing one pinned revision; it reuses the previous index's unchanged files."""

    def index(state: _State) -> _Done:
        target = state.out / "indexes" / tag
        previous = next(reversed(state.indexes.values()), None)
        manifest = workflows.index(workflows.IndexRequest(
            repo=state.repo, revision=tag, output=target, reuse=previous, repository="acme/shop"))
        state.indexes[state.shas[tag]] = target
        return _Done(f"{manifest.files} files, {manifest.chunks} chunks, build {manifest.index_build_id}",
                     (str(target),))

    return index


def run_cases_live(state: _State) -> _Done:
    attempts = state.out / "attempts.jsonl"
    summary = workflows.run(workflows.RunRequest(
        cases=str(state.example / "cases.yaml"), output=attempts, index=str(state.out / "indexes"),
        workers=state.workers, run_id="demo"))
    return _Done(f"{summary.written} attempts, {summary.errors} retriever errors, {summary.seconds:.1f}s",
                 (str(attempts),))


def evaluate_live(state: _State) -> _Done:
    results = state.out / "results.json"
    state.live = workflows.evaluate(workflows.EvaluateRequest(
        cases=str(state.example / "cases.yaml"), attempts=str(state.out / "attempts.jsonl"),
        output=str(results))).result
    return _Done(_summary_line(state.live), (str(results),))


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


def answer_stage(state: _State) -> _Done:
    """Answer every live attempt with the scripted answerer, link and classify the answers,
    write answers.jsonl and answer-results.json, and tabulate the classes."""
    if state.live is None:  # run_demo skips this step then; kept for a direct call
        raise InputError("no live results to answer")
    attempts_path = state.out / "attempts.jsonl"
    attempts = {a.attempt_id: a for a in iter_attempts(str(attempts_path))}
    answers = scripted_answers(state.live, attempts)
    answers_path = state.out / "answers.jsonl"
    write_text_atomic(answers_path, "".join(encode_answer(a).decode() + "\n" for a in answers))
    case_set = load_cases(str(state.example / "cases.yaml"))
    linked = link_answers(case_set, attempts.values(), answers,
                          inputs={"cases": InputRef(path=case_set.path, sha256=case_set.sha256)})
    results_path = state.out / "answer-results.json"
    write_text_atomic(results_path,
                      (msgspec.json.format(msgspec.json.encode(linked), indent=2) + b"\n").decode())
    summary = linked.summary
    detail = (f"{summary.answers} answers: {summary.linked} linked, {summary.broken} broken; "
              f"{summary.passed} pass, {summary.failed} fail")
    notes = [f"{name:17} {count:3}  -> {route}" for (name, count), route
             in zip(summary.classes.items(), (_route(k) for k in summary.classes), strict=True)]
    notes += [f"broken link: {f.answer_id}: {'; '.join(f.problems)}"
              for f in linked.answers if f.linkage == "broken"]
    return _Done(detail, (str(answers_path), str(results_path)), tuple(notes))


def _route(answer_class: str) -> str:
    return ROUTES[answer_class]


def replay_recorded(state: _State) -> _Done:
    recorded = state.example / "recorded"
    results = state.out / "recorded" / "results.json"
    state.recorded = workflows.evaluate(workflows.EvaluateRequest(
        cases=str(recorded / "cases.yaml"), attempts=str(recorded / "attempts.jsonl"),
        output=str(results))).result
    return _Done(_summary_line(state.recorded), (str(results),))


def diagnose_run_of(label: str) -> Work:
    """The step diagnosing the ``live`` or the ``recorded`` run."""

    def diagnose(state: _State) -> _Done:
        result = state.live if label == "live" else state.recorded
        if result is None:  # run_demo skips this step then; kept for a direct call
            raise InputError(f"no {label} results to diagnose")
        folder = state.out / "diagnosis" if label == "live" else state.out / "recorded" / "diagnosis"
        found = workflows.diagnose(workflows.DiagnoseRequest(
            results=result, indexes=dict(state.indexes), repo=state.repo,
            owners=str(state.example / "owners.yaml"), output=folder)).summary.diagnoses
        state.diagnoses.update({f"{label}:{d.case_id}": (d.cause, d.owner) for d in found})
        state.diagnosis_dirs[label] = folder
        causes = Counter(d.cause for d in found)
        text = ", ".join(f"{n} {c}" for c, n in sorted(causes.items())) or "no failures"
        return _Done(text, (str(folder),))

    return diagnose


def gate(state: _State) -> _Done:
    if state.main is None:
        raise InputError("nothing was scored")
    verdict = _verdict(state, state.main[1])
    state.verdict = verdict
    write_bytes_atomic(state.out / "gate.json",
                       msgspec.json.format(msgspec.json.encode(verdict), indent=2) + b"\n")
    broken = verdict.failures
    text = "PASS" if verdict.passed else f"FAIL, {len(broken)} of {len(verdict.checks)} checks broken"
    notes = tuple(
        f"broken: {c.rule}: {c.figure}, needs {c.threshold}"
        + (f" ({', '.join(c.cases[:4])}{', …' if len(c.cases) > 4 else ''})" if c.cases else "")
        for c in broken)
    return _Done(text, (str(state.out / "gate.json"),), notes)


def report(state: _State) -> _Done:
    if state.main is None:
        raise InputError("nothing was scored")
    label, scored = state.main
    results_name = "results.json" if label == "live" else "recorded/results.json"
    written = _render_report(state, scored, results_name, state.verdict,
                             state.diagnosis_dirs.get(label), state.out, "codegold demo: acme-shop")
    if state.live is not None and state.recorded is not None:
        # The replay gets its own report: the three classic retrieval failures, judged by the same policy.
        verdict = _verdict(state, state.recorded) if state.verdict is not None else None
        written += _render_report(state, state.recorded, "recorded/results.json", verdict,
                                  state.diagnosis_dirs.get("recorded"), state.out / "recorded",
                                  "codegold demo: the three classic retrieval failures (recorded run)")
    state.report = state.out / "report.html"
    return _Done("open report.html in a browser", written)


def _verdict(state: _State, result: RunResult) -> Verdict:
    """The verdict `codegold gate RESULTS --policy POLICY` gives."""
    return workflows.decide(workflows.GateRequest(results=result, policy=str(state.policy_path)))


def _render_report(state: _State, result: RunResult, results_name: str, verdict: Verdict | None,
                   diagnosis_dir: Path | None, folder: Path, title: str) -> tuple[str, ...]:
    """Write report.html, summary.md and junit.xml into ``folder``; return their paths."""
    return workflows.render(workflows.ReportRequest(
        results=result, html=folder / "report.html", markdown=folder / "summary.md",
        junit=folder / "junit.xml", title=title, results_name=results_name, verdict=verdict,
        policy_name=_display(state.policy_path), diagnosis=diagnosis_dir))


def run_demo(out: Path, *, example: Path | None = None, workers: int = 2,
             on_step: Callable[[Step], None] | None = None,
             on_start: Callable[[str], None] | None = None) -> DemoOutcome:
    """Run the whole demo into ``out``; see the module docstring.

    A step that fails (a CodegoldError) is recorded as failed and the steps that need
    its output are skipped with the reason, so the outcome always says what ran.
    """
    example = example or default_example_dir()
    if not (example / "build_example.py").is_file():
        raise InputError("the demo needs the example from a source checkout "
                         "(examples/acme-shop/build_example.py); pass --example DIR",
                         path=str(example))
    prepare_out(out)
    state = _State(example=example, out=out, workers=workers)
    steps = _Steps(state, on_step, on_start)

    steps.run("build the example repository", build_example_repository)
    for tag in list(state.shas):
        steps.run(f"index {tag}", index_revision(tag))
    all_indexed = bool(state.shas) and len(state.indexes) == len(state.shas)
    ran = steps.run("run cases (reference retriever)", run_cases_live,
                    unless=None if all_indexed else "needs an index of every pinned revision")
    steps.run("evaluate", evaluate_live,
              unless=None if ran.status == "done" else "needs the attempts of the live run")
    steps.run("answer stage (scripted answerer)", answer_stage,
              unless=None if state.live is not None else "the live run was not scored")
    steps.run("replay the recorded worked examples", replay_recorded)
    steps.run("diagnose (live)", diagnose_run_of("live"),
              unless=None if state.live is not None else "the live run was not scored")
    steps.run("diagnose (recorded)", diagnose_run_of("recorded"),
              unless=None if state.recorded is not None else "the recorded run was not scored")
    nothing = None if state.main is not None else "nothing was scored"
    steps.run(f"gate ({_display(state.policy_path)})", gate, unless=nothing)
    steps.run("report", report, unless=nothing)

    main = state.main
    return DemoOutcome(
        out=out, steps=tuple(steps.done),
        results=(out / "results.json" if main[0] == "live" else out / "recorded" / "results.json")
        if main is not None else None,
        report=state.report, gate_passed=state.verdict.passed if state.verdict is not None else None,
        live=state.live is not None, examples=_example_lines(state))


def _example_lines(state: _State) -> tuple[CaseLine, ...]:
    """The three classic retrieval failures as the closing summary shows them, recorded run first."""
    lines: list[CaseLine] = []
    for label, result in (("recorded", state.recorded), ("live", state.live)):
        if result is None:
            continue
        by_id = result.by_id()
        for case_id in SPEC_EXAMPLES:
            case = by_id.get(case_id)
            if case is None:
                continue
            cause, owner = state.diagnoses.get(f"{label}:{case_id}", (None, None))
            files = {chunk.chunk_id: chunk.file for chunk in case.ranked}
            ranks = {chunk.chunk_id: rank for rank, chunk in enumerate(case.ranked, start=1)}
            lines.append(CaseLine(
                run=label, case_id=case_id, status=case.status,
                first_relevant_rank=case.first_relevant_rank, missing_groups=tuple(case.missing_groups),
                forbidden=tuple(f"{files.get(cid, '?')} (chunk {cid}, rank {ranks.get(cid, '?')})"
                                for cid in case.forbidden_chunk_ids),
                cause=cause, owner=owner))
    return tuple(lines)


def _display(path: Path) -> str:
    """A path as a person would type it: relative to the working folder when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)
