"""The bundled end-to-end demo: the main job on the acme-shop example, offline.

:func:`run_demo` builds the example repository (``examples/acme-shop``), indexes it at its
two pinned revisions, runs the gold cases through the reference retriever, scores them,
answers them with a scripted answerer, replays the recorded run of the three classic
retrieval failures, diagnoses the failures, gates, and renders the HTML report. Then it
closes the loop: it indexes both revisions again with the fix a team would commit
(``examples/acme-shop/fix/index-policy.yaml``, a searchable-path policy), runs, scores,
diagnoses and gates the same cases with the same policy, and measures what the fix gained
and what it cost (:mod:`codegold.workflows.demo_fix`). Each step is one call of the
workflow the matching command makes (``codegold index``, ``run``, ``eval``, ``diagnose``,
``gate``, ``report``) and reports a :class:`Step` as it finishes (see
:mod:`codegold.workflows.steps`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import msgspec

from codegold import workflows
from codegold.errors import InputError
from codegold.gate import Verdict
from codegold.index.policy import load_policy
from codegold.model import RunResult, encode_attempt, load_cases
from codegold.plumbing.outputs import write_bytes_atomic
from codegold.trajectories import import_trajectories
from codegold.workflows.demo_answers import BROKEN_ANSWER_ID, answer_and_link, scripted_answers
from codegold.workflows.demo_example import (
    SPEC_EXAMPLES,
    CaseLine,
    DemoOutcome,
    DemoState,
    check_trusted,
    default_example_dir,
    display,
    example_lines,
    examples_text,
    load_builder,
    prepare_out,
    summary_line,
)
from codegold.workflows.demo_fix import (
    FIX_POLICY,
    FixOutcome,
    fix_text,
    measure_fix,
    next_steps_text,
    own_excludes,
)
from codegold.workflows.steps import Done, Step, Steps

__all__ = ["BROKEN_ANSWER_ID", "FIX_POLICY", "CaseLine", "DemoOutcome", "FixOutcome", "Step",
           "default_example_dir", "examples_text", "fix_text", "next_steps_text", "prepare_out",
           "run_demo", "scripted_answers"]

Work = Callable[[DemoState], Done]


# --- the steps, in the order the demo runs them: each one workflow call -----------------


def build_example_repository(state: DemoState) -> Done:
    module = load_builder(state.example / "build_example.py")
    try:
        shas = module.build(state.repo)
    except module.BuildError as err:
        raise InputError(str(err), path=str(state.repo)) from None
    state.shas.update(shas)
    pins = ", ".join(f"{tag} {sha[:12]}" for tag, sha in state.shas.items())
    return Done(f"git repository with tags {pins}", (str(state.repo),))


def index_revision(tag: str) -> Work:
    """The step indexing one pinned revision; it reuses the previous index's unchanged files."""

    def index(state: DemoState) -> Done:
        target = state.out / "indexes" / tag
        previous = next(reversed(state.indexes.values()), None)
        manifest = workflows.index(workflows.IndexRequest(
            repo=state.repo, revision=tag, output=target, reuse=previous, repository="acme/shop"))
        workflows.warm_indexes([target])  # as `codegold index` does: no query builds a cache
        state.indexes[state.shas[tag]] = target
        state.sizes[tag] = (manifest.files or 0, manifest.chunks or 0)
        return Done(f"{manifest.files} files, {manifest.chunks} chunks, build {manifest.index_build_id}",
                     (str(target),))

    return index


def run_cases_live(state: DemoState) -> Done:
    attempts = state.out / "attempts.jsonl"
    summary = workflows.run(workflows.RunRequest(
        cases=str(state.example / "cases.yaml"), output=attempts, index=str(state.out / "indexes"),
        workers=state.workers, run_id="demo"))
    return Done(f"{summary.written} attempts, {summary.errors} retriever errors, {summary.seconds:.1f}s",
                 (str(attempts),))


def evaluate_live(state: DemoState) -> Done:
    results = state.out / "results.json"
    state.live = workflows.evaluate(workflows.EvaluateRequest(
        cases=str(state.example / "cases.yaml"), attempts=str(state.out / "attempts.jsonl"),
        output=str(results))).result
    return Done(summary_line(state.live), (str(results),))


