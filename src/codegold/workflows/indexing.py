"""Indexing workflows: one revision, many revisions of one repository, every revision a
suite of cases pins (across a folder of clones), and the full dense pass."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from codegold.errors import CodegoldError, InputError
from codegold.execute import Executor, ExecutorSpec, open_executor, parse_executor
from codegold.index.build import build_index, check_store_apart
from codegold.index.catalog import IndexSet
from codegold.index.chunkstore import ChunkStore
from codegold.index.many import (
    CaseSource,
    ManyProgress,
    ManyResult,
    build_many,
    case_sources,
    expand_revisions,
    refuse_file_and_revision,
)
from codegold.index.many import read_revisions as _read_revisions
from codegold.index.outdir import check_outside_git_dir
from codegold.index.policy import PathPolicy, load_policy
from codegold.model import Case, Manifest, load_cases
from codegold.retrieve.config import DenseConfig, load_config
from codegold.retrieve.warm import WarmProgress, lexical_engines, missing_engines, warm_lexical
from codegold.workflows.progress import (
    BuildProgressFn,
    EmbedProgressFn,
    ManyProgressFn,
    PrepareProgress,
)

if TYPE_CHECKING:  # the dense modules load only when a workflow embeds
    from codegold.retrieve.embedpass import EmbedSummary


@dataclass(frozen=True)
class IndexRequest:
    """One index of ``repo`` at ``revision`` into ``output``."""

    repo: Path
    revision: str
    output: Path
    policy: PathPolicy | None = None
    reuse: Path | None = None  # an earlier index whose unchanged files are copied
    repository: str | None = None  # manifest name (None: from the origin remote)
    store: Path | None = None  # a chunk store shared with other builds


def index(request: IndexRequest, progress: BuildProgressFn | None = None) -> Manifest:
    """Build one index; return its manifest."""
    if request.store is not None:
        check_store_apart(request.store, request.output)
        check_outside_git_dir(request.store, request.repo, what="chunk store",
                              option="--store")
    chunks = ChunkStore.open(request.store) if request.store is not None else None
    return build_index(request.repo, request.revision, request.output, policy=request.policy,
                       reuse_from=request.reuse, progress=progress,
                       repository=request.repository, store=chunks)


@dataclass(frozen=True)
class BuildRequest:
    """``codegold index build``: ``repo`` at one ``revision`` into ``output``, or at many
    (``revisions``, or every revision ``cases`` pins) into ``output/<commit>``; exactly one
    of the three. Contradictory settings are refused when the request is made."""

    repo: Path
    output: Path
    revision: str | None = None
    revisions: str | None = None  # a file with one revision per line, or REV,REV,...
    cases: Path | None = None  # with ``repo`` a folder of clones: each case's repository's
    store: Path | None = None  # chunk store (many revisions: default output/.chunkstore)
    no_store: bool = False  # many revisions: each from scratch
    policy: Path | None = None  # path policy file
    reuse: Path | None = None  # one revision: an earlier index (default: the one at output)
    repository: str | None = None  # manifest name
    embed: bool = False  # also embed every chunk now
    skip_missing_blobs: bool = False  # a partial clone's missing blobs left out, not an error
    executor: ExecutorSpec = field(default_factory=lambda: parse_executor("local"))

    def __post_init__(self) -> None:
        given = [name for name in ("revision", "revisions", "cases")
                 if getattr(self, name) is not None]
        if len(given) != 1:
            named = ", ".join("{" + name + "}" for name in given) or "none"
            raise InputError(f"index needs exactly one of {{revision}}, {{revisions}} or "
                             f"{{cases}} (got {named})",
                             settings=("revision", "revisions", "cases"))
        if self.store is not None and self.no_store:
            raise InputError("{store} and {no_store} contradict each other; give one",
                             settings=("store", "no_store"))
        if self.revision is not None and self.executor.kind != "local":
            raise InputError(f"{{executor}} {self.executor} applies to many-revision builds "
                             "({revisions} or {cases}); a single {revision} builds here",
                             settings=("executor", "revisions", "cases", "revision"))


@dataclass(frozen=True)
class Built:
    """The indexes a build wrote (folder and manifest each), and for many revisions what
    was already there, parsed and reused."""

    indexes: tuple[tuple[Path, Manifest], ...]
    many: ManyResult | None = None  # None: a single-revision build


def build_indexes(request: BuildRequest, caches: PrepareProgress, *,
                  progress: BuildProgressFn | None = None,
                  many_progress: ManyProgressFn | None = None) -> Built:
    """Build what ``request`` names (``progress`` hears one build, ``many_progress`` many),
    then pay the new indexes' query-time caches (:func:`prepare_caches`, which ``caches``
    watches)."""
    policy = load_policy(request.policy) if request.policy is not None else None
    if request.skip_missing_blobs:
        policy = msgspec.structs.replace(policy or PathPolicy(), skip_missing_blobs=True)
    if request.revision is not None:
        manifest = index(IndexRequest(repo=request.repo, revision=request.revision,
                                      output=request.output, policy=policy,
                                      reuse=request.reuse, repository=request.repository,
                                      store=request.store), progress=progress)
        prepare_caches([request.output], caches, embed=request.embed, store=request.store)
        return Built(indexes=((request.output, manifest),))
    if request.reuse is not None:
        raise InputError("{reuse} applies to a single {revision} build; many-revision "
                         "builds share the chunk store instead", settings=("reuse", "revision"))
    if request.output.resolve() == request.repo.resolve():
        raise InputError("{output} is the repository being indexed; a folder of indexes goes "
                         "beside it or below it (say .codegold/indexes), never the "
                         "repository itself", path=str(request.output), settings=("output",))
    sources = (case_revision_sources(request.repo, load_cases(str(request.cases)).cases)
               if request.cases is not None
               else revision_sources(request.repo, request.revisions or ""))
    with open_executor(request.executor) as pool:
        result = index_many(IndexManyRequest(sources=sources, output=request.output,
                                             store=request.store, use_store=not request.no_store,
                                             policy=policy, repository=request.repository),
                            executor=pool, progress=many_progress)
        folders = tuple((request.output / str(m.revision), m) for m in result.built)
        # (an interrupted run's indexes first: the new ones may derive from them)
        prepare_caches([*unwarmed(result.skipped_dirs), *(folder for folder, _ in folders)],
                       caches, embed=request.embed, store=result.store)
    return Built(indexes=folders, many=result)


WarmProgressFn = Callable[[WarmProgress], None]


def warm_total(dirs: Sequence[Path]) -> int:
    """How many BM25 engines :func:`warm_indexes` builds over ``dirs`` at most."""
    return len(lexical_engines(load_config())) * len(dirs)


def warm_indexes(dirs: Sequence[Path], progress: WarmProgressFn | None = None, *,
                 store: Path | None = None) -> None:
    """Build, in each of ``dirs``, every BM25 cache the default configuration reads: the
    cost a first query would otherwise pay. ``progress`` hears the engines of all the
    indexes counted together. ``store`` is the chunk store the indexes were built with:
    files an earlier revision counted there are not counted again."""
    config = load_config()
    chunks = ChunkStore.open(store) if store is not None else None
    per_index = len(lexical_engines(config))
    total = per_index * len(dirs)
    for number, folder in enumerate(dirs):
        def show(event: WarmProgress, before: int = number * per_index) -> None:
            if progress is not None:
                progress(replace(event, done=before + event.done, total=total))

        # Counted in worker processes as the build chunked (None: its own choice).
        warm_lexical(folder, config, progress=show, store=chunks, jobs=None)


def prepare_caches(dirs: Sequence[Path], progress: PrepareProgress, *,
                   embed: bool = False, store: Path | None = None) -> None:
    """Pay the query-time caches of freshly built indexes now: every BM25 engine the
    default configuration reads (from the chunk ``store`` they were built with, when
    given, for the files it has seen), and with ``embed`` every chunk's vector (the full
    dense pass of :func:`embed`, default embedder and store)."""
    if not dirs:
        return
    started = time.perf_counter()
    progress.warming(warm_total(dirs))
    warm_indexes(dirs, progress.warmed_engine, store=store)
    progress.warmed(len(dirs), time.perf_counter() - started)
    if not embed:
        return
    from codegold.retrieve.embedpass import embed_indexes  # the dense modules: only here

    settings = load_config().signals.dense
    progress.embedding()
    summary = embed_indexes(list(dirs), settings.embedder, max_tokens=settings.max_tokens,
                            batch_size=settings.batch_size,
                            store=Path(settings.store) if settings.store else None,
                            progress=progress.embedded_text)
    progress.embedded(summary)


def revision_sources(repo: Path, revisions: str) -> tuple[CaseSource, ...]:
    """The one source ``--revisions`` names: ``revisions`` is a file with one revision per
    line, or a comma-separated list; a range ``A..B`` in either stands for its commits."""
    refuse_file_and_revision(repo, revisions)
    return (CaseSource(Path(repo), None, {},
                       tuple(expand_revisions(repo, _read_revisions(revisions)))),)


def case_revision_sources(repo: str | Path, cases: Sequence[Case]) -> tuple[CaseSource, ...]:
    """The clones (``repo`` itself, or the clones in a folder of them) that hold the
    revisions ``cases`` pin."""
    return tuple(case_sources(repo, cases))


@dataclass(frozen=True)
class IndexManyRequest:
    """Every revision of each source into ``output/<commit>``, one index each."""

    sources: tuple[CaseSource, ...]
    output: Path
    store: Path | None = None  # default: output/.chunkstore unless use_store is False
    use_store: bool = True
    policy: PathPolicy | None = None
    repository: str | None = None  # one name for every manifest (one source only)


def index_many(request: IndexManyRequest, *, executor: Executor | None = None,
               progress: ManyProgressFn | None = None) -> ManyResult:
    """Build every revision of every source into ``request.output``, one progress over
    all of them (revisions counted across sources); the results added up. A build refused
    before it wrote anything leaves no empty folder behind."""
    sources = request.sources
    if request.repository is not None and len(sources) > 1:
        names = ", ".join(sorted(str(s.repository or s.repo) for s in sources))
        raise InputError(f"{{repository}} names one repository, but these cases pin "
                         f"revisions of {len(sources)} ({names}); leave it out",
                         settings=("repository",))
    fresh = not request.output.exists()
    try:
        return _build_sources(request, executor, progress)
    except BaseException:
        output = request.output
        if fresh and output.is_dir() and not any(output.iterdir()):
            output.rmdir()
        raise


def _build_sources(request: IndexManyRequest, executor: Executor | None,
                   show: ManyProgressFn | None) -> ManyResult:
    sources = request.sources
    results = []
    before = 0  # revisions of the sources already built
    for number, source in enumerate(sources):
        later = sum(len(other.revisions) for other in sources[number + 1:])

        def progress(event: ManyProgress, before: int = before, later: int = later) -> None:
            if show is not None:
                show(replace(event, done=event.done + before,
                             total=before + event.total + later))

        result = build_many(source.repo, request.output, source.revisions,
                            repository=request.repository or source.repository,
                            pinned_by=source.pinned, progress=progress, executor=executor,
                            store=request.store, use_store=request.use_store,
                            policy=request.policy)
        results.append(result)
        before += len(result.built) + len(result.skipped)
    if len(results) == 1:
        return results[0]
    return ManyResult(built=tuple(m for r in results for m in r.built),
                      skipped=tuple(c for r in results for c in r.skipped),
                      store=next((r.store for r in results if r.store), None),
                      parsed=sum(r.parsed for r in results),
                      reused=sum(r.reused for r in results),
                      skipped_dirs=tuple(d for r in results for d in r.skipped_dirs))


def unwarmed(dirs: Sequence[Path]) -> list[Path]:
    """The indexes of ``dirs`` that lack a BM25 cache the default configuration reads:
    those a many-revision run built before it was stopped (its caches come after every
    revision), which a rerun skips as complete. One that no longer opens is left to the
    command that reads it."""
    config = load_config()
    found = []
    for folder in dirs:
        try:
            if missing_engines(folder, config):
                found.append(folder)
        except CodegoldError:
            continue
    return found


def index_case_revisions(repo: str | Path, folder: Path, cases: Sequence[Case], *,
                         executor: Executor | None = None,
                         progress: ManyProgressFn | None = None, warm: bool = False,
                         warm_progress: WarmProgressFn | None = None) -> ManyResult:
    """Index every revision ``cases`` pin that has no complete index in ``folder`` (for
    ``run --repo`` and ``cases check --repo``), sharing ``folder/.chunkstore``; ``warm``
    also builds the BM25 caches of the indexes built (for a run that queries them next)."""
    result = index_many(IndexManyRequest(case_revision_sources(repo, cases), folder),
                        executor=executor, progress=progress)
    if warm:
        warm_indexes([*unwarmed(result.skipped_dirs),
                      *(folder / str(m.revision) for m in result.built)], warm_progress,
                     store=result.store)
    return result


@dataclass(frozen=True)
class EmbedRequest:
    """The full dense pass over ``index`` (an index or a folder of them)."""

    index: Path
    config: str | None = None  # retriever config: embedder, store and batch settings
    embedder: str | None = None  # None: the config's signals.dense.embedder
    store: Path | None = None  # None: the config's signals.dense.store, else the default
    executor: str = "local"  # --executor: where the batches run
    gpus: float = 0.0


@dataclass(frozen=True)
class EmbedTargets:
    """What an embed request names, checked: the index folders (by revision), the vector
    store (None: the default place), where the jobs run, and the dense settings."""

    dirs: tuple[Path, ...]
    store: Path | None
    where: ExecutorSpec
    settings: DenseConfig


def embed_targets(request: EmbedRequest) -> EmbedTargets:
    """Check ``request`` and name what it embeds (before any executor starts, so the
    caller can guard the store against overwriting an index)."""
    settings = load_config(request.config).signals.dense
    where = parse_executor(request.executor)
    if request.gpus > 0 and where.kind == "local":
        raise InputError("{gpus} asks Ray to place jobs on GPUs; give {executor} ray or "
                         "ray://HOST:PORT too", field="gpus", settings=("gpus", "executor"))
    found = IndexSet.from_path(request.index).by_revision
    dirs = tuple(found[revision] for revision in sorted(found))
    chosen = request.store if request.store is not None else (
        Path(settings.store) if settings.store else None)
    return EmbedTargets(dirs=dirs, store=chosen, where=where, settings=settings)


def embed(request: EmbedRequest, targets: EmbedTargets, *, executor: Executor | None = None,
          progress: EmbedProgressFn | None = None) -> EmbedSummary:
    """Embed every chunk of the request's indexes into the vector store."""
    from codegold.retrieve.embedpass import embed_indexes

    settings = targets.settings
    return embed_indexes(list(targets.dirs), request.embedder or settings.embedder,
                         max_tokens=settings.max_tokens, batch_size=settings.batch_size,
                         store=targets.store, executor=executor, gpus=request.gpus,
                         progress=progress)
