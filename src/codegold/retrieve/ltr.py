"""Learning to rank: per-chunk features and a tree ensemble that scores them.

The reference retriever's fused candidates (see :mod:`codegold.retrieve.reference`) are
described by :data:`FEATURES`: each signal's normalised score and reciprocal rank, the
whole-file BM25 score and rank of the chunk's file, how the file's chunks did in the pool,
whether the query names the chunk's symbol or module, and the chunk's shape. A
gradient-boosted tree ensemble (LightGBM LambdaRank, trained by
``benchmarks/train_ltr.py`` on the training split only) turns a row into a score.

Inference needs no LightGBM: the model file holds the trees as plain arrays and
:meth:`TreeModel.predict` walks them with numpy, all rows at once, deterministically.

Model file (JSON, ``format: 1``): ``features`` (names, in column order; they must equal
:data:`FEATURES`), ``trees`` (each: ``split_feature``, ``threshold``, ``left``, ``right``
(a child ``>= 0`` is a node, ``< 0`` is leaf ``~child``), ``default_left`` and
``missing_nan`` per node, ``leaf_value``), ``training`` (what it was trained on: data
digest, instance count, parameters; informational).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.errors import SchemaError
from codegold.retrieve.query import QueryAnalysis

LTR_FORMAT = 1
BUILTIN = "builtin"
_BUILTIN_FILE = "ltr_model.json"

RANK_SIGNALS = ("lexical", "identifier", "symbol", "path", "file")


@dataclass(frozen=True)
class Feature:
    """One column of the ranking model's input, in column order.

    ``increasing``: the model may only reward it, more evidence never lowers a score (the
    trainer sets LightGBM's monotone constraints from this). With ~100 training issues a
    learnt dip ("a better lexical rank counts against a chunk") is noise, and it misranks
    repositories unlike the training ones. ``source`` says where :func:`feature_rows`
    reads it: a signal's ranking, the fused ranking, the chunk and its file, or the query.
    """

    name: str
    source: Literal["signal", "fused", "chunk", "query"]
    increasing: bool = False


FEATURE_TABLE: tuple[Feature, ...] = (
    *(Feature(f"{signal}_{kind}", "signal", increasing=True)
      for signal in RANK_SIGNALS for kind in ("norm", "rr")),
    Feature("fused_norm", "fused", increasing=True),
    Feature("fused_rr", "fused", increasing=True),
    Feature("file_bm25_norm", "chunk", increasing=True),
    Feature("file_bm25_rr", "chunk", increasing=True),
    Feature("file_best_fused", "chunk", increasing=True),
    Feature("file_fused_sum", "chunk", increasing=True),
    Feature("file_pool_chunks", "chunk"),
    Feature("rank_in_file_rr", "fused", increasing=True),
    Feature("kind_function", "chunk"),
    Feature("kind_method", "chunk"),
    Feature("kind_class", "chunk"),
    Feature("kind_module", "chunk"),
    Feature("log_lines", "chunk"),
    Feature("log_start", "chunk"),
    Feature("has_signature", "chunk"),
    Feature("symbol_named", "chunk", increasing=True),
    Feature("symbol_in_text", "chunk", increasing=True),
    Feature("stem_named", "chunk", increasing=True),
    Feature("frame_file", "chunk", increasing=True),
    Feature("query_frames", "query"),
    Feature("query_log_terms", "query"),
)
# What the model file, the trainer and the tests name: derived, never restated.
FEATURES: tuple[str, ...] = tuple(f.name for f in FEATURE_TABLE)
INCREASING = frozenset(f.name for f in FEATURE_TABLE if f.increasing)
_PER_CHUNK = tuple(f.name for f in FEATURE_TABLE if f.source == "chunk")

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Tree(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    split_feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    default_left: list[bool]
    missing_nan: list[bool]
    leaf_value: list[float]


class ModelFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    format: Literal[1]
    features: list[str]
    trees: list[Tree]
    training: dict[str, Any] = msgspec.field(default_factory=dict)


class TreeModel:
    """A tree ensemble as arrays; ``predict`` equals LightGBM's raw score."""

    def __init__(self, spec: ModelFile, where: str) -> None:
        if tuple(spec.features) != FEATURES:
            raise SchemaError("the ranking model was trained on other features than this "
                              f"codegold computes ({len(spec.features)} named, expected "
                              f"{len(FEATURES)}: {', '.join(FEATURES[:3])}, ...); retrain it "
                              "with benchmarks/train_ltr.py", path=where, field="features")
        self.spec = spec
        width = len(FEATURES)
        for number, tree in enumerate(spec.trees):
            nodes = len(tree.split_feature)
            leaf_count = len(tree.leaf_value)
            lengths = {len(tree.threshold), len(tree.left), len(tree.right),
                       len(tree.default_left), len(tree.missing_nan)}
            children = [*tree.left, *tree.right]
            if (lengths != {nodes} or leaf_count != nodes + 1
                    or any(not 0 <= f < width for f in tree.split_feature)
                    or any(c >= nodes if c >= 0 else ~c >= leaf_count for c in children)
                    or any(c <= i for i, c in enumerate(tree.left) if c >= 0)
                    or any(c <= i for i, c in enumerate(tree.right) if c >= 0)
                    or not all(math.isfinite(v) for v in (*tree.threshold, *tree.leaf_value))):
                raise SchemaError(f"tree {number} of the ranking model is inconsistent (node "
                                  "arrays of unequal length, a child out of range or pointing "
                                  "backwards, or a non-finite number)", path=where,
                                  field=f"trees[{number}]")
        # Every tree's nodes in one flat array (tree after tree); a child >= 0 is a node
        # there, < 0 is leaf ~child of the flat leaf array. A query then compares each row
        # with every node's threshold at once and walks all trees together, level by level.
        features: list[int] = []
        thresholds: list[float] = []
        lefts: list[int] = []
        rights: list[int] = []
        default_left: list[bool] = []
        missing_nan: list[bool] = []
        leaves: list[float] = []
        roots: list[int] = []
        for tree in spec.trees:
            node_base, leaf_base = len(features), len(leaves)
            roots.append(node_base if tree.split_feature else ~leaf_base)
            for child_list, out in ((tree.left, lefts), (tree.right, rights)):
                out.extend(node_base + c if c >= 0 else ~(leaf_base + ~c) for c in child_list)
            features.extend(tree.split_feature)
            thresholds.extend(tree.threshold)
            default_left.extend(tree.default_left)
            missing_nan.extend(tree.missing_nan)
            leaves.extend(tree.leaf_value)
        self._feature = np.asarray(features, dtype=np.int64)
        self._threshold = np.asarray(thresholds, dtype=np.float64)
        self._left = np.asarray(lefts, dtype=np.int64)
        self._right = np.asarray(rights, dtype=np.int64)
        # Where a missing (NaN) value goes at each node: LightGBM's default direction when
        # the split learnt one, else as the value 0 would.
        self._nan_left = np.where(np.asarray(missing_nan, dtype=bool),
                                  np.asarray(default_left, dtype=bool), self._threshold >= 0.0)
        self._leaf = np.asarray(leaves, dtype=np.float64)
        self._root = np.asarray(roots, dtype=np.int64)

    @classmethod
    def decode(cls, data: bytes, where: str) -> TreeModel:
        try:
            spec = msgspec.json.decode(data, type=ModelFile)
        except msgspec.ValidationError as err:
            raise SchemaError(f"not a ranking model file: {err}", path=where) from None
        except msgspec.DecodeError as err:
            raise SchemaError(f"not a ranking model file (invalid JSON: {err})",
                              path=where) from None
        return cls(spec, where)

    def predict(self, rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """One score per row; rows are float64 in :data:`FEATURES` order."""
        count = rows.shape[0]
        total = np.zeros(count, dtype=np.float64)
        if count == 0 or len(self._root) == 0:
            return total
        # One row per tree node, one column per candidate (C order, so the walk below
        # reads it through a flat index: node * count + candidate).
        values = np.ascontiguousarray(rows.T)[self._feature]
        decisions = values <= self._threshold[:, None]
        nan = np.isnan(values)
        if nan.any():
            decisions = np.where(nan, self._nan_left[:, None], decisions)
        flat = decisions.ravel()
        base = np.arange(count, dtype=np.int64)[:, None]
        node = np.repeat(self._root[None, :], count, axis=0)
        inner = node >= 0
        while inner.any():
            at = np.where(inner, node, 0)
            step = np.where(flat.take(at * count + base), self._left.take(at),
                            self._right.take(at))
            node = np.where(inner, step, node)
            inner = node >= 0
        scores = self._leaf.take(~node)
        # Trees are added one after another, as LightGBM adds them (not pairwise).
        for column in range(scores.shape[1]):
            total += scores[:, column]
        return total


@cache
def _builtin() -> TreeModel:
    data = resources.files("codegold.retrieve").joinpath(_BUILTIN_FILE).read_bytes()
    return TreeModel.decode(data, f"codegold/retrieve/{_BUILTIN_FILE}")


def load_model(name: str) -> TreeModel:
    """The shipped model (``builtin``) or the model file at path ``name``."""
    if name == BUILTIN:
        return _builtin()
    path = Path(name)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise SchemaError(f"cannot read the ranking model: {err.strerror or err}",
                          path=name) from None
    return TreeModel.decode(data, name)


def from_lightgbm(dump: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Trees of ``Booster.dump_model()`` as :class:`Tree` mappings (numerical splits only)."""
    trees: list[dict[str, Any]] = []
    for info in dump["tree_info"]:
        tree: dict[str, list[Any]] = {key: [] for key in (
            "split_feature", "threshold", "left", "right", "default_left", "missing_nan",
            "leaf_value")}
        root = info["tree_structure"]
        if "leaf_value" in root and "split_feature" not in root:
            tree["leaf_value"].append(float(root["leaf_value"]))
            trees.append(tree)
            continue
        leaves: dict[int, float] = {}

        def walk(node: Mapping[str, Any], tree: dict[str, list[Any]] = tree,
                 leaves: dict[int, float] = leaves) -> int:
            if "split_feature" not in node:
                leaves[int(node["leaf_index"])] = float(node["leaf_value"])
                return ~int(node["leaf_index"])
            if node.get("decision_type", "<=") != "<=" or node.get("missing_type") == "Zero":
                raise ValueError("only numerical '<=' splits without zero-as-missing are "
                                 "supported")
            number = len(tree["split_feature"])
            tree["split_feature"].append(int(node["split_feature"]))
            tree["threshold"].append(float(node["threshold"]))
            tree["default_left"].append(bool(node.get("default_left", True)))
            tree["missing_nan"].append(node.get("missing_type") == "NaN")
            tree["left"].append(0)
            tree["right"].append(0)
            tree["left"][number] = walk(node["left_child"])
            tree["right"][number] = walk(node["right_child"])
            return number

        walk(root)
        tree["leaf_value"] = [leaves[i] for i in range(len(leaves))]
        trees.append(tree)
    return trees


def _short(symbol: str) -> str:
    return symbol.replace("::", ".").rsplit(".", 1)[-1]


class QueryFacts:
    """What the features need from a query, computed once per query."""

    def __init__(self, analysis: QueryAnalysis) -> None:
        self.names = {_short(name).lower() for name in analysis.identifiers}
        self.names.update(f.function.rsplit(".", 1)[-1].lower() for f in analysis.frames
                          if f.function)
        # Qualified names, matched as suffixes of a chunk's qualified symbol.
        self.dotted = sorted({name.replace("::", ".").lower() for name in analysis.identifiers
                              if "." in name or "::" in name})
        self.words = {w.lower() for w in _WORD.findall(analysis.raw)}
        self.frame_files = [f.file.replace("\\", "/") for f in analysis.frames]
        self.frames = float(bool(analysis.frames))
        self.log_terms = math.log1p(len(analysis.terms))


def feature_rows(candidates: Sequence[Any], rankings: Mapping[str, Sequence[tuple[str, float]]],
                 file_scores: Mapping[str, tuple[float, int]], facts: QueryFacts
                 ) -> npt.NDArray[np.float64]:
    """The :data:`FEATURES` of each candidate (a ``Scored``, best fused first).

    ``file_scores`` maps a file to its whole-file BM25 score and 1-based rank.
    """
    count = len(candidates)
    rows = np.zeros((count, len(FEATURES)), dtype=np.float64)
    if not count:
        return rows
    column = {name: i for i, name in enumerate(FEATURES)}
    ids = [item.chunk.id for item in candidates]
    for signal in RANK_SIGNALS:
        ranking = rankings.get(signal) or []
        if not ranking:
            continue
        top = max(ranking[0][1], 1e-9)
        position = {cid: (rank, score) for rank, (cid, score) in enumerate(ranking, start=1)}
        norm, rr = column[f"{signal}_norm"], column[f"{signal}_rr"]
        for row, chunk_id in enumerate(ids):
            found = position.get(chunk_id)
            if found is not None:
                rows[row, norm] = max(found[1], 0.0) / top
                rows[row, rr] = 1.0 / found[0]
    fused = np.asarray([item.score for item in candidates], dtype=np.float64)
    best = max(float(fused[0]), 1e-9)
    rows[:, column["fused_norm"]] = fused / best
    rows[:, column["fused_rr"]] = 1.0 / np.arange(1, count + 1)
    # Per file, once: its best and summed fused score, its chunk count in the pool.
    first: dict[str, int] = {}
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    in_file = np.zeros(count, dtype=np.float64)
    for row, item in enumerate(candidates):
        file = item.chunk.file
        first.setdefault(file, row)
        sums[file] = sums.get(file, 0.0) + float(fused[row])
        counts[file] = counts.get(file, 0) + 1
        in_file[row] = counts[file]
    top_file = max((score for score, _ in file_scores.values()), default=0.0) or 1e-9
    rows[:, column["rank_in_file_rr"]] = 1.0 / in_file
    named = facts.names
    qualified = facts.dotted
    words = facts.words
    table: list[list[float]] = []
    for item in candidates:
        chunk = item.chunk
        file = chunk.file
        file_score, file_rank = file_scores.get(file, (0.0, 0))
        symbol = chunk.symbol or ""
        short = _short(symbol).lower() if symbol else ""
        stem = _stem(file)
        kind = chunk.kind
        values: dict[str, float] = {
            "file_bm25_norm": file_score / top_file,
            "file_bm25_rr": 1.0 / file_rank if file_rank else 0.0,
            "file_best_fused": float(fused[first[file]]) / best,
            "file_fused_sum": sums[file] / best,
            "file_pool_chunks": math.log1p(counts[file]),
            "kind_function": kind == "function", "kind_method": kind == "method",
            "kind_class": kind == "class",
            "kind_module": kind in ("module", "pack", "variable"),
            "log_lines": math.log1p(chunk.end_line - chunk.start_line + 1),
            "log_start": math.log1p(chunk.start_line),
            "has_signature": chunk.has_signature,
            "symbol_named": bool(short) and (short in named or (bool(qualified) and any(
                symbol.replace("::", ".").lower().endswith(q) for q in qualified))),
            "symbol_in_text": bool(short) and short in words,
            "stem_named": len(stem) > 2 and stem in words,
            "frame_file": any(f == file or f.endswith("/" + file)
                              or file.endswith("/" + f.lstrip("./"))
                              for f in facts.frame_files),
        }
        table.append([values[name] for name in _PER_CHUNK])
    rows[:, [column[name] for name in _PER_CHUNK]] = np.asarray(table, dtype=np.float64)
    rows[:, column["query_frames"]] = facts.frames
    rows[:, column["query_log_terms"]] = facts.log_terms
    return rows



def _stem(path: str) -> str:
    """A file's module name as a query would say it (``pkg/__init__.py`` is ``pkg``)."""
    parts = path.rsplit("/", 2)
    stem = parts[-1].rsplit(".", 1)[0].lower()
    if stem == "__init__":
        return parts[-2].lower() if len(parts) > 1 else ""
    return stem
