"""Helpers of the executor suites: where the bundled example is, and how two runs'
outputs are compared."""

from __future__ import annotations

import json
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
CASES = EXAMPLE / "cases.yaml"
# Manifests record when they were built; pinned so that two builds are comparable.
EPOCH = "1767225600"


def normalised_attempts(path: Path) -> list[str]:
    """Each attempt line without the fields that record when and how long it ran
    (``queried_at``, ``timing_ms``); everything else must match byte for byte."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("queried_at", None)
        record.pop("timing_ms", None)
        lines.append(json.dumps(record, sort_keys=True))
    return lines


def strip_timing(path: Path, out: Path) -> Path:
    """``path`` with ``queried_at`` fixed and ``timing_ms`` removed, line order kept
    (what eval then reads from both runs is the same but for the ranking itself)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["queried_at"] = "2030-01-01T00:00:00.000Z"
        record.pop("timing_ms", None)
        lines.append(json.dumps(record))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
