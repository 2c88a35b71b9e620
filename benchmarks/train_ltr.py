"""Train the reference retriever's ranking model (LightGBM LambdaRank) on the training split.

(``--split all`` refits on every development instance, validation included: for the
shipped model, once the configuration was chosen and judged with ``--split train``.)

Rows are the fused candidates of each SWE-bench development instance of the *training*
side of the 70/30 hash split (``swebench_localization.split_of``); validation instances'
rows are gathered into the ``--features`` cache too but never trained on. Labels: 2 for a chunk that holds a gold function, 1 for another chunk of
a gold file, 0 otherwise. The features are :data:`codegold.retrieve.ltr.FEATURES`, computed
by the retriever itself (``ReferenceRetriever.gather`` + ``features``), so training and
inference see the same numbers.

The trees are written as plain arrays (``codegold.retrieve.ltr`` evaluates them with
numpy); the script checks that those predictions equal LightGBM's before writing.
Hyperparameters (leaves, label gains, rounds) are chosen by 5-fold cross-validation
over the training instances only (``--cv``; the criterion is file Acc@1 + file Acc@5 +
function Acc@5 within the pool), or the defaults below are used.

Usage::

    python benchmarks/train_ltr.py --repos-dir /work/.mirror --cache-dir /work/devcache \\
        --features /tmp/train.npz -o src/codegold/retrieve/ltr_model.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from swebench_localization import (
    DEFAULT_DATA,
    build_indexes,
    split_of,
    symbol_matches,
)

from codegold.index import IndexReader
from codegold.retrieve import ltr
from codegold.retrieve.config import load_config
from codegold.retrieve.reference import ReferenceRetriever

SEED = 7
PARAMS: dict[str, Any] = {
    "monotone_constraints": [int(name in ltr.INCREASING) for name in ltr.FEATURES],
    "objective": "lambdarank",
    "metric": "ndcg",
    "ndcg_eval_at": [1, 5],
    "label_gain": [0, 1, 3],
    "lambdarank_truncation_level": 20,
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 40,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "seed": SEED,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 1,
    "verbosity": -1,
}
ROUNDS = 100


def label(chunk_file: str, symbols: tuple[str, ...], row: dict[str, Any]) -> int:
    if any(chunk_file == g["file"] and symbol_matches(g["symbol"], symbols)
           for g in row["gold_symbols"]):
        return 2
    return 1 if chunk_file in row["gold_files"] else 0


def collect(rows: list[dict[str, Any]], indexes: dict[str, Path], pool: int) -> dict[str, Any]:
    # Method ltr gathers the pool the model will rank; features() needs no model.
    config = load_config(overrides={"ranker": {"method": "ltr", "pool": pool}})
    features, labels, groups, ids, file_ids, offset_parts = [], [], [], [], [], []
    gold_files: list[int] = []
    for number, row in enumerate(rows, start=1):
        with IndexReader.open(indexes[row["instance_id"]]) as reader:
            retriever = ReferenceRetriever(reader, config)
            gathered = retriever.gather(row["query"], want=60)
            matrix, offsets, _ = retriever.features(gathered)
        if not gathered.candidates:
            continue
        found = [label(s.chunk.file, (s.chunk.symbol, *s.chunk.symbols) if s.chunk.symbol
                       else s.chunk.symbols, row) for s in gathered.candidates]
        numbers: dict[str, int] = {}
        file_ids.extend(numbers.setdefault(s.chunk.file, len(numbers)) for s in gathered.candidates)
        features.append(matrix)
        offset_parts.append(offsets)
        labels.extend(found)
        groups.append(len(found))
        ids.append(row["instance_id"])
        gold_files.append(len(set(row["gold_files"])))
        if number % 10 == 0:
            print(f"[{number}/{len(rows)}] features", file=sys.stderr, flush=True)
    return {"X": np.vstack(features), "offset": np.concatenate(offset_parts), "y": np.asarray(labels, dtype=np.int32),
            "groups": np.asarray(groups, dtype=np.int64), "ids": np.asarray(ids),
            "file_ids": np.asarray(file_ids, dtype=np.int64),
            "gold_files": np.asarray(gold_files, dtype=np.int64)}


def mined_rows(path: Path) -> dict[str, Any]:
    """The rows of mined commits collected by ``learn_ranker.py --long`` (same features,
    offsets and labels: 2 a gold definition, 1 another chunk of a gold file), in this
    script's layout."""
    import pickle

    records = pickle.loads(path.read_bytes())
    file_ids: list[int] = []
    for record in records:
        numbers: dict[str, int] = {}
        file_ids.extend(numbers.setdefault(s.chunk.file, len(numbers))
                        for s in record["candidates"])
    return {"X": np.vstack([r["X"] for r in records]),
            "offset": np.concatenate([r["offset"] for r in records]),
            "y": np.concatenate([r["y"] for r in records]).astype(np.int32),
            "groups": np.asarray([len(r["y"]) for r in records], dtype=np.int64),
            "ids": np.asarray([r["case"].id for r in records]),
            "file_ids": np.asarray(file_ids, dtype=np.int64),
            "gold_files": np.asarray([len({t.file for g in r["case"].groups if g.required
                                           for t in g.any_of}) for r in records],
                                     dtype=np.int64)}


