"""Trajectory formats, registered by name: each reads one file into trajectories.

``read(path, raw, notes)`` decodes ``raw`` (the file's bytes) and returns the
trajectories it holds, appending to ``notes`` whatever it had to skip; ``SUFFIXES`` are
the file names a directory walk picks up. ``mapped`` also takes the ``--map`` fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from codegold.trajectories.formats import (
    claude_code,
    mapped,
    mini_swe_agent,
    openhands,
    otel,
    swe_agent,
)
from codegold.trajectories.records import Trajectory

Reader = Callable[[str, bytes, list[str], Mapping[str, str]], list[Trajectory]]


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    read: Reader
    summary: str


def _plain(read: Callable[[str, bytes, list[str]], list[Trajectory]]) -> Reader:
    def reader(path: str, raw: bytes, notes: list[str], mapping: Mapping[str, str]
               ) -> list[Trajectory]:
        return read(path, raw, notes)

    return reader


FORMATS: dict[str, Format] = {
    swe_agent.NAME: Format(swe_agent.NAME, swe_agent.SUFFIXES, _plain(swe_agent.read),
                           "SWE-agent .traj (trajectory steps of action/observation)"),
    mini_swe_agent.NAME: Format(mini_swe_agent.NAME, mini_swe_agent.SUFFIXES,
                                _plain(mini_swe_agent.read),
                                "mini-swe-agent .traj.json (chat messages, shell commands)"),
    openhands.NAME: Format(openhands.NAME, openhands.SUFFIXES, _plain(openhands.read),
                           "OpenHands event stream (actions and observations)"),
    claude_code.NAME: Format(claude_code.NAME, claude_code.SUFFIXES, _plain(claude_code.read),
                             "Claude Code session transcript (JSON lines)"),
    otel.NAME: Format(otel.NAME, otel.SUFFIXES, _plain(otel.read),
                      "OTLP JSON traces (GenAI execute_tool and OpenInference retrieval spans)"),
    mapped.NAME: Format(mapped.NAME, mapped.SUFFIXES, mapped.read_mapped,
                        "any other JSON, through --map field paths"),
}

__all__ = ["FORMATS", "Format", "Reader"]
