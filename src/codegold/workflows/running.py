"""The run workflow: gold cases through a retriever into attempts.jsonl (never scores)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from codegold.adapters.mcp import McpSettings
from codegold.adapters.registry import (
    RetrieverOptions,
    close_retriever,
    config_digest,
    make_retriever,
)
from codegold.adapters.resolving import ResolvingRetriever
from codegold.adapters.runner import Dispatch, RunSummary, run_cases, wait_for_indexes
from codegold.adapters.sharded import shard_dispatch
from codegold.errors import InputError
from codegold.execute import ExecutorSpec, open_executor, parse_executor
from codegold.index.catalog import IndexSet
from codegold.model import load_cases
from codegold.plumbing.http import redact_url
from codegold.resolve import AttemptResolver
from codegold.retrieve.config import load_config
from codegold.workflows.indexing import WarmProgressFn, index_case_revisions
from codegold.workflows.progress import ManyProgressFn, RunProgress


@dataclass(frozen=True)
class RunRequest:
    """Everything one run needs; see ``codegold run --help`` for each setting."""

    cases: str
    output: Path
    index: str | None = None  # an index directory or a folder of them
    repo: str | None = None  # build each case revision's missing index into ``index`` first
    retriever: str = "reference"
    resume: bool = False
    workers: int = 1
    config: str | None = None
    dense: bool | None = None
    embedder: str | None = None
    timeout: float = 30.0
    retries: int = 2
    resolve: str | None = None  # "": resolve against ``index``; a path: against that
    run_id: str | None = None
    repeat: int = 1
    wait_for_index: float | None = None  # seconds to wait for every case revision's index
    executor: ExecutorSpec = field(default_factory=lambda: parse_executor("local"))
    python: str | None = None  # python:module:function in this interpreter, not codegold's
    mcp_tool: str | None = None  # mcp: retrievers (see docs/retrievers.md)
    mcp_args: str | None = None
    mcp_parse: str = "auto"
    mcp_setup: str | None = None
    mcp_checkout: str | None = None

    def mcp_settings(self) -> McpSettings | None:
        """The mcp: settings; an InputError when one is given for another retriever."""
        given = [name for name, value in (
            ("mcp_tool", self.mcp_tool), ("mcp_args", self.mcp_args),
            ("mcp_setup", self.mcp_setup), ("mcp_checkout", self.mcp_checkout),
            ("mcp_parse", None if self.mcp_parse == "auto" else self.mcp_parse))
            if value is not None]
        if not self.retriever.startswith("mcp:"):
            if given:
                named = ", ".join("{" + name + "}" for name in given)
                raise InputError(f"{named} only apply to mcp: retrievers; "
                                 f"{{retriever}} is {redact_url(self.retriever)!r}",
                                 settings=(*given, "retriever"))
            return None
        return McpSettings(tool=self.mcp_tool, arguments=self.mcp_args, parse=self.mcp_parse,
                           setup=self.mcp_setup, checkout=self.mcp_checkout, repo=self.repo)

    @property
    def is_reference(self) -> bool:
        return self.retriever.split(":", 1)[0] == "reference"


def run(request: RunRequest, progress: RunProgress | None = None, *,
        index_progress: ManyProgressFn | None = None,
        warm_progress: WarmProgressFn | None = None) -> RunSummary:
    """Run every case of ``request.cases`` and append its attempts to ``request.output``.

    With ``repo``, first index each case revision that has no index (``index_progress``
    hears about it); with an executor other than this process, cases are sharded by
    revision onto its workers and this process writes every attempt.
    """
    case_set = load_cases(request.cases)
    config = load_config(request.config)
    if request.index is None and request.is_reference:
        raise InputError("the reference retriever needs {index} (an index directory or a "
                         "folder of them); build one with `codegold index`",
                         settings=("index",))
    with contextlib.ExitStack() as stack:
        pool = None  # started when first needed: every cheap check comes before Ray's start
        if request.repo is not None:
            if request.index is None:
                raise InputError("{repo} needs {index}: the folder that holds one index per "
                                 "revision", settings=("repo", "index"))
            pool = stack.enter_context(open_executor(request.executor))
            index_case_revisions(request.repo, Path(request.index), case_set.cases,
                                 executor=pool, progress=index_progress,
                                 warm=request.is_reference, warm_progress=warm_progress)
        if request.wait_for_index is not None:
            if request.index is None:
                raise InputError("{wait_for_index} needs {index}: the folder to wait on",
                                 settings=("wait_for_index", "index"))
            wait_for_indexes(Path(request.index), {case.revision for case in case_set.cases},
                             request.wait_for_index)
        indexes = IndexSet.from_path(request.index) if request.index else IndexSet.empty()
        warnings = tuple(message for _, message in indexes.repository_mismatches(case_set.cases))
        if request.python is not None and not request.retriever.startswith("python:"):
            raise InputError(f"{{python}} applies to a python:module:function retriever, not "
                             f"{request.retriever.split(':', 1)[0]!r}", field="python",
                             settings=("python",))
        options = RetrieverOptions(config=config, timeout=request.timeout,
                                   retries=request.retries, python=request.python,
                                   dense=True if request.embedder is not None else request.dense,
                                   embedder=request.embedder, mcp=request.mcp_settings())
        retriever = make_retriever(request.retriever, options)
        resolve_set = None
        if request.resolve is not None:
            if not request.resolve and request.index is None:
                raise InputError("{resolve} needs an index: give {index}, or {resolve} INDEX",
                                 settings=("resolve", "index"))
            resolve_set = IndexSet.from_path(request.resolve) if request.resolve else indexes
            retriever = ResolvingRetriever(retriever, AttemptResolver(resolve_set))
        dispatch: Dispatch | None = None
        if request.executor.kind != "local":
            pool = pool or stack.enter_context(open_executor(request.executor))
            # The retriever above only checked the --retriever value (it opens indexes on
            # first use, so holds nothing yet): each worker builds its own.
            dispatch = shard_dispatch(pool, request.retriever, options, indexes,
                                      resolve=resolve_set, label=request.retriever,
                                      default_k=config.candidates.default_k,
                                      require_index=request.is_reference,
                                      repeat=request.repeat)
        try:
            summary = run_cases(
                case_set.cases, retriever, indexes, request.output,
                label=redact_url(request.retriever), resume=request.resume,
                workers=request.workers, run_id=request.run_id,
                default_k=config.candidates.default_k, require_index=request.is_reference,
                repeat=request.repeat,
                on_attempt=progress.attempted if progress is not None else None,
                on_plan=progress.planned if progress is not None else None,
                dispatch=dispatch,
                config_digest=config_digest(request.retriever, options,
                                            resolving=request.resolve is not None))
            describe = getattr(getattr(retriever, "inner", retriever), "describe", None)
            facts = str(describe()) if callable(describe) else None
        finally:
            close_retriever(retriever)
        return msgspec.structs.replace(summary, retriever_facts=facts, warnings=warnings)
