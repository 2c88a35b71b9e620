"""Frozen records shared by every part of codegold, their file formats and JSON Schemas.

This package imports no other part of codegold.
"""

from codegold.model.attempts import (
    Attempt,
    Chunk,
    Edit,
    PassedOver,
    Query,
    Resolution,
    decode_attempt,
    encode_attempt,
    iter_attempts,
    passed_over_text,
)
from codegold.model.cases import ROLES, Case, CaseSet, Context, EvidenceGroup, Target, load_cases
from codegold.model.io import Loaded, load_versioned
from codegold.model.manifest import (
    ChunkerInfo,
    EmbedderInfo,
    Manifest,
    PathPolicyInfo,
    load_manifest,
    manifest_problem,
)
from codegold.model.results import (
    Aggregates,
    CaseResult,
    InputRef,
    RunResult,
    SliceResult,
    Status,
    dump_results,
    iter_results_bytes,
    load_results,
    write_results,
)
from codegold.model.verdict import Check, Verdict

__all__ = [
    "ROLES",
    "Aggregates",
    "Attempt",
    "Case",
    "CaseResult",
    "CaseSet",
    "Check",
    "Chunk",
    "ChunkerInfo",
    "Context",
    "Edit",
    "EmbedderInfo",
    "EvidenceGroup",
    "InputRef",
    "Loaded",
    "Manifest",
    "PassedOver",
    "PathPolicyInfo",
    "Query",
    "Resolution",
    "RunResult",
    "SliceResult",
    "Status",
    "Target",
    "Verdict",
    "decode_attempt",
    "dump_results",
    "encode_attempt",
    "iter_attempts",
    "iter_results_bytes",
    "load_cases",
    "load_manifest",
    "load_results",
    "load_versioned",
    "manifest_problem",
    "passed_over_text",
    "write_results",
]