def answer_stage(state: DemoState) -> Done:
    if state.live is None:  # run_demo skips this step then; kept for a direct call
        raise InputError("no live results to answer")
    return answer_and_link(state.live, state.out / "attempts.jsonl",
                           state.example / "cases.yaml", state.out)


def replay_recorded(state: DemoState) -> Done:
    recorded = state.example / "recorded"
    results = state.out / "recorded" / "results.json"
    state.recorded = workflows.evaluate(workflows.EvaluateRequest(
        cases=str(recorded / "cases.yaml"), attempts=str(recorded / "attempts.jsonl"),
        output=str(results))).result
    return Done(summary_line(state.recorded), (str(results),))


# The bundled agent trajectories (examples/acme-shop/agents): folder and format of each.
AGENT_TRAJECTORIES = (("agent-a", "swe-agent"), ("agent-b", "claude-code"),
                      ("agent-c", "mini-swe-agent"))


def import_agents(state: DemoState) -> Done:
    """Import three agents' trajectories (three formats) against the v2 index, resolving
    their spans, score and diagnose them and write their own report (``agents/``)."""
    source = state.example / "agents"
    cases = load_cases(str(source / "cases.yaml"))
    attempts = [attempt for folder, name in AGENT_TRAJECTORIES
                for attempt in import_trajectories([source / folder], format_name=name,
                                                   cases=cases, index=state.out / "indexes",
                                                   resolve=True).attempts]
    out = state.out / "agents"
    write_bytes_atomic(out / "attempts.jsonl", (encode_attempt(a) + b"\n" for a in attempts))
    result = workflows.evaluate(workflows.EvaluateRequest(
        cases=str(source / "cases.yaml"), attempts=str(out / "attempts.jsonl"),
        output=str(out / "results.json"))).result
    found = {d.case_id: d.cause for d in workflows.diagnose(workflows.DiagnoseRequest(
        results=result, indexes=dict(state.indexes), repo=state.repo,
        owners=str(state.example / "owners.yaml"), attempts=str(out / "attempts.jsonl"),
        output=out / "diagnosis")).summary.diagnoses}
    written = _render_report(state, result, "agents/results.json", None, out / "diagnosis", out,
                             "codegold demo: three agents' context (trajectories)")
    notes = tuple(f"{c.case_id:26} {c.status:5} first relevant rank {c.first_relevant_rank}"
                  + (f", cause {found[c.case_id]}" if c.case_id in found else "")
                  for c in result.cases)
    return Done(summary_line(result), (str(out / "attempts.jsonl"), str(out / "results.json"),
                                        str(out / "diagnosis"), *written), notes)


def diagnose_run_of(label: str) -> Work:
    """The step diagnosing the ``live``, the ``recorded`` or the ``fixed`` run."""

    def diagnose(state: DemoState) -> Done:
        result = {"live": state.live, "recorded": state.recorded, "fixed": state.fix.result}[label]
        if result is None:  # run_demo skips this step then; kept for a direct call
            raise InputError(f"no {label} results to diagnose")
        folder = {"live": state.out / "diagnosis", "recorded": state.out / "recorded" / "diagnosis",
                  "fixed": state.out / "fixed" / "diagnosis"}[label]
        indexes = state.fix.indexes if label == "fixed" else state.indexes
        found = workflows.diagnose(workflows.DiagnoseRequest(
            results=result, indexes=dict(indexes), repo=state.repo,
            owners=str(state.example / "owners.yaml"), output=folder)).summary.diagnoses
        state.diagnoses.update({f"{label}:{d.case_id}": (d.cause, d.owner) for d in found})
        if label == "fixed":
            state.fix.diagnoses = {d.case_id: d for d in found}
        else:
            state.diagnosis_dirs[label] = folder
        causes = Counter(d.cause for d in found)
        text = ", ".join(f"{n} {c}" for c, n in sorted(causes.items())) or "no failures"
        return Done(text, (str(folder),))

    return diagnose


def gate(state: DemoState) -> Done:
    if state.main is None:
        raise InputError("nothing was scored")
    verdict = _verdict(state, state.main[1])
    state.verdict = verdict
    return _gate_done(verdict, state.out / "gate.json")


