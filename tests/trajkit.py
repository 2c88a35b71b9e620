"""Shared helpers of the trajectory import tests: the fixture folder and a compact view
of what an attempt holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegold.model import Attempt

FIXTURES = Path(__file__).resolve().parent / "trajectories" / "fixtures"


def spans(attempt: Attempt) -> list[tuple[Any, ...]]:
    """``(step, kind, tool, file, start, end)`` of every ranked chunk, in order."""
    return [(c.step, c.kind, c.tool, c.file, c.start_line, c.end_line) for c in attempt.ranked]