def joined(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    return {key: np.concatenate([first[key], second[key]]) for key in first if key in second}


def digest(data: dict[str, Any]) -> str:
    hasher = hashlib.sha256()
    for key in ("X", "offset", "y", "groups"):
        hasher.update(np.ascontiguousarray(data[key]).tobytes())
    hasher.update("\n".join(data["ids"].tolist()).encode())
    return hasher.hexdigest()


def _slices(groups: np.ndarray) -> list[tuple[int, int]]:
    ends = np.cumsum(groups)
    return [(int(e - g), int(e)) for g, e in zip(groups, ends, strict=True)]


def file_acc_at(scores: np.ndarray, data: dict[str, Any], k: int) -> float:
    """Share of groups whose first k distinct files (by score) hold every gold file (a
    gold file the pool lacks is a miss: pools of different sizes compare fairly), and at
    least one; file Acc@k over the pool."""
    hits = 0
    needed = data.get("gold_files")
    for number, (start, end) in enumerate(_slices(data["groups"])):
        order = np.argsort(-scores[start:end], kind="stable")
        files: list[int] = []
        labels = data["y"][start:end]
        file_ids = data["file_ids"][start:end]
        for i in order:
            if file_ids[i] not in files:
                files.append(file_ids[i])
        gold = {file_ids[i] for i in range(end - start) if labels[i] > 0}
        whole = needed is None or len(gold) >= int(needed[number])
        hits += bool(gold) and whole and gold <= set(files[:k])
    return hits / len(data["groups"])


def func_acc_at(scores: np.ndarray, data: dict[str, Any], k: int) -> float:
    """Share of groups whose first k rows hold every label-2 row (a gold function), and
    at least one: a proxy for function Acc@k."""
    hits = 0
    for start, end in _slices(data["groups"]):
        top = set(np.argsort(-scores[start:end], kind="stable")[:k].tolist())
        gold = set(np.flatnonzero(data["y"][start:end] == 2).tolist())
        hits += bool(gold) and gold <= top
    return hits / len(data["groups"])


def train(data: dict[str, Any], params: dict[str, Any], rounds: int) -> Any:
    import lightgbm

    # The rerank multipliers' offsets are the base the trees learn on (LightGBM's
    # init_score), as the retriever adds them to the trees' score.
    dataset = lightgbm.Dataset(data["X"], label=data["y"], group=data["groups"],
                               init_score=data["offset"], feature_name=list(ltr.FEATURES),
                               free_raw_data=False)
    return lightgbm.train(params, dataset, num_boost_round=rounds)


def subset(data: dict[str, Any], keep: np.ndarray) -> dict[str, Any]:
    slices = _slices(data["groups"])
    rows = np.concatenate([np.arange(*slices[i]) for i in np.flatnonzero(keep)])
    out = {"X": data["X"][rows], "offset": data["offset"][rows], "y": data["y"][rows],
           "groups": data["groups"][keep], "ids": data["ids"][keep],
           "file_ids": data["file_ids"][rows]}
    if "gold_files" in data:
        out["gold_files"] = data["gold_files"][keep]
    return out


def cross_validate(data: dict[str, Any], grid: list[tuple[dict[str, Any], int]],
                   folds: int = 5) -> tuple[dict[str, Any], int]:
    fold_of = np.asarray([int(hashlib.sha256(i.encode()).hexdigest(), 16) % folds
                          for i in data["ids"].tolist()])
    best: tuple[float, int] = (-1.0, 0)
    for number, (extra, rounds) in enumerate(grid):
        params = {**PARAMS, **extra}
        total = 0.0
        for fold in range(folds):
            train_part = subset(data, fold_of != fold)
            test_part = subset(data, fold_of == fold)
            booster = train(train_part, params, rounds)
            scores = booster.predict(test_part["X"], raw_score=True) + test_part["offset"]
            total += (file_acc_at(scores, test_part, 1) + file_acc_at(scores, test_part, 5)
                      + func_acc_at(scores, test_part, 5)) * len(test_part["groups"])
        value = total / len(data["groups"])
        print(f"cv {extra} rounds={rounds}: {value:.4f}", file=sys.stderr, flush=True)
        if value > best[0]:
            best = (value, number)
    extra, rounds = grid[best[1]]
    return {**PARAMS, **extra}, rounds


def repository_of(instance_id: str) -> str:
    """``psf__requests-1234`` -> ``psf/requests``."""
    return instance_id.rsplit("-", 1)[0].replace("__", "/", 1)


def _criterion(scores: np.ndarray, data: dict[str, Any]) -> dict[str, float]:
    return {"file_acc1": file_acc_at(scores, data, 1), "file_acc5": file_acc_at(scores, data, 5),
            "func_acc5": func_acc_at(scores, data, 5)}


def leave_one_repository_out(data: dict[str, Any], params: dict[str, Any], rounds: int
                             ) -> list[dict[str, Any]]:
    """For each repository: train on the other repositories' instances, score its own,
    beside the hand-weighted order the model replaces (the fused score with the rerank
    multipliers: ``fused_norm`` plus the offsets). One row per repository."""
    repos = np.asarray([repository_of(str(i)) for i in data["ids"]])
    fused = ltr.FEATURES.index("fused_norm")
    out = []
    for repository in sorted(set(repos.tolist())):
        held = subset(data, repos == repository)
        booster = train(subset(data, repos != repository), params, rounds)
        model = booster.predict(held["X"], raw_score=True) + held["offset"]
        base = held["X"][:, fused] + held["offset"]
        out.append({"repository": repository, "instances": len(held["groups"]),
                    "model": _criterion(model, held), "fusion": _criterion(base, held)})
    return out


def print_loro(rows: list[dict[str, Any]]) -> None:
    print("| held-out repository | instances | file Acc@1 model (fusion) | file Acc@5 model "
          "(fusion) | function Acc@5 model (fusion) |")
    print("|---|---|---|---|---|")
    for row in rows:
        cells = [f"{100 * row['model'][k]:.1f} ({100 * row['fusion'][k]:.1f})"
                 for k in ("file_acc1", "file_acc5", "func_acc5")]
        print(f"| {row['repository']} | {row['instances']} | " + " | ".join(cells) + " |")
    for name, pick in (("mean", lambda v: sum(v) / len(v)), ("worst", min)):
        cells = [f"{100 * pick([r['model'][k] for r in rows]):.1f} "
                 f"({100 * pick([r['fusion'][k] for r in rows]):.1f})"
                 for k in ("file_acc1", "file_acc5", "func_acc5")]
        print(f"| {name} | | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repos-dir", type=Path, required=True)
    parser.add_argument("--cache-dir", type=Path, default=Path(".cache/swebench-indexes"))
    parser.add_argument("--features", type=Path, default=None,
                        help="cache of the training rows (.npz): read when present, else written")
    parser.add_argument("--repos", default=None, help="comma-separated owner/name filter")
    parser.add_argument("--only-cached", action="store_true",
                        help="skip instances whose index is not in --cache-dir yet (never build)")
    parser.add_argument("--cv", action="store_true", help="choose hyperparameters by 5-fold CV")
    parser.add_argument("--pool", type=int, default=100,
                        help="fused candidates the model ranks (ranker.pool; default 100)")
    parser.add_argument("--params", default=None, metavar="LEAVES,GAIN2,ROUNDS",
                        help="hyperparameters chosen before (e.g. by --cv on train): number "
                             "of leaves, label gain of a gold function, boosting rounds")
    parser.add_argument("--split", choices=("train", "all"), default="train",
                        help="train: the training side only (to judge on validation); all: "
                             "refit on every development instance once the configuration "
                             "was chosen on train (the shipped model)")
    parser.add_argument("--by-repository", action="store_true",
                        help="leave one repository out: for each repository, train on the "
                             "others and print its figures (model and the fused order it "
                             "replaces), the mean and the worst; then train as usual")
    parser.add_argument("--mined", type=Path, default=None,
                        help="also fit on these mined commits (the features pickle of "
                             "benchmarks/learn_ranker.py --long): added to the final fit only, "
                             "after --cv and --by-repository, which judge the issues")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)

    if args.features is not None and args.features.is_file():
        loaded = np.load(args.features, allow_pickle=False)
        data = {key: loaded[key] for key in loaded.files}
    else:
        # Every instance's rows are gathered (and cached); the split is chosen below, so
        # one --features file serves both --split train and --split all.
        rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
        if args.repos:
            rows = [r for r in rows if r["repo"] in set(args.repos.split(","))]
        indexes = build_indexes(rows, args.repos_dir, args.cache_dir,
                                lambda m: print(m, file=sys.stderr), build=not args.only_cached)
        rows = [r for r in rows if r["instance_id"] in indexes]
        data = collect(rows, indexes, args.pool)
        if args.features is not None:
            np.savez(args.features, **data)
    if args.split == "train":
        data = subset(data, np.asarray([split_of(str(i)) == "train" for i in data["ids"]]))
    params, rounds = PARAMS, ROUNDS
    if args.params:
        leaves, gain, count = args.params.split(",")
        params = {**PARAMS, "num_leaves": int(leaves), "label_gain": [0, 1, int(gain)]}
        rounds = int(count)
    if args.cv:
        grid = [({"num_leaves": leaves, "label_gain": gain}, r)
                for leaves in (7, 15) for gain in ([0, 1, 3], [0, 1, 7]) for r in (100, 300)]
        params, rounds = cross_validate(data, grid)
    if args.by_repository:
        print_loro(leave_one_repository_out(data, params, rounds))
    issues = len(data["groups"])
    if args.mined is not None:
        data = joined(data, mined_rows(args.mined))
    booster = train(data, params, rounds)
    trees = ltr.from_lightgbm(booster.dump_model())
    spec = {"format": ltr.LTR_FORMAT, "features": list(ltr.FEATURES), "trees": trees,
            "training": {"data_sha256": digest(data), "instances": issues,
                         "mined_commits": len(data["groups"]) - issues,
                         "rows": len(data["y"]),
                         "split": "train (70/30 hash split, seed 0)" if args.split == "train"
                         else "all development instances (refit after choosing on train)",
                         "rounds": rounds, "pool": args.pool,
                         "params": {k: v for k, v in sorted(params.items())
                                    if k not in ("num_threads", "verbosity")},
                         "lightgbm": __import__("lightgbm").__version__}}
    # A few rows with LightGBM's own scores, so a test can check the numpy trees
    # without LightGBM installed.
    picked = np.linspace(0, len(data["y"]) - 1, 24).astype(int)
    spec["training"]["check"] = {  # type: ignore[index]
        "rows": data["X"][picked].tolist(),
        "scores": booster.predict(data["X"][picked], raw_score=True).tolist()}
    payload = msgspec.json.format(msgspec.json.encode(spec), indent=0)
    model = ltr.TreeModel.decode(payload, str(args.output))
    ours, theirs = model.predict(data["X"]), booster.predict(data["X"], raw_score=True)
    gap = float(np.max(np.abs(ours - theirs)))
    if gap > 1e-9:
        print(f"numpy trees differ from LightGBM by {gap}", file=sys.stderr)
        return 1
    args.output.write_bytes(payload + b"\n")
    print(f"wrote {args.output}: {len(trees)} trees, {len(data['groups'])} instances, "
          f"{len(data['y'])} rows; numpy = LightGBM within {gap:.1e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
