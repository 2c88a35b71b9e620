"""Span resolution: judging a team's chunks by what their file and line span hold.

Most production chunkers return a file and a line window, not codegold's symbol names and
roles. :class:`SpanResolver` reads the index built from the case's revision and records,
beside what the retriever reported, which definitions the span holds and which role it
plays (:class:`codegold.model.Resolution`); scoring then judges the resolved view. The
rule is documented in docs/concepts.md ("Span resolution").

Reads ``index`` and ``model``; nothing but the CLI, the adapters and ``trajectories``
import it.
"""

from codegold.resolve.spans import (
    HEADER_OVERLAP,
    AttemptResolver,
    SpanResolver,
    resolve_attempt,
)

__all__ = ["HEADER_OVERLAP", "AttemptResolver", "SpanResolver", "resolve_attempt"]
