"""The gate verdict, as ``codegold gate --json`` writes it and every report renders it.

One :class:`Check` per rule, zero-tolerance option and baseline comparison; the verdict
passes only when every check passes. Computed by ``codegold.gate`` alone.
"""

from __future__ import annotations

import msgspec


class Check(msgspec.Struct, frozen=True, kw_only=True):
    rule: str  # what was asked, in words: "hit_rate >= 0.8 on all cases"
    passed: bool
    figure: str  # what was measured: "0.6000 (n=5)", "2 case(s)"
    threshold: str  # what the figure had to be: ">= 0.8", "<= 0"
    cases: list[str]  # the cases behind a failure, in results order
    note: str | None = None


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    passed: bool
    checks: list[Check]

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]
