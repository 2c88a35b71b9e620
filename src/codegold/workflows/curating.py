"""Getting gold cases: drafts from logs, SWE-bench instances and git history, splits,
diffs and a starting folder. Each workflow writes case files; the caller has guarded
every output against overwriting an input."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from codegold.curate.changes import commit_at
from codegold.curate.fromchanges import DraftReport, import_swebench, mine_history, read_instances
from codegold.curate.fromlog import (
    FromLogReport,
    IndexSpanSymbols,
    draft_cases,
    parse_mapping,
    read_log,
)
from codegold.curate.scaffold import OWNERS_YAML, POLICY_YAML, Scaffold
from codegold.curate.scrub import Scrubber, read_names
from codegold.curate.split import CaseChange, assign, diff_cases, raw_cases
from codegold.curate.stanza import CASES_HEADER, case_file_text
from codegold.errors import InputError
from codegold.index.catalog import IndexSet
from codegold.labels import RepoView
from codegold.model import load_cases
from codegold.plumbing.outputs import write_text_atomic


@dataclass(frozen=True)
class FromLogRequest:
    log: str
    output: str
    mappings: tuple[str, ...] = ()  # FIELD=PATH
    repo: str | None = None  # resolves a record's timestamp to the commit current then
    repository: str | None = None
    cutoff: int = 5
    names: tuple[str, ...] = ()  # user names to scrub
    names_file: str | None = None
    report: str | None = None  # write the scrub report here
    index: str | None = None  # resolve a cited line span to the symbols it holds here


def cases_from_log(request: FromLogRequest) -> FromLogReport:
    """Scrubbed draft cases from assistant traces or search logs."""
    if request.repo is not None:
        RepoView.checked(request.repo)
    all_names = read_names(request.names_file, request.names)
    mapping = parse_mapping(request.mappings)
    records = read_log(request.log)
    resolve = _time_resolver(request.repo) if request.repo is not None else None
    with contextlib.ExitStack() as stack:
        spans = (stack.enter_context(IndexSpanSymbols(IndexSet.from_path(request.index)))
                 if request.index is not None else None)
        drafts, report = draft_cases(records, scrubber=Scrubber(names=all_names),
                                     mapping=mapping, resolve_time=resolve,
                                     repository=request.repository, span_symbols=spans)
    if not drafts:
        reasons = "; ".join(f"{n} {why}" for why, n in report.skipped.items()) or "no records"
        raise InputError(f"no draft case could be made from {report.records} record(s): "
                         f"{reasons}", path=request.log)
    write_text_atomic(request.output, case_file_text(drafts, {"cutoff": request.cutoff}))
    if request.report is not None:
        write_text_atomic(request.report, msgspec.json.format(
            msgspec.json.encode(report), indent=2).decode() + "\n")
    return report


def _time_resolver(repo: str) -> Callable[[str, str | None], str | None]:
    """A function mapping a record's timestamp to the commit current at that time."""
    return lambda stamp, _repository: commit_at(repo, stamp)


def _write_cases(output: str, cases: list[dict[str, object]], cutoff: int,
                 header: str | None = None) -> None:
    write_text_atomic(output, case_file_text(cases, {"cutoff": cutoff}, header or CASES_HEADER))


@dataclass(frozen=True)
class SwebenchRequest:
    instances: str
    output: str
    repo: str | None = None  # one clone, or:
    repos_dir: str | None = None  # a folder of clones
    cutoff: int = 5
    limit: int | None = None


def cases_from_swebench(request: SwebenchRequest) -> DraftReport:
    """One gold case per SWE-bench-style instance."""
    if request.repo is not None:
        RepoView.checked(request.repo)
    items = read_instances(request.instances)[:request.limit]
    cases, report = import_swebench(items, repo=request.repo, repos_dir=request.repos_dir)
    if not cases:
        raise InputError(f"no case from {report.items} instance(s): "
                         + "; ".join(f"{n} {why}" for why, n in report.skipped.items()),
                         path=request.instances)
    _write_cases(request.output, cases, request.cutoff,
                 "# Gold cases imported from SWE-bench-style instances.\n")
    return report


