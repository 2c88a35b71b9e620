"""Named steps run in order: each is timed, reports a :class:`Step` when it ends, and a
CodegoldError fails that step only (the steps that need its product are then skipped
with the reason, so the outcome always says what ran)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from codegold.errors import CodegoldError

StepStatus = Literal["done", "skipped", "failed"]
S = TypeVar("S")


@dataclass(frozen=True)
class Step:
    """One finished step: what ran, how it ended, what it wrote."""

    name: str
    status: StepStatus
    detail: str
    outputs: tuple[str, ...] = ()
    seconds: float = 0.0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Done:
    """What a step that finished hands back: one line, the files it wrote, notes."""

    detail: str
    outputs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


class Steps(Generic[S]):
    """Runs named steps over one shared state, in order, timing them."""

    def __init__(self, state: S, on_step: Callable[[Step], None] | None,
                 on_start: Callable[[str], None] | None) -> None:
        self.state = state
        self.done: list[Step] = []
        self.on_step = on_step
        self.on_start = on_start

    def _record(self, step: Step) -> Step:
        self.done.append(step)
        if self.on_step is not None:
            self.on_step(step)
        return step

    def run(self, name: str, work: Callable[[S], Done], *, unless: str | None = None) -> Step:
        """Run ``work``, or record it skipped when ``unless`` (the reason) is given."""
        if unless is not None:
            return self._record(Step(name=name, status="skipped", detail=unless))
        if self.on_start is not None:
            self.on_start(name)
        started = time.perf_counter()
        try:
            done = work(self.state)
        except CodegoldError as err:
            return self._record(Step(name=name, status="failed", detail=str(err),
                                     seconds=round(time.perf_counter() - started, 2)))
        return self._record(Step(name=name, status="done", detail=done.detail, outputs=done.outputs,
                                 seconds=round(time.perf_counter() - started, 2), notes=done.notes))
