"""One builder decides dense retrieval for both `run` (registry) and `search`."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import codegold.retrieve.dense as dense_module
from codegold.adapters.reference import ReferenceAdapter, reference_setup
from codegold.adapters.registry import RetrieverOptions, make_retriever
from codegold.retrieve.config import RetrieverConfig


@pytest.fixture
def factories(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    made: list[tuple[str, dict[str, Any]]] = []

    def fake(spec: str, **kwargs: Any) -> object:
        made.append((spec, kwargs))
        return lambda reader: None

    monkeypatch.setattr(dense_module, "dense_factory", fake)
    return made


def test_off_by_default(factories: list[tuple[str, dict[str, Any]]]) -> None:
    config, factory = reference_setup(RetrieverConfig())
    assert factory is None and not config.signals.dense.enabled and factories == []


@pytest.mark.parametrize("kwargs", [{"dense": True}, {"embedder": "dir:/m"}])
def test_flag_or_embedder_turns_it_on(factories: list[tuple[str, dict[str, Any]]],
                                      kwargs: dict[str, Any]) -> None:
    base = RetrieverConfig()
    config, factory = reference_setup(base, **kwargs)
    assert factory is not None and config.signals.dense.enabled
    assert not base.signals.dense.enabled  # the caller's config is not changed
    spec, options = factories[0]
    assert spec == kwargs.get("embedder", base.signals.dense.embedder)
    assert options == {"batch_size": base.signals.dense.batch_size,
                       "max_tokens": base.signals.dense.max_tokens}


def test_config_alone_turns_it_on_and_run_uses_the_same_builder(
        factories: list[tuple[str, dict[str, Any]]]) -> None:
    base = RetrieverConfig()
    enabled = msgspec.structs.replace(base, signals=msgspec.structs.replace(
        base.signals, dense=msgspec.structs.replace(base.signals.dense, enabled=True)))
    retriever = make_retriever("reference", RetrieverOptions(config=enabled))
    assert isinstance(retriever, ReferenceAdapter)
    assert retriever.dense_factory is not None and retriever.config.signals.dense.enabled
    assert [spec for spec, _ in factories] == [base.signals.dense.embedder]
