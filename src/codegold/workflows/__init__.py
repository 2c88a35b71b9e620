"""What a user asks codegold to do, one function each, over typed requests.

Every CLI command parses its options into a request, calls one workflow and renders what
comes back; the demo is a list of named steps over the same functions. A workflow wires
the parts (index, adapters, evaluate, gate, diagnose, report, …) and reports progress
through the typed callbacks of :mod:`codegold.workflows.progress`; it never prints.

============================  =====================================================
workflow                      does
============================  =====================================================
:func:`build_indexes`         ``codegold index build``: one revision or many, caches paid
:func:`index`                 one index of a repository at one revision
:func:`index_many`            many revisions (of one clone or a folder of clones)
:func:`index_case_revisions`  every revision a suite of cases pins, if missing
:func:`embed`                 the full dense pass over indexes
:func:`prepare_caches`        freshly built indexes' query-time caches paid now
:func:`inspect`               an index's manifest, inventory, a file's or symbol's chunks
:func:`parse_file`            one file chunked outside any index
:func:`collect_garbage`       chunk store entries no kept index uses, removed
:func:`search`                one query against one index (and a case stanza of picks)
:func:`import_trajectories`   agent trajectories as attempts
:func:`run`                   gold cases through a retriever into attempts.jsonl
:func:`evaluate`              attempts scored into results.json
:func:`tune`                  the reference retriever's settings tuned, judged held out
:func:`check_cases`           every label checked against its revision's index
:func:`diagnose`              the cause and owner of each failing case
:func:`link`                  answers tied to the retrieval they received, and classified
:func:`flaky_cases`           cases whose repeated attempts disagree
:func:`export_trec_files`     TREC runs and qrels for other tools
:func:`decide`                a gate policy's verdict
:func:`compare`               results files compared: BASE NEW, or several systems
:func:`render`                the HTML / Markdown / JUnit report
============================  =====================================================
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codegold.workflows.checking import CheckRequest, check_cases
    from codegold.workflows.comparing import CompareRequest, compare
    from codegold.workflows.diagnosing import DiagnoseRequest, Diagnosis, diagnose
    from codegold.workflows.exporting import TrecRequest, export_trec_files
    from codegold.workflows.gating import GateRequest, decide
    from codegold.workflows.importing import TrajectoriesRequest, import_trajectories
    from codegold.workflows.indexing import (
        BuildRequest,
        Built,
        EmbedRequest,
        EmbedTargets,
        IndexManyRequest,
        IndexRequest,
        build_indexes,
        case_revision_sources,
        embed,
        embed_targets,
        index,
        index_case_revisions,
        index_many,
        prepare_caches,
        revision_sources,
        warm_indexes,
        warm_total,
    )
    from codegold.workflows.inspecting import (
        DefinitionView,
        FileView,
        Garbage,
        GarbageRequest,
        Inspection,
        InspectRequest,
        collect_garbage,
        inspect,
        parse_file,
    )
    from codegold.workflows.linking import LinkRequest, link
    from codegold.workflows.progress import CacheProgress, PrepareProgress, RunProgress
    from codegold.workflows.repeating import FlakyRequest, flaky_cases
    from codegold.workflows.reporting import ReportRequest, render
    from codegold.workflows.running import RunRequest, run
    from codegold.workflows.scoring import EvaluateRequest, Evaluation, evaluate
    from codegold.workflows.searching import Search, SearchRequest, search
    from codegold.workflows.tuning import Tuned, TuneRequest, tune

# name -> the module defining it: a command imports only the workflow it calls (and what
# that one needs), not every part, so `codegold eval` never loads tree-sitter.
_HOMES: dict[str, str] = {
    "CheckRequest": "checking", "check_cases": "checking",
    "CompareRequest": "comparing", "compare": "comparing",
    "DiagnoseRequest": "diagnosing", "Diagnosis": "diagnosing", "diagnose": "diagnosing",
    "TrecRequest": "exporting", "export_trec_files": "exporting",
    "GateRequest": "gating", "decide": "gating",
    "LinkRequest": "linking", "link": "linking",
    "FlakyRequest": "repeating", "flaky_cases": "repeating",
    "TrajectoriesRequest": "importing", "import_trajectories": "importing",
    "BuildRequest": "indexing", "Built": "indexing", "build_indexes": "indexing",
    "EmbedRequest": "indexing", "EmbedTargets": "indexing", "IndexManyRequest": "indexing",
    "IndexRequest": "indexing",
    "case_revision_sources": "indexing", "embed": "indexing", "embed_targets": "indexing",
    "index": "indexing", "index_case_revisions": "indexing", "index_many": "indexing",
    "revision_sources": "indexing", "warm_indexes": "indexing", "warm_total": "indexing",
    "DefinitionView": "inspecting", "FileView": "inspecting", "Garbage": "inspecting",
    "GarbageRequest": "inspecting", "Inspection": "inspecting", "InspectRequest": "inspecting",
    "collect_garbage": "inspecting", "inspect": "inspecting", "parse_file": "inspecting",
    "prepare_caches": "indexing",
    "CacheProgress": "progress", "PrepareProgress": "progress", "RunProgress": "progress",
    "ReportRequest": "reporting", "render": "reporting",
    "RunRequest": "running", "run": "running",
    "EvaluateRequest": "scoring", "Evaluation": "scoring", "evaluate": "scoring",
    "Search": "searching", "SearchRequest": "searching", "search": "searching",
    "Tuned": "tuning", "TuneRequest": "tuning", "tune": "tuning",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "BuildRequest",
    "Built",
    "CacheProgress",
    "CheckRequest",
    "CompareRequest",
    "DefinitionView",
    "DiagnoseRequest",
    "Diagnosis",
    "EmbedRequest",
    "EmbedTargets",
    "EvaluateRequest",
    "Evaluation",
    "FileView",
    "FlakyRequest",
    "Garbage",
    "GarbageRequest",
    "GateRequest",
    "IndexManyRequest",
    "IndexRequest",
    "InspectRequest",
    "Inspection",
    "LinkRequest",
    "PrepareProgress",
    "ReportRequest",
    "RunProgress",
    "RunRequest",
    "Search",
    "SearchRequest",
    "TrajectoriesRequest",
    "TrecRequest",
    "TuneRequest",
    "Tuned",
    "build_indexes",
    "case_revision_sources",
    "check_cases",
    "collect_garbage",
    "compare",
    "decide",
    "diagnose",
    "embed",
    "embed_targets",
    "evaluate",
    "export_trec_files",
    "flaky_cases",
    "import_trajectories",
    "index",
    "index_case_revisions",
    "index_many",
    "inspect",
    "link",
    "parse_file",
    "prepare_caches",
    "render",
    "revision_sources",
    "run",
    "search",
    "tune",
    "warm_indexes",
    "warm_total",
]
