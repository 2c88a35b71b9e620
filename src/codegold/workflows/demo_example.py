"""The demo's example and what it keeps: the bundled acme-shop folder and its builder
(another folder's only when trusted), the output folder, the state the steps pass along, and the closing summary's records."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from codegold.errors import InputError
from codegold.gate import Verdict
from codegold.model import RunResult
from codegold.plumbing.outputs import write_text_atomic
from codegold.workflows.demo_fix import FIX_POLICY, FixOutcome, FixState
from codegold.workflows.steps import Step

MARKER = ".codegold-demo"
# What the demo writes inside OUT; only these are removed when a demo folder is reused.
OWNED = ("repo", "indexes", "attempts.jsonl", "results.json", "recorded", "diagnosis",
         "gate.json", "report.html", "summary.md", "junit.xml", "answers.jsonl",
         "answer-results.json", "agents", "fixed")
SPEC_EXAMPLES = ("session-expiry", "webhook-parse-signature", "retry-policy-definition")


@dataclass(frozen=True)
class CaseLine:
    """One worked example's outcome, as the demo's closing summary shows it."""

    run: str  # "live" or "recorded"
    case_id: str
    status: str
    first_relevant_rank: int | None
    missing_groups: tuple[str, ...]
    forbidden: tuple[str, ...]  # "path:start-end (symbol), rank N"
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
    fix: FixOutcome | None = None  # the fixed configuration's gain, cost and gate
    fixed_report: Path | None = None
    policy: str = "policy.yaml"  # the gate policy both runs are judged by, as a person types it

    @property
    def skipped(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.status == "skipped")

    @property
    def failed(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.status == "failed")


def default_example_dir() -> Path:
    """``examples/acme-shop`` of the source checkout this codegold runs from."""
    return Path(__file__).resolve().parents[3] / "examples" / "acme-shop"


def check_trusted(example: Path, trusted: bool) -> None:
    """Refuse to execute another folder's build_example.py unless the user said to."""
    if trusted or os.path.realpath(example) == os.path.realpath(default_example_dir()):
        return
    raise InputError("{example} runs the folder's build_example.py as Python code; codegold "
                     "only runs the bundled example's unless you pass {trust_example} "
                     "(do so only for code you have read)", path=str(example),
                     settings=("example", "trust_example"))


def load_builder(path: Path) -> ModuleType:
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
                             "give a new {out}", path=str(out), settings=("out",))
        for name in OWNED:
            target = out / name
            if target.is_symlink():
                target.unlink()  # a link planted in place of an entry: the link goes, never
                # what it points to
            elif target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / MARKER, "written by `codegold demo`; safe to delete\n")


@dataclass
class DemoState:
    """What the steps pass along. Each step reads what earlier steps left and records its
    own product here; a step whose input is missing is skipped with the reason."""

    example: Path
    out: Path
    workers: int
    shas: dict[str, str] = field(default_factory=dict)  # tag -> sha, in build order
    indexes: dict[str, Path] = field(default_factory=dict)  # sha -> index folder
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # tag -> files, chunks
    live: RunResult | None = None
    recorded: RunResult | None = None
    diagnoses: dict[str, tuple[str, str]] = field(default_factory=dict)  # "run:case" -> cause, owner
    diagnosis_dirs: dict[str, Path] = field(default_factory=dict)  # "live"/"recorded" -> folder
    verdict: Verdict | None = None
    report: Path | None = None
    fix: FixState = field(default_factory=FixState)  # the second half: the fixed configuration
    fix_outcome: FixOutcome | None = None

    @property
    def repo(self) -> Path:
        return self.out / "repo"

    @property
    def policy_path(self) -> Path:
        return self.example / "policy.yaml"

    @property
    def fix_path(self) -> Path:
        return self.example / FIX_POLICY

    @property
    def main(self) -> tuple[str, RunResult] | None:
        """The run the gate and report judge: the live one, else the recorded replay."""
        if self.live is not None:
            return "live", self.live
        if self.recorded is not None:
            return "recorded", self.recorded
        return None


def example_lines(state: DemoState) -> tuple[CaseLine, ...]:
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
            ranks = {chunk.chunk_id: rank for rank, chunk in enumerate(case.ranked, start=1)}
            lines.append(CaseLine(
                run=label, case_id=case_id, status=case.status,
                first_relevant_rank=case.first_relevant_rank, missing_groups=tuple(case.missing_groups),
                forbidden=tuple(f"{where}, rank {ranks.get(cid, '?')}" for cid, where in
                                zip(case.forbidden_chunk_ids, case.forbidden_hits(), strict=True)),
                cause=cause, owner=owner))
    return tuple(lines)


def examples_text(lines: tuple[CaseLine, ...]) -> list[str]:
    """The closing "Three classic retrieval failures" lines as plain text (the demo prints
    them; README's quoted output is generated from them)."""
    out = ["Three classic retrieval failures"]
    for line in lines:
        rank = line.first_relevant_rank if line.first_relevant_rank is not None else "none"
        out.append(f"  {line.run:8} {line.case_id:26} {line.status:4}  first relevant rank {rank}")
        details = []
        if line.missing_groups:
            details.append("missing group " + ", ".join(line.missing_groups))
        details.extend("forbidden " + text for text in line.forbidden)
        if line.cause:
            details.append(f"cause {line.cause}, owner {line.owner or '?'}")
        out += [f"  {'':8} {'':26} {detail}" for detail in details]
    return out


def display(path: Path) -> str:
    """A path as a person would type it: relative to the working folder when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def summary_line(result: RunResult) -> str:
    """A scored run in one line, as the demo prints it."""
    s = result.summary
    hit = f"{s.hit_rate:.2f}" if s.hit_rate is not None else "-"
    return (f"{s.cases} cases: {s.pass_} pass, {s.fail} fail, {s.invalid} invalid, "
            f"{s.missing} missing; hit rate {hit}")
