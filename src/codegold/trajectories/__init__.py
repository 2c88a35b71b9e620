"""Agent trajectories as attempts: the context an agent built, scored like a retriever's.

:func:`import_trajectories` reads SWE-agent, mini-swe-agent, OpenHands, Claude Code and
OpenTelemetry trajectories (and any JSON through ``--map`` field paths), one attempt per
trajectory: ``ranked`` is the evidence in the order it first entered the model's input
(reads and search hits, with step, tool, kind and size), ``edits`` what the agent
changed, ``final`` its patch or answer. See docs/agents.md.

Reads ``model``, ``plumbing``, and ``index``/``resolve`` for ``--index``/``--resolve``.
"""

from codegold.trajectories.formats import FORMATS
from codegold.trajectories.importer import (
    MAX_FILES,
    MAX_TRAJECTORY_BYTES,
    ImportReport,
    ImportResult,
    TrajectoryReport,
    import_trajectories,
)

__all__ = ["FORMATS", "MAX_FILES", "MAX_TRAJECTORY_BYTES", "ImportReport", "ImportResult",
           "TrajectoryReport", "import_trajectories"]
