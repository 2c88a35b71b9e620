"""Assemble what the report renders from the engines' outputs.

The report package renders model records and imports no engine; the CLI's ``report``
command and the demo both need the same glue (the scorer's acceptance marks, the gate
verdict, the diagnoses and their bundles), so it lives here, once.
"""

from __future__ import annotations

from pathlib import Path

from codegold.diagnose import load_diagnoses
from codegold.evaluate.match import seen_satisfies
from codegold.model import RunResult, Verdict
from codegold.model.comparison import Comparison
from codegold.model.diagnoses import Diagnosis
from codegold.report import ReportInput
from codegold.report.model import UNKNOWN, ReportHeader, header_facts


def chunk_matches(run: RunResult) -> dict[str, dict[str, tuple[str, ...]]]:
    """case id → chunk id → ids of the evidence groups that chunk satisfies."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for case in run.cases:
        per_chunk: dict[str, tuple[str, ...]] = {}
        for rank, chunk in enumerate(case.ranked, 1):
            # a chunk cut at the budget satisfies a group only by the part that fit
            groups = tuple(g.id for g in case.case.groups
                           if any(seen_satisfies(case, rank, chunk, t) for t in g.any_of))
            if groups:
                per_chunk[chunk.chunk_id] = groups
        out[case.case_id] = per_chunk
    return out


def load_diagnosis_dir(directory: str | Path) -> tuple[dict[str, Diagnosis], dict[str, str]]:
    """The diagnoses written by ``codegold diagnose -o DIR`` by case id, and each one's
    evidence bundle as Markdown text (when its file is there)."""
    diagnoses: dict[str, Diagnosis] = {}
    bundles: dict[str, str] = {}
    for d in load_diagnoses(directory).diagnoses:
        diagnoses[d.case_id] = d
        if d.bundle_markdown:
            bundle = _read_bundle(directory, d.bundle_markdown)
            if bundle is not None:
                bundles[d.case_id] = bundle
    return diagnoses, bundles


MAX_BUNDLE_BYTES = 4 * 1024 * 1024


def _read_bundle(directory: str | Path, relative: str) -> str | None:
    """A bundle named in diagnoses.json, read only from inside the diagnosis folder.

    diagnoses.json is an artifact anyone could have written: an absolute path, ``..`` or a
    symbolic link out of the folder would put any file (``/proc/self/environ``) into the
    report, so they are refused. A missing bundle is no bundle; one that is not a regular
    file, too large or not UTF-8 text is refused with its name.
    """
    from codegold.errors import InputError
    from codegold.plumbing.outputs import resolve_inside

    where = str(Path(directory) / "diagnoses.json")
    try:
        path = resolve_inside(directory, relative)
    except InputError as err:
        raise InputError(f"bundle_markdown: {err.message}", path=where,
                         settings=err.settings) from None
    if not path.exists():
        return None
    if not path.is_file():
        raise InputError(f"bundle_markdown {relative!r} is not a regular file", path=where)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BUNDLE_BYTES + 1)
    except OSError as err:
        raise InputError(f"cannot read bundle {relative!r}: {err.strerror}", path=where) from None
    if len(data) > MAX_BUNDLE_BYTES:
        raise InputError(f"bundle {relative!r} is larger than {MAX_BUNDLE_BYTES} bytes; "
                         "expected a Markdown evidence bundle", path=where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"bundle {relative!r} is not UTF-8 text (byte {err.start}); expected "
                         "a Markdown evidence bundle", path=where) from None
    if "\x00" in text:
        raise InputError(f"bundle {relative!r} holds NUL bytes; expected a Markdown evidence "
                         "bundle", path=where)
    return text



def _attempts_file(run: RunResult, results_path: str | Path | None) -> Path | None:
    """The attempts file results.json names, where it still is (as given, or beside
    results.json when the name is relative)."""
    ref = run.inputs.get("attempts")
    if ref is None or not ref.path:
        return None
    candidates = [Path(ref.path)]
    if results_path is not None and not Path(ref.path).is_absolute():
        candidates.append(Path(results_path).parent / ref.path)
    return next((p for p in candidates if p.is_file()), None)


def _no_embedder(retrievers: set[str], manifests: int) -> str:
    """The embedder fact when no attempt recorded one: the reference retriever records
    its embedder whenever dense ran, so for it none means dense was off."""
    if not manifests:
        return UNKNOWN
    return "none (dense off)" if retrievers == {"reference"} else "none recorded"


def report_header(run: RunResult, results_path: str | Path | None = None) -> ReportHeader:
    """The report header: facts from results.json, completed from the attempts file it
    names (the manifests and retriever ids recorded there) when that file is still there
    and its sha256 is the one results.json recorded. Anything else stays ``unknown``."""
    import hashlib

    from codegold.errors import InputError
    from codegold.model.attempts import iter_attempts

    base = header_facts(run)
    path = _attempts_file(run, results_path)
    if path is None:
        return base
    digest = hashlib.sha256()
    repos: set[str] = set()
    revisions: set[str] = set()
    builds: set[str] = set()
    chunkers: set[str] = set()
    retrievers: set[str] = set()
    configs: set[str] = set()
    embedders: set[str] = set()
    manifests = 0
    dates: list[str] = []
    try:
        for attempt in iter_attempts(str(path), digest=digest):
            if attempt.retriever:
                retrievers.add(attempt.retriever)
            if attempt.retriever_config:
                configs.add(attempt.retriever_config)
            if attempt.queried_at:
                dates.append(attempt.queried_at)
            m = attempt.manifest
            if m is None:
                continue
            manifests += 1
            if m.embedder is not None:
                lazy = " (lazy)" if m.embedder.version.endswith("; lazy") else ""
                embedders.add(f"{m.embedder.name}{lazy}")
            if m.repository:
                repos.add(m.repository)
            if m.revision:
                short = m.revision[:12]
                given = m.revision_given
                revisions.add(f"{short} ({given})" if given and given != m.revision else short)
            if m.index_build_id:
                builds.add(m.index_build_id)
            if m.chunker is not None:
                chunkers.add(f"{m.chunker.name} {m.chunker.version}")
            if m.created_at and not attempt.queried_at:
                dates.append(m.created_at)
    except (InputError, OSError, RecursionError):
        return base  # the file changed since it was scored: its facts are not this run's
    if digest.hexdigest() != run.inputs["attempts"].sha256:
        return base

    def pick(found: set[str], fallback: str) -> str:
        return ", ".join(sorted(found)) if found else fallback

    return ReportHeader(
        repository=pick(repos, base.repository), revision=pick(revisions, base.revision),
        index_build=pick(builds, base.index_build), chunker=pick(chunkers, base.chunker),
        retriever=pick(retrievers, base.retriever), retriever_config=pick(configs, UNKNOWN),
        embedder=pick(embedders, _no_embedder(retrievers, manifests)),
        codegold_version=base.codegold_version, cases_digest=base.cases_digest,
        date=max(dates) if dates else base.date)


def report_input(run: RunResult, *, results_name: str, title: str = "codegold report",
                 comparison: Comparison | None = None, verdict: Verdict | None = None,
                 policy_name: str = "", diagnosis_dir: str | Path | None = None) -> ReportInput:
    """One ReportInput from a run and whatever else is at hand."""
    diagnoses, bundles = load_diagnosis_dir(diagnosis_dir) if diagnosis_dir else ({}, {})
    return ReportInput(
        results=run, title=title, results_name=results_name, comparison=comparison,
        diagnoses=diagnoses, bundles=bundles, gate=verdict, gate_policy=policy_name,
        matches=chunk_matches(run), header=report_header(run, results_name))