@dataclass(frozen=True)
class MineRequest:
    repo: str
    output: str
    since: str | None = None
    paths: tuple[str, ...] = ()
    max_cases: int = 50
    max_files: int = 8
    repository: str | None = None
    cutoff: int = 5


def cases_from_history(request: MineRequest) -> DraftReport:
    """Draft cases from fixes and issue-referencing commits of a repository's history."""
    cases, report = mine_history(request.repo, since=request.since, paths=request.paths,
                                 max_cases=request.max_cases, max_files=request.max_files,
                                 repository=request.repository)
    if not cases:
        raise InputError(f"no draft from {report.items} commit(s): "
                         + "; ".join(f"{n} {why}" for why, n in report.skipped.items()))
    _write_cases(request.output, cases, request.cutoff)
    return report


@dataclass(frozen=True)
class SplitRequest:
    cases: str
    output: str  # with ``tag``, the file; else a prefix for PREFIX.train/heldout.yaml
    train: float = 0.7
    by: str | None = None
    seed: int = 0
    tag: bool = False

    @property
    def outputs(self) -> list[str]:
        return [self.output] if self.tag else [f"{self.output}.{part}.yaml"
                                               for part in ("train", "heldout")]


@dataclass(frozen=True)
class Split:
    train: int
    heldout: int
    written: tuple[str, ...]


def split_cases(request: SplitRequest) -> Split:
    """Train and held-out sets, deterministically by a hash of each case id."""
    cases, train, by, seed, output = (request.cases, request.train, request.by, request.seed,
                                      request.output)
    loaded = load_cases(cases)
    which = assign(loaded.cases, train, by=by, seed=seed)
    defaults, stanzas = raw_cases(cases)
    header = (f"# {{part}} split of {cases} (codegold cases split --train {train}"
              f"{' --by ' + by if by else ''} --seed {seed}).\n")
    if request.tag:
        for stanza in stanzas:
            stanza["tags"] = {**(stanza.get("tags") or {}), "split": which[stanza["id"]]}
        write_text_atomic(output, case_file_text(stanzas, defaults or None,
                                                 header.format(part="Tagged")))
        written = [output]
    else:
        written = []
        for part in ("train", "heldout"):
            chosen = [s for s in stanzas if which[s["id"]] == part]
            path = f"{output}.{part}.yaml"
            write_text_atomic(path, case_file_text(chosen, defaults or None,
                                                   header.format(part=part)))
            written.append(path)
    n_train = sum(1 for v in which.values() if v == "train")
    return Split(train=n_train, heldout=len(which) - n_train, written=tuple(written))


def case_changes(old: str, new: str) -> list[CaseChange]:
    """Cases added, removed and relabelled between two case files."""
    return diff_cases(load_cases(old).cases, load_cases(new).cases)


@dataclass(frozen=True)
class InitRequest:
    repo: str = "."
    folder: str = "evals"
    revision: str = "HEAD"


@dataclass(frozen=True)
class Started:
    written: tuple[Path, ...]
    repository: str
    revision: str


def start_evals(request: InitRequest) -> Started:
    """A starting cases.yaml (one real case), policy.yaml and owners.yaml; nothing is
    overwritten."""
    scaffold = Scaffold(request.repo, request.revision)
    out = Path(request.folder)
    files = {"cases.yaml": scaffold.cases_yaml(), "policy.yaml": POLICY_YAML,
             "owners.yaml": OWNERS_YAML}
    existing = [name for name in files if (out / name).exists()]
    if existing:
        raise InputError(f"{', '.join(existing)} already exist in {out}; nothing was written "
                         "(choose another folder with -o)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create folder: {err.strerror}", path=str(out)) from None
    for name, text in files.items():
        write_text_atomic(out / name, text)
    return Started(written=tuple(out / n for n in files), repository=scaffold.repository,
                   revision=scaffold.revision)
