"""Learn the ranking model for short questions from the mined corpus, judged leave-one-repository-out.

The reference retriever orders the fused candidates of a long issue report with a learnt
model (``benchmarks/train_ltr.py``, SWE-bench development issues) and those of a short
question (under ``short_query.max_chars``) with hand-set multipliers and same-file decay.
This script asks whether a model learnt from questions nobody here wrote orders short
questions better, and trains it:

1. **Collect.** For every mined case (``benchmarks/mined_corpus.py``'s ``CACHE/cases``,
   slices left out) whose revision is indexed and whose query is short, the retriever
   gathers its candidates as it would for a real run and computes their features
   (``ReferenceRetriever.features``: the same numbers inference sees). Labels: 2 for a
   candidate that satisfies a required evidence group (``evaluate.match``, the scorer's
   own rule), 1 for another chunk of a gold file, 0 otherwise.
2. **Judge.** Leave one repository out: for each repository, a model trained on the
   others' cases orders its cases; each ordering (and the hand-set one, as shipped) goes
   through neighbour expansion and is scored by ``evaluate.score_case`` at the case's
   cutoff, exactly as ``codegold eval`` would. The table prints pass rate, the mean of
   per-repository pass rates, each language and each query class, before and after.
3. **Ship** (``-o FILE``): the model refitted on every repository, as a model file
   ``codegold.retrieve.ltr`` reads (the trees as arrays; its predictions are checked
   against LightGBM's before it is written).

LightGBM (the ``tune`` extra) is needed here only; inference walks the trees with numpy.

Usage::

    python benchmarks/learn_ranker.py --cache-dir /work/corpus2 --features /tmp/short.pkl
    python benchmarks/learn_ranker.py --cache-dir /work/corpus2 --features /tmp/short.pkl \\
        -o src/codegold/retrieve/ltr_short_model.json
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import pickle
import sys
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_ltr import PARAMS, ROUNDS

from codegold.evaluate.match import target_matches
from codegold.evaluate.score import score_case
from codegold.index import IndexReader
from codegold.model import Attempt
from codegold.model.cases import load_cases
from codegold.retrieve import ltr
from codegold.retrieve.config import load_config
from codegold.retrieve.expand import expand
from codegold.retrieve.reference import ReferenceRetriever
from codegold.retrieve.rerank import Scored, rerank


def _label(chunk: Any, case: Any) -> int:
    required = [t for g in case.groups if g.required for t in g.any_of]
    if any(target_matches(chunk, t) for t in required):
        return 2
    files = {t.file for t in required if t.file}
    return 1 if chunk.file in files else 0


def collect(cache: Path, config_overrides: dict[str, Any] | None, *, long: bool = False
            ) -> list[dict[str, Any]]:
    """One record per short mined case (``long``: per case the shipped learnt ranker
    orders, an issue-length message): its features, offsets, labels, and what scoring it
    again needs (the case, the candidates, the shipped order)."""
    config = load_config(overrides={"ranker": {"method": "ltr", "model": "builtin"},
                                    **(config_overrides or {})})
    files = sorted(p for p in (cache / "cases").glob("*.yaml") if not p.name.startswith("slice"))
    records: list[dict[str, Any]] = []
    for number, path in enumerate(files, start=1):
        cases = load_cases(str(path)).cases
        by_revision: dict[str, list[Any]] = collections.defaultdict(list)
        for case in cases:
            wanted = (len(case.query.strip()) >= config.ranker.min_query_chars if long
                      else config.short_query.applies(case.query))
            if wanted and (cache / "indexes" / case.revision).is_dir():
                by_revision[case.revision].append(case)
        for revision, group in sorted(by_revision.items()):
            with IndexReader.open(str(cache / "indexes" / revision)) as reader:
                retriever = ReferenceRetriever(reader, config)
                for case in group:
                    want = max(case.cutoff, config.candidates.default_k)
                    gathered = retriever.gather(case.query, want=want)
                    if not gathered.candidates:
                        continue
                    rows, offsets, _ = retriever.features(gathered)
                    chunks = [s.chunk.to_chunk(score=0.0, excerpt_chars=0)
                              for s in gathered.candidates]
                    # Neighbours expansion may add, each candidate's own neighbour chunk.
                    neighbours = {s.chunk.id: reader.get(s.chunk.prev_id or s.chunk.parent_id)
                                  for s in gathered.candidates if not s.chunk.has_signature
                                  and (s.chunk.prev_id or s.chunk.parent_id)}
                    record = {
                        "case": case, "repo": path.stem, "want": want,
                        "manifest": reader.manifest,
                        "language": case.tags.get("language"),
                        "query_class": case.query_class,
                        "X": rows, "offset": offsets,
                        "y": np.asarray([_label(c, case) for c in chunks], dtype=np.int32),
                        "candidates": gathered.candidates, "neighbours": neighbours,
                        "analysis": gathered.analysis,
                        "filters": gathered.filters,
                    }
                    record["shipped"] = shipped_order(record, retriever, config)
                    records.append(record)
        print(f"[{number}/{len(files)}] {path.stem}: {len(records)} cases so far",
              file=sys.stderr, flush=True)
    return records


def shipped_order(record: dict[str, Any], retriever: ReferenceRetriever, config: Any
                  ) -> list[Any]:
    """The final ranking the shipped configuration gives the record's candidates: the
    learnt model's (an issue-length message) or the hand-set multipliers'."""
    if retriever._model is not None and retriever._learnt(record["case"].query):
        return learnt_order(record, retriever._model.predict(record["X"]), config.expansion)
    analysis = record["analysis"]
    ranked = rerank(record["candidates"], config=config.rerank, intent=analysis.intent,
                    asks_for=analysis.asks_for, open_file=None,
                    categories=retriever._categories)
    final, _ = expand(retriever.reader, ranked, k=record["want"], config=config.expansion,
                      filters=record["filters"])
    return [s.chunk.to_chunk(score=0.0, excerpt_chars=0) for s in final]


class _Neighbours:
    """What ``expand`` reads from an index: the recorded neighbour chunks."""

    def __init__(self, chunks: dict[str, Any]) -> None:
        self.chunks = {c.id: c for c in chunks.values() if c is not None}

    def get(self, chunk_id: str) -> Any:
        return self.chunks.get(chunk_id)


def status(record: dict[str, Any], ranked: list[Any]) -> str:
    attempt = Attempt(attempt_id="a", case_id=record["case"].id, ranked=ranked,
                      manifest=record["manifest"])
    return score_case(record["case"], attempt).status


def learnt_order(record: dict[str, Any], scores: np.ndarray, expansion: Any) -> list[Any]:
    items = [Scored(chunk=s.chunk, score=float(v + o), contributions=s.contributions)
             for s, v, o in zip(record["candidates"], scores.tolist(),
                                record["offset"].tolist(), strict=True)]
    items.sort(key=lambda s: (-s.score, s.chunk.id))
    final, _ = expand(_Neighbours(record["neighbours"]), items, k=record["want"],  # type: ignore[arg-type]
                      config=expansion, filters=record["filters"])
    return [s.chunk.to_chunk(score=0.0, excerpt_chars=0) for s in final]


def _stack(records: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    return (np.vstack([r["X"] for r in records]), np.concatenate([r["offset"] for r in records]),
            np.concatenate([r["y"] for r in records]), [len(r["y"]) for r in records])


def train(records: list[dict[str, Any]], params: dict[str, Any], rounds: int) -> Any:
    import lightgbm as lgb

    useful = [r for r in records if r["y"].max() > 0]
    X, offset, y, groups = _stack(useful)
    data = lgb.Dataset(X, label=y, group=groups, init_score=offset,
                       feature_name=list(ltr.FEATURES), free_raw_data=False)
    return lgb.train(params, data, num_boost_round=rounds)


def judge(records: list[dict[str, Any]], params: dict[str, Any], rounds: int
          ) -> dict[str, tuple[str, str]]:
    """Case id -> (shipped status, learnt status), each repository by a model that never
    saw it."""
    out: dict[str, tuple[str, str]] = {}
    expansion = load_config().expansion
    for repo in sorted({r["repo"] for r in records}):
        model = train([r for r in records if r["repo"] != repo], params, rounds)
        for record in (r for r in records if r["repo"] == repo):
            learnt = learnt_order(record, model.predict(record["X"]), expansion)
            out[record["case"].id] = (status(record, record["shipped"]), status(record, learnt))
        print(f"judged {repo}", file=sys.stderr, flush=True)
    return out


def table(records: list[dict[str, Any]], results: dict[str, tuple[str, str]]) -> None:
    def rate(ids: list[str], side: int) -> float:
        return 100 * sum(results[i][side] == "pass" for i in ids) / len(ids)

    ids = [r["case"].id for r in records]
    by: dict[str, dict[str, list[str]]] = {"repository": collections.defaultdict(list),
                                           "language": collections.defaultdict(list),
                                           "class": collections.defaultdict(list)}
    for r in records:
        by["repository"][r["repo"]].append(r["case"].id)
        by["language"][str(r["language"])].append(r["case"].id)
        by["class"][str(r["query_class"])].append(r["case"].id)
    gained = sum(results[i] == ("fail", "pass") for i in ids)
    lost = sum(results[i] == ("pass", "fail") for i in ids)
    repos = by["repository"]
    print(f"mined cases: {len(ids)}; pass {rate(ids, 0):.1f} -> {rate(ids, 1):.1f} % "
          f"(+{gained} / -{lost}); mean of {len(repos)} repositories "
          f"{np.mean([rate(v, 0) for v in repos.values()]):.1f} -> "
          f"{np.mean([rate(v, 1) for v in repos.values()]):.1f} %")
    for name in ("language", "class", "repository"):
        print(f"\n| {name} | cases | hand-set | learnt |\n|---|---|---|---|")
        for key, members in sorted(by[name].items()):
            print(f"| {key} | {len(members)} | {rate(members, 0):.1f} | {rate(members, 1):.1f} |")


def write_model(model: Any, records: list[dict[str, Any]], params: dict[str, Any], rounds: int,
                out: Path) -> None:
    X, _, y, _ = _stack(records)
    digest = hashlib.sha256(np.ascontiguousarray(X).tobytes() + y.tobytes()).hexdigest()
    picked = np.linspace(0, len(y) - 1, 24).astype(int)
    spec = {"format": ltr.LTR_FORMAT, "features": list(ltr.FEATURES),
            "trees": ltr.from_lightgbm(model.dump_model()),
            "training": {"data": "mined corpus, short questions (benchmarks/learn_ranker.py)",
                         "data_sha256": digest, "cases": len(records), "rows": len(y),
                         "repositories": sorted({r["repo"] for r in records}),
                         "rounds": rounds,
                         "params": {k: v for k, v in sorted(params.items())
                                    if k not in ("num_threads", "verbosity")},
                         "lightgbm": __import__("lightgbm").__version__,
                         # LightGBM's own scores of a few rows: a test checks the numpy
                         # trees against them without LightGBM installed.
                         "check": {"rows": X[picked].tolist(),
                                   "scores": model.predict(X[picked], raw_score=True).tolist()}}}
    payload = msgspec.json.format(msgspec.json.encode(spec), indent=0)
    ours = ltr.TreeModel.decode(payload, str(out)).predict(X)
    gap = float(np.max(np.abs(ours - model.predict(X, raw_score=True))))
    if gap > 1e-9:
        raise SystemExit(f"numpy trees differ from LightGBM by {gap}")
    out.write_bytes(payload + b"\n")
    print(f"wrote {out}: {len(spec['trees'])} trees, {len(records)} cases; numpy = LightGBM "
          f"within {gap:.1e}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", type=Path, required=True,
                        help="the mined corpus's cache (benchmarks/mined_corpus.py --cache-dir)")
    parser.add_argument("--features", type=Path, default=None,
                        help="pickle of the collected cases: read when present, else written")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--leaves", type=int, default=int(PARAMS["num_leaves"]))
    parser.add_argument("-o", "--out", type=Path, default=None,
                        help="write the model refitted on every repository here")
    parser.add_argument("--long", action="store_true",
                        help="the issue-length messages instead (those the shipped learnt "
                             "ranker orders): a model learnt from them against the shipped one")
    args = parser.parse_args(argv)
    if args.features is not None and args.features.exists():
        records = pickle.loads(args.features.read_bytes())
    else:
        records = collect(args.cache_dir, None, long=args.long)
        if args.features is not None:
            args.features.write_bytes(pickle.dumps(records))
    params = {**PARAMS, "num_leaves": args.leaves}
    table(records, judge(records, params, args.rounds))
    if args.out is not None:
        write_model(train(records, params, args.rounds), records, params, args.rounds, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
