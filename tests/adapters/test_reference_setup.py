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


def _with_dense(enabled: object) -> RetrieverConfig:
    base = RetrieverConfig()
    return msgspec.structs.replace(base, signals=msgspec.structs.replace(
        base.signals, dense=msgspec.structs.replace(base.signals.dense, enabled=enabled)))


def test_off_in_config_or_by_flag(factories: list[tuple[str, dict[str, Any]]]) -> None:
    config, factory = reference_setup(_with_dense(False))
    assert factory is None and config.signals.dense.enabled is False and factories == []
    config, factory = reference_setup(RetrieverConfig(), dense=False)  # --no-dense beats auto
    assert factory is None and config.signals.dense.enabled is False and factories == []


@pytest.fixture
def no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEGOLD_DENSE", raising=False)


@pytest.mark.usefixtures("no_environment")
def test_off_by_default_and_auto_is_on_when_the_extra_loads(
        factories: list[tuple[str, dict[str, Any]]]) -> None:
    assert RetrieverConfig().signals.dense.enabled is False
    from codegold.retrieve.config import load_config

    assert load_config().signals.dense.enabled is False  # default_config.yaml agrees
    config, factory = reference_setup(RetrieverConfig())
    assert factory is None and config.signals.dense.enabled is False and factories == []
    config, factory = reference_setup(_with_dense("auto"))
    assert factory is not None and config.signals.dense.enabled is True  # recorded as on


@pytest.mark.usefixtures("no_environment")
def test_auto_is_off_when_the_extra_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegold.errors import MissingDependency

    def missing(spec: str, **kwargs: Any) -> object:
        raise MissingDependency("onnxruntime", "dense", "ONNX embedding models")

    monkeypatch.setattr(dense_module, "dense_factory", missing)
    config, factory = reference_setup(_with_dense("auto"))
    assert factory is None and config.signals.dense.enabled is False  # recorded as off
    for forced in ({"dense": True}, {"embedder": "minilm-int8"}):
        with pytest.raises(MissingDependency, match=r"codegold\[dense\]"):
            reference_setup(RetrieverConfig(), **forced)
    with pytest.raises(MissingDependency):
        reference_setup(_with_dense(True))


@pytest.mark.parametrize("kwargs", [{"dense": True}, {"embedder": "dir:/m"}])
def test_flag_or_embedder_turns_it_on(factories: list[tuple[str, dict[str, Any]]],
                                      kwargs: dict[str, Any]) -> None:
    base = _with_dense(False)
    config, factory = reference_setup(base, **kwargs)
    assert factory is not None and config.signals.dense.enabled is True
    assert base.signals.dense.enabled is False  # the caller's config is not changed
    spec, options = factories[0]
    assert spec == kwargs.get("embedder", base.signals.dense.embedder)
    settings = base.signals.dense
    assert options == {"batch_size": settings.batch_size, "max_tokens": settings.max_tokens,
                       "mode": settings.mode, "store": settings.store}


def test_config_alone_turns_it_on_and_run_uses_the_same_builder(
        factories: list[tuple[str, dict[str, Any]]]) -> None:
    base = RetrieverConfig()
    enabled = _with_dense(True)
    retriever = make_retriever("reference", RetrieverOptions(config=enabled))
    assert isinstance(retriever, ReferenceAdapter)
    assert retriever.dense_factory is not None and retriever.config.signals.dense.enabled
    assert [spec for spec, _ in factories] == [base.signals.dense.embedder]


@pytest.mark.parametrize(("value", "on"), [("off", False), ("OFF", False), ("on", True),
                                           ("auto", True), ("", True)])
def test_the_environment_settles_auto(factories: list[tuple[str, dict[str, Any]]],
                                      monkeypatch: pytest.MonkeyPatch, value: str,
                                      on: bool) -> None:
    monkeypatch.setenv("CODEGOLD_DENSE", value)
    config, factory = reference_setup(_with_dense("auto"))
    assert (factory is not None) is on and config.signals.dense.enabled is on
    # an explicit setting (the default, false, is one) or flag wins over the environment
    assert reference_setup(_with_dense(False))[1] is None
    assert reference_setup(RetrieverConfig())[1] is None
    assert reference_setup(RetrieverConfig(), dense=True)[1] is not None


def test_the_environment_must_say_on_off_or_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegold.errors import InputError

    monkeypatch.setenv("CODEGOLD_DENSE", "maybe")
    with pytest.raises(InputError, match="CODEGOLD_DENSE='maybe' is not one of on, off, auto"):
        reference_setup(_with_dense("auto"))
