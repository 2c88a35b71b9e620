"""The reference retriever's configuration: every weight, loaded from YAML.

``default_config.yaml`` (beside this module) documents each key. :func:`load_config`
reads it, deep-merges an optional override file over it, and validates the result into
frozen records, naming the file and key of any mistake.
"""

from __future__ import annotations

import copy
import functools
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
import yaml
from msgspec import Meta

from codegold.errors import InputError, SchemaError
from codegold.model.cases import Role
from codegold.model.io import load_versioned, split_validation_error
from codegold.model.paths import PathPattern

CONFIG_FORMAT = 1

# Rules in the types, so `codegold schema retriever-config` states exactly what loads.
Weight = Annotated[float, Meta(ge=0, le=sys.float_info.max,
                               description="a finite number, at least 0")]
Fraction = Annotated[float, Meta(ge=0, le=1, description="a number from 0 to 1")]
Count = Annotated[int, Meta(ge=0)]
Positive = Annotated[int, Meta(ge=1)]
Signal = Annotated[Literal["lexical", "identifier", "symbol", "path", "file", "dense"],
                   Meta(description="signal")]
Intent = Annotated[Literal["definition", "examples", "tests", "config", "general"],
                   Meta(description="intent")]
if TYPE_CHECKING:  # rerank looks preferences up with the plain strings it detected
    IntentKey = str
    RoleKey = str
else:
    IntentKey = Intent
    RoleKey = Annotated[Role, Meta(description="role")]


class _Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class QueryConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    max_terms: Positive = 64
    max_identifiers: Count = 40


class CandidatesConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    per_signal: Positive = 200
    default_k: Positive = 10
    record_candidates: Count = 50


class LexicalConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    field_weights: tuple[Weight, Weight, Weight] = (3.0, 1.5, 1.0)
    backend: Literal["memory", "fts5"] = "memory"
    k1: Weight = 1.2
    b: Fraction = 0.75
    stem: bool = False
    # Added to the query weight of a term of a long query's first line (memory backend).
    title_weight: Weight = 0.0


class SymbolConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    weight_identifier: Weight = 1.0
    weight_qualified: Weight = 2.0
    weight_frame: Weight = 3.0
    max_definitions: Positive = 8
    min_length: Count = 4


class PathConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    weight_mentioned: Weight = 1.0
    weight_frame: Weight = 2.0
    max_chunks_per_file: Positive = 40


class FileConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    max_files: Count = 50
    chunks_per_file: Positive = 2


# A chunk is embedded from its first CHUNK_TOKENS model tokens (``signals.dense.max_tokens``;
# default_config.yaml writes the same). Its one home: the embedders, the dense signal and
# the embedding pass default to it. (A query is read further: see the embedders' QUERY_TOKENS.)
CHUNK_TOKENS = 128


class DenseConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool | Literal["auto"] = False
    embedder: str = "minilm-int8"
    batch_size: Positive = 32
    max_tokens: Annotated[int, Meta(ge=8, le=512)] = CHUNK_TOKENS
    mode: Literal["lazy", "full"] = "lazy"
    candidates: Positive = 100
    store: str | None = None


class SignalsConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    lexical: LexicalConfig = LexicalConfig()
    identifier: LexicalConfig = LexicalConfig()
    symbol: SymbolConfig = SymbolConfig()
    path: PathConfig = PathConfig()
    file: FileConfig = FileConfig()
    dense: DenseConfig = DenseConfig()


class FusionConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    method: Literal["rrf", "weighted"] = "rrf"
    rrf_k: Count = 60
    weights: dict[Signal, Weight] = msgspec.field(default_factory=dict)


class OpenFileConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    same_file: Weight = 1.3
    same_dir: Weight = 1.15
    per_shared_segment: Weight = 0.03


class RerankConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = True
    role_preference: dict[IntentKey, dict[RoleKey, Weight]] = msgspec.field(default_factory=dict)
    category_penalty: dict[str, Weight] = msgspec.field(default_factory=dict)
    category_patterns: dict[str, list[str]] = msgspec.field(default_factory=dict)
    open_file: OpenFileConfig = OpenFileConfig()
    same_file_decay: Weight = 0.98
    no_signature: Weight = 0.9
    forwarder: Weight = 1.0
    deprecated: Weight = 1.0
    example_categories: list[str] = msgspec.field(default_factory=list)
    domain_word_share: Fraction = 0.25


class FiltersConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    language: str | None = None
    path_prefix: str | None = None
    roles: list[Role] = msgspec.field(default_factory=list)
    exclude: list[str] = msgspec.field(default_factory=list)


class ExpansionConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool = False
    max_added: Count = 3
    score_factor: Weight = 0.98


class CompoundsConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Vocabulary terms that run a question's words together (``setenv`` for "setting
    environment"), searched at ``weight`` of a plain term for questions of ``intents``."""

    weight: Weight = 0.0
    intents: list[Intent] = msgspec.field(default_factory=list)
    per_word: Positive = 3


class FeedbackConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Pseudo-relevance feedback for short questions: the ``terms`` best words of the
    ``documents`` best first lexical hits, searched again at ``weight`` of a question
    word (0 turns it off)."""

    weight: Weight = 0.0
    documents: Positive = 5
    terms: Positive = 10


class ShortQueryConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How queries shorter than ``max_chars`` (a question, a name) are searched."""

    max_chars: Count = 0
    weights: dict[Signal, Weight] = msgspec.field(default_factory=dict)
    stem: bool = False
    # BM25's length normalisation for short questions; None: signals.lexical.b.
    b: Fraction | None = None
    compounds: CompoundsConfig = CompoundsConfig()
    feedback: FeedbackConfig = FeedbackConfig()
    task_words: bool = False
    task_intent: bool = False

    def applies(self, query: str) -> bool:
        return len(query.strip()) < self.max_chars


class RankerConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    method: Literal["ltr", "fusion"] = "ltr"
    model: str = "builtin"
    pool: Positive = 100
    min_query_chars: Count = 200


class RetrieverConfig(_Strict, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole configuration; an override file may give any subset of it."""

    format: Literal[1] = 1
    query: QueryConfig = QueryConfig()
    candidates: CandidatesConfig = CandidatesConfig()
    signals: SignalsConfig = SignalsConfig()
    fusion: FusionConfig = FusionConfig()
    short_query: ShortQueryConfig = ShortQueryConfig()
    rerank: RerankConfig = RerankConfig()
    ranker: RankerConfig = RankerConfig()
    filters: FiltersConfig = FiltersConfig()
    expansion: ExpansionConfig = ExpansionConfig()

    def short_lexical(self) -> LexicalConfig:
        """The lexical signal as a short query searches it: ``short_query.stem`` and
        ``short_query.b`` over ``signals.lexical`` (the engine a query reads and the one
        an index warms for it must be the same)."""
        lexical, short = self.signals.lexical, self.short_query
        return msgspec.structs.replace(lexical, stem=lexical.stem or short.stem,
                                       b=lexical.b if short.b is None else short.b)


FUSION_METHODS = ("rrf", "weighted")
RANKER_METHODS = ("ltr", "fusion")
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


@functools.lru_cache(maxsize=1)
def _parsed_defaults() -> dict[str, Any]:
    # The bundled file is ours and plain: libyaml's safe loader reads it in a tenth of the
    # time of the Python one (every index and run command pays it once).
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        data = yaml.load(default_config_text(), Loader=loader)
        if isinstance(data, dict):
            return data
    return _read_yaml(default_config_text(), "default_config.yaml")


def _default_data() -> dict[str, Any]:
    """The default configuration as parsed YAML: parsed once per process (a command
    loads it more than once), a fresh copy each call."""
    return copy.deepcopy(_parsed_defaults())


def load_config(path: str | Path | None = None,
                overrides: dict[str, Any] | None = None) -> RetrieverConfig:
    """Defaults, deep-merged with the YAML/JSON file at ``path`` and then with ``overrides``.

    The file alone is validated first (every key optional, ``format: 1`` optional), so a
    mistake is reported at its line in that file; the merged result is validated again.
    """
    data = _default_data()
    where = "default_config.yaml"
    if path is not None:
        where = str(path)
        loaded = load_versioned(path, RetrieverConfig, what="retriever config",
                                hint="see `codegold schema retriever-config`")
        data = _merge(data, loaded.data)
    if overrides:
        data = _merge(data, overrides)
    try:
        config = msgspec.convert(data, RetrieverConfig)
    except msgspec.ValidationError as err:  # only ``overrides`` can get here: the file passed
        text, at = split_validation_error(str(err))
        raise SchemaError(f"retriever config: {text} (at {at})", path=where) from None
    globs = [("filters.exclude", config.filters.exclude),
             *((f"rerank.category_patterns.{name}", patterns)
               for name, patterns in sorted(config.rerank.category_patterns.items()))]
    for field, patterns in globs:
        for pattern in patterns:
            try:
                PathPattern.path_filter(pattern)
            except InputError as err:
                raise SchemaError(err.message, path=where, field=field,
                                  settings=err.settings) from None
    return config
