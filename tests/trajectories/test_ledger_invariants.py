"""Invariants of the context ledger on generated sequences of reads and hits: every line
shown is covered, reads never overlap each other, nothing is counted twice, order
follows the steps."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.trajectories.ledger import Ledger
from codegold.trajectories.paths import PathPlacer
from codegold.trajectories.records import Seen

SPANS = st.lists(st.tuples(st.sampled_from(["a.py", "b.py"]), st.integers(1, 60),
                           st.integers(0, 25), st.sampled_from(["read", "search_hit"])),
                 max_size=25)


def _ledger(spans: list[tuple[str, int, int, str]]) -> Ledger:
    ledger = Ledger(placer=PathPlacer(["/r"]), revision="r" * 40, label="t")
    for step, (path, start, extra, kind) in enumerate(spans):
        ledger.see(Seen(path=path, kind=kind, start=start,  # type: ignore[arg-type]
                        lines=tuple(f"{path}:{n}" for n in range(start, start + extra + 1))),
                   step, "tool")
    return ledger


@settings(max_examples=200, deadline=None)
@given(SPANS)
def test_every_line_shown_is_covered_once_per_kind(spans: list[tuple[str, int, int, str]]) -> None:
    ledger = _ledger(spans)
    for path in ("a.py", "b.py"):
        shown = {n for p, s, e, _ in spans if p == path for n in range(s, s + e + 1)}
        read = {n for p, s, e, k in spans if p == path and k == "read"
                for n in range(s, s + e + 1)}
        covered = [n for c in ledger.chunks if c.file == path and c.start_line and c.end_line
                   for n in range(c.start_line, c.end_line + 1)]
        assert set(covered) == shown
        read_chunks = [n for c in ledger.chunks if c.file == path and c.kind == "read"
                       and c.start_line and c.end_line
                       for n in range(c.start_line, c.end_line + 1)]
        assert sorted(read_chunks) == sorted(read)  # each read line exactly once
    steps = [c.step or 0 for c in ledger.chunks]
    assert steps == sorted(steps)
    assert len({c.chunk_id for c in ledger.chunks}) == len(ledger.chunks)
    assert all(c.excerpt is None or c.excerpt.startswith(f"{c.file}:{c.start_line}")
               for c in ledger.chunks)
