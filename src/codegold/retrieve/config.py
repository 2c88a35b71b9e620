"""The reference retriever's configuration: every weight, loaded from YAML.

``default_config.yaml`` (beside this module) documents each key. :func:`load_config`
reads it, deep-merges an optional override file over it, and validates the result into
frozen records, naming the file and key of any mistake.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import msgspec
import yaml

from codegold.errors import InputError, SchemaError
from codegold.model.paths import PathPattern

CONFIG_FORMAT = 1


class _Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class QueryConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_terms: int = 64
    max_identifiers: int = 40


class CandidatesConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    per_signal: int = 200
    default_k: int = 10
    record_candidates: int = 50


class LexicalConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    field_weights: tuple[float, float, float] = (3.0, 1.5, 1.0)
    backend: str = "memory"
    k1: float = 1.2
    b: float = 0.75


class SymbolConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    weight_identifier: float = 1.0
    weight_qualified: float = 2.0
    weight_frame: float = 3.0
    max_definitions: int = 8
    min_length: int = 4


class PathConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    weight_mentioned: float = 1.0
    weight_frame: float = 2.0
    max_chunks_per_file: int = 40


class FileConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    max_files: int = 50
    chunks_per_file: int = 2


class DenseConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = False
    embedder: str = "minilm-int8"
    batch_size: int = 32
    max_tokens: int = 256


class SignalsConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    lexical: LexicalConfig = LexicalConfig()
    identifier: LexicalConfig = LexicalConfig()
    symbol: SymbolConfig = SymbolConfig()
    path: PathConfig = PathConfig()
    file: FileConfig = FileConfig()
    dense: DenseConfig = DenseConfig()


class FusionConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    method: str = "rrf"
    rrf_k: int = 60
    weights: dict[str, float] = msgspec.field(default_factory=dict)


class OpenFileConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    same_file: float = 1.3
    same_dir: float = 1.15
    per_shared_segment: float = 0.03


class RerankConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    role_preference: dict[str, dict[str, float]] = msgspec.field(default_factory=dict)
    category_penalty: dict[str, float] = msgspec.field(default_factory=dict)
    category_patterns: dict[str, list[str]] = msgspec.field(default_factory=dict)
    open_file: OpenFileConfig = OpenFileConfig()
    same_file_decay: float = 0.85
    no_signature: float = 0.9


class FiltersConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    language: str | None = None
    path_prefix: str | None = None
    roles: list[str] = msgspec.field(default_factory=list)
    exclude: list[str] = msgspec.field(default_factory=list)


class ExpansionConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    max_added: int = 3
    score_factor: float = 0.98


class RetrieverConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole configuration; ``source`` names the files it was read from."""

    format: int = CONFIG_FORMAT
    query: QueryConfig = QueryConfig()
    candidates: CandidatesConfig = CandidatesConfig()
    signals: SignalsConfig = SignalsConfig()
    fusion: FusionConfig = FusionConfig()
    rerank: RerankConfig = RerankConfig()
    filters: FiltersConfig = FiltersConfig()
    expansion: ExpansionConfig = ExpansionConfig()


FUSION_METHODS = ("rrf", "weighted")
LEXICAL_BACKENDS = ("memory", "fts5")


def default_config_text() -> str:
    return resources.files("codegold.retrieve").joinpath("default_config.yaml").read_text("utf-8")


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _read_yaml(text: str, where: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise SchemaError(f"invalid YAML: {getattr(err, 'problem', err)}", path=where,
                          line=mark.line + 1 if mark is not None else None) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SchemaError(f"expected a mapping at the top level, found {type(data).__name__}",
                          path=where)
    return data


def load_config(path: str | Path | None = None,
                overrides: dict[str, Any] | None = None) -> RetrieverConfig:
    """Defaults, deep-merged with the YAML file at ``path`` and then with ``overrides``."""
    data = _read_yaml(default_config_text(), "default_config.yaml")
    where = "default_config.yaml"
    if path is not None:
        where = str(path)
        try:
            text = Path(path).read_text("utf-8")
        except OSError as err:
            raise SchemaError(f"cannot read retriever config: {err.strerror}", path=where) from None
        data = _merge(data, _read_yaml(text, where))
    if overrides:
        data = _merge(data, overrides)
    try:
        config = msgspec.convert(data, RetrieverConfig)
    except msgspec.ValidationError as err:
        raise SchemaError(f"retriever config: {err}", path=where) from None
    if config.format != CONFIG_FORMAT:
        raise SchemaError(f"unsupported config format {config.format}; expected {CONFIG_FORMAT}",
                          path=where, field="format")
    if config.fusion.method not in FUSION_METHODS:
        raise SchemaError(f"unknown fusion method {config.fusion.method!r}; "
                          f"expected one of {', '.join(FUSION_METHODS)}", path=where,
                          field="fusion.method")
    for name, lexical in (("lexical", config.signals.lexical),
                          ("identifier", config.signals.identifier)):
        if lexical.backend not in LEXICAL_BACKENDS:
            raise SchemaError(f"unknown lexical backend {lexical.backend!r}; expected one of "
                              f"{', '.join(LEXICAL_BACKENDS)}", path=where,
                              field=f"signals.{name}.backend")
    globs = [("filters.exclude", config.filters.exclude),
             *((f"rerank.category_patterns.{name}", patterns)
               for name, patterns in sorted(config.rerank.category_patterns.items()))]
    for field, patterns in globs:
        for pattern in patterns:
            try:
                PathPattern.path_filter(pattern)
            except InputError as err:
                raise SchemaError(err.message, path=where, field=field) from None
    return config