def _gate_done(verdict: Verdict, path: Path, *extra: str) -> Done:
    write_bytes_atomic(path, msgspec.json.format(msgspec.json.encode(verdict), indent=2) + b"\n")
    broken = verdict.failures
    text = "PASS" if verdict.passed else f"FAIL, {len(broken)} of {len(verdict.checks)} checks broken"
    notes = tuple(
        f"broken: {c.rule}: {c.figure}, needs {c.threshold}"
        + (f" ({', '.join(c.cases[:4])}{', …' if len(c.cases) > 4 else ''})" if c.cases else "")
        for c in broken)
    return Done(text, (str(path),), notes + extra)


def report(state: DemoState) -> Done:
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
    return Done("open report.html in a browser", written)


# --- the second half: the fix, run live, measured, gated ---------------------------------


def index_fixed(tag: str) -> Work:
    """The step indexing one pinned revision with the fix's path policy; unchanged files'
    chunks come from the default index of the same revision."""

    def index(state: DemoState) -> Done:
        target = state.out / "fixed" / "indexes" / tag
        sha = state.shas[tag]
        manifest = workflows.index(workflows.IndexRequest(
            repo=state.repo, revision=tag, output=target, reuse=state.indexes.get(sha),
            repository="acme/shop", policy=load_policy(state.fix_path)))
        workflows.warm_indexes([target])
        state.fix.indexes[sha] = target
        state.fix.sizes[tag] = (manifest.files or 0, manifest.chunks or 0)
        files, chunks = state.sizes.get(tag, (0, 0))
        return Done(f"{manifest.files} files, {manifest.chunks} chunks (default configuration: "
                    f"{files} files, {chunks} chunks)", (str(target),))

    return index


def run_cases_fixed(state: DemoState) -> Done:
    attempts = state.out / "fixed" / "attempts.jsonl"
    summary = workflows.run(workflows.RunRequest(
        cases=str(state.example / "cases.yaml"), output=attempts,
        index=str(state.out / "fixed" / "indexes"), workers=state.workers, run_id="demo-fixed"))
    return Done(f"{summary.written} attempts, {summary.errors} retriever errors, {summary.seconds:.1f}s",
                 (str(attempts),))


def evaluate_fixed(state: DemoState) -> Done:
    results = state.out / "fixed" / "results.json"
    state.fix.result = workflows.evaluate(workflows.EvaluateRequest(
        cases=str(state.example / "cases.yaml"), attempts=str(state.out / "fixed" / "attempts.jsonl"),
        output=str(results))).result
    return Done(summary_line(state.fix.result), (str(results),))


def gate_fixed(state: DemoState) -> Done:
    """The same policy on the fixed run; and, as a note, what a gate that also compares
    with the default run (its baseline) says of the cases the fix costs."""
    if state.fix.result is None:
        raise InputError("the fixed run was not scored")
    verdict = _verdict(state, state.fix.result)
    state.fix.verdict = verdict
    baseline = state.out / "results.json"
    extra: tuple[str, ...] = ()
    if state.live is not None and baseline.is_file():
        state.fix.baseline = workflows.decide(workflows.GateRequest(
            results=state.fix.result, policy=str(state.policy_path), baseline=str(baseline),
            max_new_failures=0))
        new = [c for c in state.fix.baseline.failures if c.rule.startswith("baseline:")]
        extra = tuple(f"with --baseline {display(baseline)} --max-new-failures 0: {c.rule}: "
                      f"{c.figure} ({', '.join(c.cases)})" for c in new)
    return _gate_done(verdict, state.out / "fixed" / "gate.json", *extra)


def report_fixed(state: DemoState) -> Done:
    if state.fix.result is None:
        raise InputError("the fixed run was not scored")
    written = _render_report(state, state.fix.result, "fixed/results.json", state.fix.verdict,
                             state.out / "fixed" / "diagnosis", state.out / "fixed",
                             f"codegold demo: acme-shop with {FIX_POLICY.as_posix()}",
                             baseline=state.out / "results.json")
    state.fix.report = state.out / "fixed" / "report.html"
    return Done("the fixed run, compared with the default one", written)


def measure(state: DemoState) -> Done:
    if state.live is None or state.fix.result is None:
        raise InputError("needs the default and the fixed run scored")
    fix = measure_fix(state.live, state.fix.result, policy=display(state.fix_path),
                      excluded=own_excludes(state.fix_path), classic=SPEC_EXAMPLES,
                      state=state.fix, indexes_before=state.indexes, sizes_before=state.sizes)
    state.fix_outcome = fix
    return Done(f"{len(fix.gained)} cases now pass, {len(fix.lost)} now fail; forbidden source in "
                f"{fix.forbidden[0]} -> {fix.forbidden[1]} cases; context "
                f"{fix.tokens[0]:.0f} -> {fix.tokens[1]:.0f} tokens per case")


