"""Trajectory formats, registered by name: each reads one file into trajectories.

``read(path, raw, notes)`` decodes ``raw`` (the file's bytes) and returns the
trajectories it holds, appending to ``notes`` whatever it had to skip; ``SUFFIXES`` are
the file names a directory walk picks up. ``mapped`` also takes the ``--map`` fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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

_OPENHANDS_KINDS = {"ActionEvent", "ObservationEvent", "MessageEvent", "SystemPromptEvent"}


def _openhands_event(item: Any) -> bool:
    if isinstance(item, list):  # the older [action, observation] pairs
        return any(_openhands_event(part) for part in item)
    return isinstance(item, dict) and (
        item.get("kind") in _OPENHANDS_KINDS or isinstance(item.get("action"), str)
        or isinstance(item.get("observation"), str))


def looks_like(data: Any) -> str | None:
    """The format a decoded trajectory's shape names (a glance at its first values), or
    None: what a file read as the wrong format is said to be."""
    items = data if isinstance(data, list) else [data]
    for item in items[:20]:
        if not isinstance(item, dict):
            continue
        if "resourceSpans" in item:
            return otel.NAME
        if isinstance(item.get("trajectory"), list):
            return swe_agent.NAME
        if isinstance(item.get("messages"), list):
            return mini_swe_agent.NAME
        if item.get("type") in ("user", "assistant") and isinstance(item.get("message"), dict):
            return claude_code.NAME
        history = item.get("history")
        if isinstance(history, list):
            if any(_openhands_event(e) for e in history[:50]):
                return openhands.NAME
            if any(isinstance(e, dict) and "role" in e for e in history[:50]):
                return swe_agent.NAME
        if _openhands_event(item):
            return openhands.NAME
        if item.get("role") in ("system", "user", "assistant", "tool") and "content" in item:
            return mini_swe_agent.NAME
    return None


__all__ = ["FORMATS", "Format", "Reader", "looks_like"]
