"""The bundled end-to-end demo: the main job on the acme-shop example, offline.

:func:`run_demo` builds the example repository (``examples/acme-shop``), indexes it at its
two pinned revisions, runs the gold cases through the reference retriever, scores them,
replays the recorded run of the spec's three worked examples, diagnoses the failures,
gates, and renders the HTML report. Each step reports a :class:`Step` through
``on_step`` as it finishes; a step whose part of codegold is not installed is *skipped*
with the reason, and the demo falls back to scoring the recorded attempts so that it
always shows something true.

The demo is the one place that wires every part together; like the CLI it sits above
the parts, and no part imports it.
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import msgspec

from codegold.errors import CodegoldError, InputError
from codegold.model import RunResult, dump_results

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


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


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


def _write_results(result: RunResult, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dump_results(result))


def _summary_line(result: RunResult) -> str:
    s = result.summary
    hit = f"{s.hit_rate:.2f}" if s.hit_rate is not None else "-"
    return (f"{s.cases} cases: {s.pass_} pass, {s.fail} fail, {s.invalid} invalid, "
            f"{s.missing} missing; hit rate {hit}")


def run_demo(out: Path, *, example: Path | None = None, workers: int = 2,
             on_step: Callable[[Step], None] | None = None,
             on_start: Callable[[str], None] | None = None) -> DemoOutcome:
    """Run the whole demo into ``out``; see the module docstring."""
    example = example or default_example_dir()
    if not (example / "build_example.py").is_file():
        raise InputError("the demo needs the example from a source checkout "
                         "(examples/acme-shop/build_example.py); pass --example DIR",
                         path=str(example))
    prepare_out(out)
    steps = _Runner(on_step, on_start)
    cases_path = example / "cases.yaml"
    repo = out / "repo"
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

    indexes = out / "indexes"
    have_index = _available("codegold.index.build") and _available("codegold.index.store")
    built: list[Path] = []
    if not shas:
        steps.skip("index", "no repository to index")
    elif not have_index:
        steps.skip("index", "codegold.index.build is not installed in this checkout yet")
    else:
        build_index: Any = importlib.import_module("codegold.index.build").build_index
        previous: Path | None = None
        for tag in shas:
            target = indexes / tag

            def index_one(tag: str = tag, target: Path = target,
                          previous: Path | None = previous) -> tuple[str, tuple[str, ...]]:
                manifest = build_index(repo, tag, target, reuse_from=previous,
                                       repository="acme/shop")
                built.append(target)
                return (f"{manifest.files} files, {manifest.chunks} chunks, build "
                        f"{manifest.index_build_id}", (str(target),))

            if steps.run(f"index {tag}", index_one).status == "done":
                previous = target

    attempts = out / "attempts.jsonl"
    results_path = out / "results.json"
    live_result: RunResult | None = None
    have_runner = _available("codegold.adapters.runner") and _available("codegold.adapters.registry")
    if len(built) != len(shas) or not built:
        steps.skip("run cases (reference retriever)",
                   "needs an index of every pinned revision" if have_index
                   else "needs the index (not installed yet)")
    elif not have_runner:
        steps.skip("run cases (reference retriever)", "codegold.adapters is not installed yet")
    else:
        def run_live() -> tuple[str, tuple[str, ...]]:
            from codegold.adapters.indexes import IndexSet
            from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
            from codegold.adapters.runner import run_cases
            from codegold.model import load_cases
            from codegold.retrieve.config import load_config

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

        steps.run("run cases (reference retriever)", run_live)

    from codegold.evaluate import evaluate_files

    if attempts.exists():
        def score_live() -> tuple[str, tuple[str, ...]]:
            nonlocal live_result
            live_result = evaluate_files(str(cases_path), str(attempts))
            _write_results(live_result, results_path)
            return _summary_line(live_result), (str(results_path),)

        steps.run("evaluate", score_live)
    else:
        steps.skip("evaluate", "no live attempts; the recorded run below is scored instead")

    recorded_dir = example / "recorded"
    recorded_out = out / "recorded"
    recorded_results = recorded_out / "results.json"
    recorded_result: RunResult | None = None

    def score_recorded() -> tuple[str, tuple[str, ...]]:
        nonlocal recorded_result
        recorded_result = evaluate_files(str(recorded_dir / "cases.yaml"),
                                         str(recorded_dir / "attempts.jsonl"))
        _write_results(recorded_result, recorded_results)
        return _summary_line(recorded_result), (str(recorded_results),)

    steps.run("replay the recorded worked examples", score_recorded)

    main_result = live_result or recorded_result
    main_results_path = results_path if live_result is not None else recorded_results
    diagnoses: dict[str, tuple[str | None, str | None]] = {}
    diagnosis_dirs: dict[str, Path] = {}
    index_by_revision = {shas[path.name]: path for path in built}
    diagnose_targets = [("live", live_result, out / "diagnosis"),
                        ("recorded", recorded_result, recorded_out / "diagnosis")]
    if not _available("codegold.diagnose.engine"):
        steps.skip("diagnose", "codegold.diagnose is not installed in this checkout yet")
    else:
        for label, result, ddir in diagnose_targets:
            if result is None:
                continue

            def diagnose_one(result: RunResult = result, ddir: Path = ddir,
                             label: str = label) -> tuple[str, tuple[str, ...]]:
                found = _diagnose(result, index_by_revision, repo, example / "owners.yaml", ddir)
                for case_id, cause_owner in found.items():
                    diagnoses[f"{label}:{case_id}"] = cause_owner
                diagnosis_dirs[label] = ddir
                causes: dict[str, int] = {}
                for cause, _owner in found.values():
                    causes[cause or "?"] = causes.get(cause or "?", 0) + 1
                text = ", ".join(f"{n} {c}" for c, n in sorted(causes.items())) or "no failures"
                return text, (str(ddir),)

            steps.run(f"diagnose ({label})", diagnose_one)

    gate_passed: bool | None = None
    gate_verdict: Any = None
    if main_result is not None:
        def gate(scored: RunResult = main_result) -> tuple[str, tuple[str, ...]]:
            nonlocal gate_passed, gate_verdict
            from codegold.gate import decide, load_policy

            gate_verdict = decide(scored, load_policy(str(example / "policy.yaml")), None)
            gate_passed = bool(gate_verdict.passed)
            (out / "gate.json").write_bytes(msgspec.json.format(
                msgspec.json.encode(gate_verdict), indent=2) + b"\n")
            broken = [c for c in gate_verdict.checks if not c.passed]
            text = "PASS" if gate_passed else f"FAIL, {len(broken)} of {len(gate_verdict.checks)} checks broken"
            return text, (str(out / "gate.json"),)

        def gate_notes() -> tuple[str, ...]:
            return tuple(
                f"broken: {c.rule}: {c.figure}, needs {c.threshold}"
                + (f" ({', '.join(c.cases[:4])}{', …' if len(c.cases) > 4 else ''})" if c.cases else "")
                for c in gate_verdict.checks if not c.passed)

        steps.run("gate (examples/acme-shop/policy.yaml)", gate, gate_notes)

    report_path: Path | None = None
    if main_result is None:
        steps.skip("report", "nothing was scored")
    elif not _available("codegold.report"):
        steps.skip("report", "codegold.report is not installed in this checkout yet")
    else:
        def report(scored: RunResult = main_result) -> tuple[str, tuple[str, ...]]:
            nonlocal report_path
            from codegold.gate import decide, load_policy

            policy = example / "policy.yaml"
            written = _render_report(scored, main_results_path.relative_to(out).as_posix(),
                                     gate_verdict, _display(policy),
                                     diagnosis_dirs.get("live" if live_result else "recorded"),
                                     out, "codegold demo: acme-shop")
            if live_result is not None and recorded_result is not None:
                written += _render_report(
                    recorded_result, "recorded/results.json",
                    decide(recorded_result, load_policy(str(policy)), None), _display(policy),
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
              out_dir: Path) -> dict[str, tuple[str | None, str | None]]:
    """Diagnose every case that did not pass; return ``{case_id: (cause, owner)}``.

    Diagnosis reads one index at a time and never borrows metadata across revisions, so
    the cases are diagnosed per pinned revision, each against the index of its revision,
    and the findings are merged into one diagnosis directory.
    """
    from collections import Counter

    from codegold.diagnose import (
        DiagnosisSet,
        RepoView,
        diagnose_run,
        load_owners,
        write_diagnosis_dir,
    )
    from codegold.diagnose.causes import CAUSE_ORDER
    from codegold.index import IndexReader

    owners = load_owners(str(owners_path))
    revisions = sorted({case.case.revision for case in result.cases})
    diagnoses = []
    diagnosed = []
    warnings: list[str] = []
    attempts_path: str | None = None
    for revision in revisions:
        part = msgspec.structs.replace(
            result, cases=[c for c in result.cases if c.case.revision == revision])
        index_dir = indexes.get(revision)
        reader = IndexReader.open(index_dir) if index_dir is not None else None
        try:
            found, items = diagnose_run(part, index=reader, repo=RepoView(repo), owners=owners,
                                        index_name=str(index_dir) if index_dir else None)
        finally:
            if reader is not None:
                reader.close()
        diagnoses.extend(found.diagnoses)
        diagnosed.extend(items)
        warnings.extend(w for w in found.warnings if w not in warnings)
        attempts_path = attempts_path or found.attempts
    diagnoses.sort(key=lambda d: d.case_id)
    by_cause = Counter(d.cause for d in diagnoses)
    merged = DiagnosisSet(
        format=1, results="results.json",
        index=", ".join(str(indexes[r]) for r in revisions if r in indexes) or None,
        attempts=attempts_path, diagnoses=diagnoses,
        by_cause=dict(sorted(by_cause.items(), key=lambda kv: CAUSE_ORDER.get(kv[0], 99))),
        by_owner=dict(sorted(Counter(d.owner for d in diagnoses).items())),
        warnings=warnings)
    write_diagnosis_dir(merged, diagnosed, out_dir)
    return {d.case_id: (d.cause, d.owner) for d in diagnoses}


def _render_report(result: RunResult, results_name: str, verdict: Any, policy: str,
                   diagnosis_dir: Path | None, folder: Path, title: str) -> tuple[str, ...]:
    """Write report.html, summary.md and junit.xml into ``folder``; return their paths."""
    from codegold.evaluate import target_matches
    from codegold.report import RENDERERS, GateView, ReportInput
    from codegold.report.model import DiagnosisView

    gate = None
    if verdict is not None:
        gate = msgspec.convert({**msgspec.to_builtins(verdict), "policy": policy}, GateView)
    diagnoses: dict[str, DiagnosisView] = {}
    summary = diagnosis_dir / "diagnoses.json" if diagnosis_dir is not None else None
    if summary is not None and summary.is_file():
        # diagnoses.json is the diagnose part's documented output; the report's view of it
        # decodes leniently. Bundle links are made relative to the report's folder.
        where = summary.parent.relative_to(folder).as_posix()
        for item in msgspec.json.decode(summary.read_bytes())["diagnoses"]:
            if item.get("bundle_markdown"):
                item["bundle_markdown"] = f"{where}/{item['bundle_markdown']}"
            view = msgspec.convert(item, DiagnosisView)
            diagnoses[view.case_id] = view
    matches: dict[str, dict[str, tuple[str, ...]]] = {}
    for case in result.cases:
        per_chunk: dict[str, tuple[str, ...]] = {}
        for chunk in case.ranked:
            groups = tuple(g.id for g in case.case.groups
                           if any(target_matches(chunk, t) for t in g.any_of))
            if groups:
                per_chunk[chunk.chunk_id] = groups
        matches[case.case_id] = per_chunk
    report = ReportInput(results=result, title=title, results_name=results_name,
                         comparison=None, diagnoses=diagnoses, gate=gate, matches=matches)
    written = []
    for name, kind in (("report.html", "html"), ("summary.md", "markdown"), ("junit.xml", "junit")):
        (folder / name).write_text(RENDERERS[kind](report), encoding="utf-8")
        written.append(str(folder / name))
    return tuple(written)