def _verdict(state: DemoState, result: RunResult) -> Verdict:
    """The verdict `codegold gate RESULTS --policy POLICY` gives."""
    return workflows.decide(workflows.GateRequest(results=result, policy=str(state.policy_path)))


def _render_report(state: DemoState, result: RunResult, results_name: str, verdict: Verdict | None,
                   diagnosis_dir: Path | None, folder: Path, title: str, *,
                   baseline: Path | None = None) -> tuple[str, ...]:
    """Write report.html, summary.md and junit.xml into ``folder``; return their paths."""
    return workflows.render(workflows.ReportRequest(
        results=result, html=folder / "report.html", markdown=folder / "summary.md",
        junit=folder / "junit.xml", title=title, results_name=results_name, verdict=verdict,
        policy_name=display(state.policy_path), diagnosis=diagnosis_dir,
        baseline=display(baseline) if baseline is not None else None))


def run_demo(out: Path, *, example: Path | None = None, trust_example: bool = False,
             workers: int = 2, on_step: Callable[[Step], None] | None = None,
             on_start: Callable[[str], None] | None = None) -> DemoOutcome:
    """Run the whole demo into ``out``; see the module docstring.

    The example's build_example.py runs as Python code: an ``example`` other than the
    bundled one is refused unless ``trust_example``. A step that fails (a CodegoldError)
    is recorded as failed and the steps that need its output are skipped with the
    reason, so the outcome always says what ran.
    """
    if example is not None:
        check_trusted(example, trust_example)
    example = example or default_example_dir()
    if not (example / "build_example.py").is_file():
        raise InputError("the demo needs the example from a source checkout "
                         "(examples/acme-shop/build_example.py); pass {example} DIR",
                         path=str(example), settings=("example",))
    prepare_out(out)
    state = DemoState(example=example, out=out, workers=workers)
    steps = Steps(state, on_step, on_start)

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
    steps.run("import agent trajectories (3 formats)", import_agents,
              unless=None if all_indexed else "needs an index of every pinned revision")
    steps.run("diagnose (live)", diagnose_run_of("live"),
              unless=None if state.live is not None else "the live run was not scored")
    steps.run("diagnose (recorded)", diagnose_run_of("recorded"),
              unless=None if state.recorded is not None else "the recorded run was not scored")
    nothing = None if state.main is not None else "nothing was scored"
    steps.run(f"gate ({display(state.policy_path)})", gate, unless=nothing)
    steps.run("report", report, unless=nothing)

    # The second half: the fix a team would commit, run live on the same cases.
    fixable = (None if state.live is not None else "the default run was not scored") or (
        None if state.fix_path.is_file() else f"the example has no {FIX_POLICY.as_posix()}")
    fix_name = FIX_POLICY.as_posix()
    for tag in list(state.shas):
        steps.run(f"fix: index {tag} with {fix_name}", index_fixed(tag), unless=fixable)
    fixed_indexed = fixable is None and len(state.fix.indexes) == len(state.shas)
    fix_ran = steps.run("fix: run cases (reference retriever)", run_cases_fixed,
                        unless=None if fixed_indexed else fixable or "needs an index of every "
                        "pinned revision built with the fix")
    steps.run("fix: evaluate", evaluate_fixed,
              unless=None if fix_ran.status == "done" else "needs the attempts of the fixed run")
    scored = None if state.fix.result is not None else "the fixed run was not scored"
    steps.run("fix: diagnose", diagnose_run_of("fixed"), unless=scored)
    steps.run(f"fix: gate ({display(state.policy_path)}, unchanged)", gate_fixed, unless=scored)
    steps.run("fix: report", report_fixed, unless=scored)
    steps.run("fix: gain and cost", measure, unless=scored)

    main = state.main
    return DemoOutcome(
        out=out, steps=tuple(steps.done),
        results=(out / "results.json" if main[0] == "live" else out / "recorded" / "results.json")
        if main is not None else None,
        report=state.report, gate_passed=state.verdict.passed if state.verdict is not None else None,
        live=state.live is not None, examples=example_lines(state), fix=state.fix_outcome,
        fixed_report=state.fix.report, policy=display(state.policy_path))
