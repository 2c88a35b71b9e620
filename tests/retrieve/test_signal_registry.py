"""The signal registry: every signal has its settings and fusion weight, and one that reads
the others' rankings runs after them."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from pathlib import Path

from codegold.index.store import IndexReader
from codegold.model import EmbedderInfo
from codegold.retrieve import signals
from codegold.retrieve.config import Signal, SignalsConfig, load_config
from codegold.retrieve.reference import ReferenceRetriever


def test_every_registered_signal_has_settings_and_a_fusion_weight() -> None:
    config = load_config()
    names = [s.name for s in signals.SIGNALS]
    assert len(names) == len(set(names))
    assert set(names) == set(typing.get_args(typing.get_args(Signal)[0]))
    assert set(names) == set(SignalsConfig.__struct_fields__)
    assert set(names) <= {str(k) for k in config.fusion.weights}


class _RecordingDense:
    name = "recording"

    def __init__(self) -> None:
        self.pools: list[Sequence[str] | None] = []

    def search(self, text: str, limit: int,
               candidates: Sequence[str] | None = None) -> list[tuple[str, float]]:
        self.pools.append(candidates)
        return [(c, 1.0) for c in (candidates or [])[:limit]]

    def info(self) -> EmbedderInfo:
        raise NotImplementedError


def test_lazy_dense_runs_after_the_signals_whose_best_chunks_it_scores(
        fixture_index: Path) -> None:
    config = load_config(overrides={"signals": {"dense": {"enabled": True}}})
    dense = _RecordingDense()
    with IndexReader.open(fixture_index) as reader:
        result = ReferenceRetriever(reader, config, dense=dense).retrieve(
            "how does create_session reject an expired refresh token", k=3)
    assert list(result.signal_hits)[-1] == "dense"
    assert dense.pools and dense.pools[0]  # the other signals had ranked chunks already
    assert result.signal_hits["dense"] == len(dense.pools[0][:config.candidates.per_signal])
