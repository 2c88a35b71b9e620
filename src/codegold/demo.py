"""The bundled end-to-end demo: the main job on the acme-shop example, offline.

:func:`run_demo` builds the example repository (``examples/acme-shop``), indexes it at its
two pinned revisions, runs the gold cases through the reference retriever, scores them,
replays the recorded run of the spec's three worked examples, diagnoses the failures,
gates, and renders the HTML report. Each step reports a :class:`Step` through
``on_step`` as it finishes; a step that fails is recorded with its error and the steps
that need its output are skipped with the reason, so the outcome always says what ran.

The demo is the one place that wires every part together; like the CLI it sits above
the parts, and no part imports it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

import msgspec

from codegold.errors import CodegoldError, InputError
from codegold.model import RunResult, write_results

if TYPE_CHECKING:
    from codegold.gate import Verdict

StepStatus = Literal["done", "skipped", "failed"]
MARKER = ".codegold-demo"
# What the demo writes inside OUT; only these are removed when a demo folder is reused.
OWNED = ("repo", "indexes", "attempts.jsonl", "results.json", "recorded", "diagnosis",
         "gate.json", "report.html", "summary.md", "junit.xml")
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
    return Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


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


class _Runner:
    """Runs named steps, timing them and turning codegold errors into failed steps."""

    def __init__(self, on_step: Callable[[Step], None] | None,
                 on_start: Callable[[str], None] | None) -> None:
        self.steps: list[Step] = []
        self.on_step = on_step
        self.on_start = on_start

    def record(self, step: Step) -> Step:
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step)
        return step

    def skip(self, name: str, reason: str) -> Step:
        return self.record(Step(name=name, status="skipped", detail=reason))

    def run(self, name: str, work: Callable[[], tuple[str, tuple[str, ...]]],
            notes: Callable[[], tuple[str, ...]] | None = None) -> Step:
        if self.on_start is not None:
            self.on_start(name)
        started = time.perf_counter()
        try:
            detail, outputs = work()
            status: StepStatus = "done"
        except CodegoldError as err:
            detail, outputs, status = str(err), (), "failed"
        return self.record(Step(name=name, status=status, detail=detail, outputs=outputs,
                                seconds=round(time.perf_counter() - started, 2),
                                notes=notes() if notes is not None and status == "done" else ()))


def _summary_line(result: RunResult) -> str:
    s = result.summary
    hit = f"{s.hit_rate:.2f}" if s.hit_rate is not None else "-"
    return (f"{s.cases} cases: {s.pass_} pass, {s.fail} fail, {s.invalid} invalid, "
            f"{s.missing} missing; hit rate {hit}")


def run_demo(out: Path, *, example: Path | None = None, workers: int = 2,
             on_step: Callable[[Step], None] | None = None,
             on_start: Callable[[str], None] | None = None) -> DemoOutcome:
    """Run the whole demo into ``out``; see the module docstring.

    A step that fails (a CodegoldError) is recorded as failed and the steps that need
    its output are skipped with the reason, so the outcome always says what ran.
    """
    from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
    from codegold.adapters.runner import run_cases
    from codegold.evaluate import evaluate_files
    from codegold.gate import decide, load_policy
    from codegold.index.build import build_index
    from codegold.index.catalog import IndexSet
    from codegold.model import load_cases
    from codegold.retrieve.config import load_config

    example = example or default_example_dir()
    if not (example / "build_example.py").is_file():
        raise InputError("the demo needs the example from a source checkout "
                         "(examples/acme-shop/build_example.py); pass --example DIR",
                         path=str(example))
    prepare_out(out)
    steps = _Runner(on_step, on_start)
    cases_path = example / "cases.yaml"
    policy_path = example / "policy.yaml"
    repo = out / "repo"
    indexes = out / "indexes"
    shas: dict[str, str] = {}

    def build_repo() -> tuple[str, tuple[str, ...]]:
        module = _load_script(example / "build_example.py")
        try:
            shas.update(module.build(repo))
        except module.BuildError as err:
            raise InputError(str(err), path=str(repo)) from None
        pins = ", ".join(f"{tag} {sha[:12]}" for tag, sha in shas.items())
        return f"git repository with tags {pins}", (str(repo),)

    steps.run("build the example repository", build_repo)

    # Each pinned revision gets its own index; the later one reuses the earlier one's
    # unchanged files.
    built: dict[str, Path] = {}
    previous: Path | None = None
    for tag, sha in shas.items():
        target = indexes / tag

        def index_one(tag: str = tag, target: Path = target,
                      previous: Path | None = previous) -> tuple[str, tuple[str, ...]]:
            manifest = build_index(repo, tag, target, reuse_from=previous, repository="acme/shop")
            return (f"{manifest.files} files, {manifest.chunks} chunks, build "
                    f"{manifest.index_build_id}", (str(target),))

        if steps.run(f"index {tag}", index_one).status == "done":
            built[sha] = previous = target

    attempts = out / "attempts.jsonl"
    results_path = out / "results.json"
    live_result: RunResult | None = None
    if not shas or len(built) != len(shas):
        steps.skip("run cases (reference retriever)", "needs an index of every pinned revision")
    else:
        def run_live() -> tuple[str, tuple[str, ...]]:
            config = load_config(None)
            retriever = make_retriever("reference", RetrieverOptions(config=config))
            try:
                summary = run_cases(load_cases(str(cases_path)).cases, retriever,
                                    IndexSet.from_path(indexes), attempts, label="reference",
                                    workers=workers, run_id="demo",
                                    default_k=config.candidates.default_k)
            finally:
                close_retriever(retriever)
            return (f"{summary.written} attempts, {summary.errors} retriever errors, "
                    f"{summary.seconds:.1f}s", (str(attempts),))

        if steps.run("run cases (reference retriever)", run_live).status == "done":
            def score_live() -> tuple[str, tuple[str, ...]]:
                nonlocal live_result
                live_result = evaluate_files(str(cases_path), str(attempts))
                write_results(live_result, str(results_path))
                return _summary_line(live_result), (str(results_path),)

            steps.run("evaluate", score_live)

    recorded_dir = example / "recorded"
    recorded_out = out / "recorded"
    recorded_results = recorded_out / "results.json"
    recorded_result: RunResult | None = None

    def score_recorded() -> tuple[str, tuple[str, ...]]:
        nonlocal recorded_result
        recorded_result = evaluate_files(str(recorded_dir / "cases.yaml"),
                                         str(recorded_dir / "attempts.jsonl"))
        write_results(recorded_result, str(recorded_results))
        return _summary_line(recorded_result), (str(recorded_results),)

    steps.run("replay the recorded worked examples", score_recorded)

    diagnoses: dict[str, tuple[str, str]] = {}
    diagnosis_dirs: dict[str, Path] = {}
    for label, result, ddir in (("live", live_result, out / "diagnosis"),
                                ("recorded", recorded_result, recorded_out / "diagnosis")):
        if result is None:
            continue

        def diagnose_one(result: RunResult = result, ddir: Path = ddir,
                         label: str = label) -> tuple[str, tuple[str, ...]]:
            found = _diagnose(result, built, repo, example / "owners.yaml", ddir)
            for case_id, cause_owner in found.items():
                diagnoses[f"{label}:{case_id}"] = cause_owner
            diagnosis_dirs[label] = ddir
            causes = Counter(cause for cause, _owner in found.values())
            text = ", ".join(f"{n} {c}" for c, n in sorted(causes.items())) or "no failures"
            return text, (str(ddir),)

        steps.run(f"diagnose ({label})", diagnose_one)

    main_result = live_result or recorded_result
    main_results_path = results_path if live_result is not None else recorded_results
    gate_passed: bool | None = None
    report_path: Path | None = None
    if main_result is None:
        steps.skip("gate", "nothing was scored")
        steps.skip("report", "nothing was scored")
    else:
        policy = load_policy(str(policy_path))
        verdict = decide(main_result, policy, None)
        gate_passed = verdict.passed

        def gate() -> tuple[str, tuple[str, ...]]:
            (out / "gate.json").write_bytes(
                msgspec.json.format(msgspec.json.encode(verdict), indent=2) + b"\n")
            broken = verdict.failures
            text = "PASS" if verdict.passed else (
                f"FAIL, {len(broken)} of {len(verdict.checks)} checks broken")
            return text, (str(out / "gate.json"),)

        def gate_notes() -> tuple[str, ...]:
            return tuple(
                f"broken: {c.rule}: {c.figure}, needs {c.threshold}"
                + (f" ({', '.join(c.cases[:4])}{', …' if len(c.cases) > 4 else ''})"
                   if c.cases else "")
                for c in verdict.failures)

        steps.run(f"gate ({_display(policy_path)})", gate, gate_notes)

        def report(scored: RunResult = main_result) -> tuple[str, tuple[str, ...]]:
            nonlocal report_path
            written = _render_report(
                scored, main_results_path.relative_to(out).as_posix(), verdict,
                _display(policy_path), diagnosis_dirs.get("live" if live_result else "recorded"),
                out, "codegold demo: acme-shop")
            if live_result is not None and recorded_result is not None:
                written += _render_report(
                    recorded_result, "recorded/results.json",
                    decide(recorded_result, policy, None), _display(policy_path),
                    diagnosis_dirs.get("recorded"), recorded_out,
                    "codegold demo: the spec's worked examples (recorded run)")
            report_path = out / "report.html"
            return "open report.html in a browser", written

        steps.run("report", report)

    lines: list[CaseLine] = []
    for label, result in (("recorded", recorded_result), ("live", live_result)):
        if result is None:
            continue
        by_id = result.by_id()
        for case_id in SPEC_EXAMPLES:
            case = by_id.get(case_id)
            if case is None:
                continue
            cause, owner = diagnoses.get(f"{label}:{case_id}", (None, None))
            files = {chunk.chunk_id: chunk.file for chunk in case.ranked}
            ranks = {chunk.chunk_id: rank for rank, chunk in enumerate(case.ranked, start=1)}
            lines.append(CaseLine(run=label, case_id=case_id, status=case.status,
                                  first_relevant_rank=case.first_relevant_rank,
                                  missing_groups=tuple(case.missing_groups),
                                  forbidden=tuple(
                                      f"{files.get(cid, '?')} (chunk {cid}, rank {ranks.get(cid, '?')})"
                                      for cid in case.forbidden_chunk_ids),
                                  cause=cause, owner=owner))
    return DemoOutcome(out=out, steps=tuple(steps.steps),
                       results=main_results_path if main_result is not None else None,
                       report=report_path, gate_passed=gate_passed,
                       live=live_result is not None, examples=tuple(lines))


def _display(path: Path) -> str:
    """A path as a person would type it: relative to the working folder when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _diagnose(result: RunResult, indexes: dict[str, Path], repo: Path, owners_path: Path,
              out_dir: Path) -> dict[str, tuple[str, str]]:
    """Diagnose every case that did not pass, each against its own revision's index;
    write the diagnosis folder and return ``{case_id: (cause, owner)}``."""
    from codegold.diagnose import RepoView, diagnose_run, load_owners, write_diagnosis_dir
    from codegold.index import IndexReader

    with contextlib.ExitStack() as stack:
        readers = {rev: stack.enter_context(IndexReader.open(path))
                   for rev, path in indexes.items()}
        found, diagnosed = diagnose_run(
            result, indexes=readers, repo=RepoView(repo), owners=load_owners(str(owners_path)),
            index_name=", ".join(str(p) for p in indexes.values()) or None)
    write_diagnosis_dir(found, diagnosed, out_dir)
    return {d.case_id: (d.cause, d.owner) for d in found.diagnoses}


def _render_report(result: RunResult, results_name: str, verdict: Verdict, policy: str,
                   diagnosis_dir: Path | None, folder: Path, title: str) -> tuple[str, ...]:
    """Write report.html, summary.md and junit.xml into ``folder``; return their paths."""
    from codegold.assemble import report_input
    from codegold.report import RENDERERS

    report = report_input(result, results_name=results_name, title=title, verdict=verdict,
                          policy_name=policy, diagnosis_dir=diagnosis_dir)
    written = []
    for name, kind in (("report.html", "html"), ("summary.md", "markdown"), ("junit.xml", "junit")):
        (folder / name).write_text(RENDERERS[kind](report), encoding="utf-8")
        written.append(str(folder / name))
    return tuple(written)
