"""SWE-bench localisation: file- and function-level hit@1/5/10 of the reference retriever.

Cases come from ``instances.jsonl`` (see ``/work/shared/data/swebench-dev/README.md``):
query = the issue text, accepted = the gold files (file level) and the gold functions
(function level). Each instance's base commit is indexed once into ``--cache-dir``
(Python files only, like the README's baseline); builds of one repository reuse the
previous build's unchanged files.

Configurations (each the same retriever with parts switched off in its config):

- ``bm25-raw``: chunk BM25 over every token of the raw issue text (no query analysis).
- ``bm25``: the lexical signal alone (BM25 over the analysed query's terms: names first,
  template boilerplate and stop words out, capped); no rerank, no expansion.
- ``identifier`` / ``symbol`` / ``path`` / ``file`` / ``dense``: that signal alone, no rerank.
- ``hybrid``: every signal except dense, fused, ranked as the config says (the default).
- ``fusion`` / ``ltr``: ``hybrid`` with ``ranker.method`` set to that (hand-weighted fusion
  and rerank multipliers, or the learnt ranking model).
- ``hybrid+dense``: the default config with dense on (needs ``codegold[dense]``).

Metrics per configuration, over instances:

- file Acc@k: every gold file is among the first k *distinct files* of the ranking (the
  README's baseline measure); file Hit@k: at least one is.
- function Hit@k: a gold function (file + qualified symbol, or a method/class of it) is
  in the first k *chunks*; function Acc@k: every gold function is (instances without a
  gold function count as misses).

Splits: ``--split train|validation|all`` keeps the instances a hash of their id puts on
that side (70 % train, the hash of ``codegold cases split``, seed 0); the tables are
printed for train and validation separately, per query class: ``traceback`` (the
issue holds a stack-trace frame), ``identifiers`` (it names code: identifiers, paths)
and ``prose`` (neither), and per repository, with the old three development
repositories (requests, flask, pytest) against the others and the mean and the worst
repository (every instance is Python: per language is per repository here).

Usage::

    python benchmarks/swebench_localization.py --repos-dir /work/.mirror --limit 40
    python benchmarks/swebench_localization.py --repos-dir DIR --configs bm25,hybrid --dense
    python benchmarks/swebench_localization.py --repos-dir /work/.mirror \
        --cache-dir /work/devcache --split validation --configs bm25,hybrid
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from codegold.curate.split import case_hash
from codegold.index import IndexReader, PathPolicy, build_index
from codegold.index.tokens import code_tokens
from codegold.retrieve.config import RetrieverConfig, load_config
from codegold.retrieve.lexindex import LexicalIndex
from codegold.retrieve.query import analyze_query
from codegold.retrieve.reference import ReferenceRetriever
from codegold.retrieve.signals import DenseSignal

DEFAULT_DATA = Path("/work/shared/data/swebench-dev/instances.jsonl")
KS = (1, 5, 10)
DEPTH = 60
SIGNALS = ("lexical", "identifier", "symbol", "path", "file", "dense")
TRAIN_FRACTION = 0.7
SPLITS = ("train", "validation")
CLASSES = ("traceback", "identifiers", "prose")
KINDS = ("file_acc", "file_hit", "func_acc", "func_hit")
ALL_CONFIGS = ("bm25-raw", "bm25", "identifier", "symbol", "path", "file", "dense", "hybrid",
               "fusion", "ltr", "hybrid+dense")


def split_of(instance_id: str) -> str:
    """``train`` or ``validation``: the hash split of ``codegold cases split`` (seed 0)."""
    return "train" if case_hash(instance_id, 0) < TRAIN_FRACTION else "validation"


def query_class(query: str) -> str:
    analysis = analyze_query(query)
    if analysis.frames:
        return "traceback"
    if analysis.identifiers or analysis.paths:
        return "identifiers"
    return "prose"


def find_repo(repos_dir: Path, repo: str) -> Path | None:
    owner, name = repo.split("/")
    for folder in (repos_dir / f"{owner}+{name}", repos_dir / f"{owner}__{name}"):
        if (folder / "repo").is_dir():
            return folder / "repo"
        if folder.is_dir():
            return folder
    return None


def config_for(name: str, base: RetrieverConfig) -> RetrieverConfig:
    """The default config with signals/rerank switched as the configuration's name says."""
    replace = msgspec.structs.replace
    signals = base.signals

    def only(keep: set[str]) -> Any:
        return replace(signals, **{s: replace(getattr(signals, s), enabled=s in keep)
                                   for s in SIGNALS})

    lexical = {"lexical", "identifier", "symbol", "path", "file"}
    if name == "hybrid":
        return replace(base, signals=only(lexical))
    if name in ("fusion", "ltr"):
        return replace(base, signals=only(lexical), ranker=replace(base.ranker, method=name))
    if name == "hybrid+dense":
        return replace(base, signals=only(set(SIGNALS)))
    single = "lexical" if name == "bm25" else name
    # One signal as it is: no short-question settings (they switch the file signal off).
    return replace(base, signals=only({single}), rerank=replace(base.rerank, enabled=False),
                   expansion=replace(base.expansion, enabled=False),
                   ranker=replace(base.ranker, method="fusion"),
                   short_query=replace(base.short_query, max_chars=0))


def symbol_matches(gold: str, chunk_symbols: Sequence[str]) -> bool:
    """A chunk holds the gold function when one of its qualified symbols is it."""
    return any(symbol == gold or symbol.endswith("." + gold) for symbol in chunk_symbols)


def score_instance(ranked: list[tuple[str, tuple[str, ...]]], gold_files: list[str],
                   gold_symbols: list[dict[str, str]]) -> dict[str, bool]:
    files: list[str] = []
    for file, _ in ranked:
        if file not in files:
            files.append(file)
    out: dict[str, bool] = {}
    gold = set(gold_files)
    for k in KS:
        top = set(files[:k])
        out[f"file_acc@{k}"] = bool(gold) and gold <= top
        out[f"file_hit@{k}"] = bool(gold & top)
        found = [any(file == g["file"] and symbol_matches(g["symbol"], symbols)
                     for file, symbols in ranked[:k]) for g in gold_symbols]
        out[f"func_hit@{k}"] = any(found)
        out[f"func_acc@{k}"] = bool(found) and all(found)
    return out


def build_indexes(instances: list[dict[str, Any]], repos_dir: Path, cache: Path,
                  log: Callable[[str], None], *, build: bool = True) -> dict[str, Path]:
    policy = PathPolicy(include=("**/*.py",))
    last_by_repo: dict[str, Path] = {}
    built: dict[str, Path] = {}
    order = sorted(instances, key=lambda r: (r["repo"], r["base_commit"]))
    for number, row in enumerate(order, start=1):
        repo_dir = find_repo(repos_dir, row["repo"])
        if repo_dir is None:
            log(f"skip {row['instance_id']}: no clone of {row['repo']} in {repos_dir}")
            continue
        out = cache / row["repo"].replace("/", "+") / row["base_commit"]
        if not (out / "manifest.json").is_file() or not _complete(out):
            if not build:
                log(f"skip {row['instance_id']}: no complete index in {cache} (--only-cached)")
                continue
            started = time.perf_counter()
            try:
                build_index(repo_dir, row["base_commit"], out, policy=policy,
                            reuse_from=last_by_repo.get(row["repo"]), repository=row["repo"])
            except Exception as err:
                # A benchmark reports a failed build (a chunker bug, say) and goes on.
                log(f"skip {row['instance_id']}: index build failed: {type(err).__name__}: {err}")
                continue
            log(f"[{number}/{len(order)}] indexed {row['repo']}@{row['base_commit'][:10]} "
                f"in {time.perf_counter() - started:.1f}s")
        last_by_repo[row["repo"]] = out
        built[row["instance_id"]] = out
    return built


def _bm25_raw(reader: IndexReader, query: str, base: RetrieverConfig
              ) -> tuple[list[tuple[str, tuple[str, ...]]], float]:
    """Chunk BM25 over every token of the raw issue text: no query analysis at all."""
    started = time.perf_counter()
    lexical = base.signals.lexical
    engine = LexicalIndex.for_reader(reader, weights=lexical.field_weights, k1=lexical.k1,
                                     b=lexical.b)
    hits = engine.search(code_tokens(query), DEPTH)
    chunks = reader.get_many([cid for cid, _ in hits])
    ranked = [(c.file, (c.symbol, *c.symbols) if c.symbol else c.symbols) for c in chunks]
    return ranked, (time.perf_counter() - started) * 1000


def _complete(index_dir: Path) -> bool:
    try:
        return bool(json.loads((index_dir / "manifest.json").read_text()).get("complete"))
    except (OSError, ValueError):
        return False


def print_table(records: list[dict[str, Any]], configs: list[str],
                latency: dict[str, list[float]]) -> None:
    n = len(records)
    head = ["config", *(f"{label} @{k}" for label in ("file Acc", "file Hit", "func Acc", "func Hit")
                        for k in KS), "p50 ms"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in configs:
        cells = [f"{100 * sum(r[name]['scores'][f'{kind}@{k}'] for r in records) / n:.1f}"
                 for kind in KINDS for k in KS]
        times = sorted(latency[name])
        p50 = times[len(times) // 2] if times else 0.0
        print(f"| {name} | " + " | ".join(cells) + f" | {p50:.0f} |")


def print_classes(records: list[dict[str, Any]], configs: list[str]) -> None:
    groups = {c: [r for r in records if r["class"] == c] for c in CLASSES}
    print("| config | " + " | ".join(f"{c} (n={len(groups[c])})" for c in CLASSES) + " |")
    print("|" + "---|" * (len(CLASSES) + 1))
    for name in configs:
        cells = []
        for c in CLASSES:
            members = groups[c]
            if not members:
                cells.append("-")
                continue
            acc = 100 * sum(r[name]["scores"]["file_acc@5"] for r in members) / len(members)
            func = 100 * sum(r[name]["scores"]["func_acc@5"] for r in members) / len(members)
            cells.append(f"{acc:.1f} / {func:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


# The repositories the retriever's rules and learnt ranker were first developed on (as in
# realcases.py); every other repository of the data set is "new".
OLD_REPOSITORIES = frozenset({"psf/requests", "pallets/flask", "pytest-dev/pytest"})


def print_repositories(records: list[dict[str, Any]], configs: list[str]) -> None:
    """File Acc@5 / function Acc@5 per repository, then the old three against the others
    and the mean and worst of the per-repository figures (all instances are Python)."""
    repos = sorted({r["repo"] for r in records})
    groups: dict[str, list[dict[str, Any]]] = {repo: [r for r in records if r["repo"] == repo]
                                                for repo in repos}
    groups["old three"] = [r for r in records if r["repo"] in OLD_REPOSITORIES]
    groups["new"] = [r for r in records if r["repo"] not in OLD_REPOSITORIES]
    names = [n for n in [*repos, "old three", "new"] if groups[n]]
    print("| config | " + " | ".join(f"{n} (n={len(groups[n])})" for n in names)
          + " | mean of repositories | worst repository |")
    print("|" + "---|" * (len(names) + 3))
    for name in configs:
        cells, per_repo = [], {}
        for group in names:
            members = groups[group]
            acc = 100 * sum(r[name]["scores"]["file_acc@5"] for r in members) / len(members)
            func = 100 * sum(r[name]["scores"]["func_acc@5"] for r in members) / len(members)
            cells.append(f"{acc:.1f} / {func:.1f}")
            if group in repos:
                per_repo[group] = acc
        worst = min(per_repo, key=lambda g: (per_repo[g], g))
        mean = sum(per_repo.values()) / len(per_repo)
        print(f"| {name} | " + " | ".join(cells)
              + f" | {mean:.1f} | {worst.split('/')[-1]} {per_repo[worst]:.1f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repos-dir", type=Path, required=True,
                        help="bare clones named owner+name or owner__name (optionally with repo/ inside)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".cache/swebench-indexes"))
    parser.add_argument("--limit", type=int, default=None, help="first N instances (after --repos)")
    parser.add_argument("--repos", default=None, help="comma-separated owner/name filter")
    parser.add_argument("--configs", default="bm25-raw,bm25,identifier,symbol,path,file,hybrid",
                        help=f"comma-separated from {','.join(ALL_CONFIGS)}")
    parser.add_argument("--dense", action="store_true", help="also run dense and hybrid+dense")
    parser.add_argument("--embedder", default="minilm-int8")
    parser.add_argument("--config", type=Path, default=None, help="retriever config override")
    parser.add_argument("--only-cached", action="store_true",
                        help="skip instances whose index is not in --cache-dir yet (never build)")
    parser.add_argument("--split", choices=("train", "validation", "all"), default="all",
                        help="instances of this side of the 70/30 hash split (default all)")
    parser.add_argument("--json", type=Path, default=None, help="write per-instance results here")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    if args.repos:
        wanted = set(args.repos.split(","))
        rows = [r for r in rows if r["repo"] in wanted]
    if args.split != "all":
        rows = [r for r in rows if split_of(r["instance_id"]) == args.split]
    if args.limit:
        rows = rows[: args.limit]
    configs = [c for c in args.configs.split(",") if c]
    if args.dense:
        configs += [c for c in ("dense", "hybrid+dense") if c not in configs]
    base = load_config(args.config)
    indexes = build_indexes(rows, args.repos_dir, args.cache_dir, log, build=not args.only_cached)
    rows = [r for r in rows if r["instance_id"] in indexes]
    make_dense: Callable[[IndexReader], DenseSignal] | None = None
    if any("dense" in c for c in configs):
        from codegold.retrieve.dense import dense_factory

        settings = base.signals.dense
        make_dense = dense_factory(args.embedder, batch_size=settings.batch_size,
                                   max_tokens=settings.max_tokens, share_vectors=True,
                                   mode=settings.mode, store=settings.store)
    latency: dict[str, list[float]] = defaultdict(list)
    per_instance: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=1):
        with IndexReader.open(indexes[row["instance_id"]]) as reader:
            dense = None
            if make_dense is not None:
                started = time.perf_counter()
                dense = make_dense(reader)
                log(f"[{number}/{len(rows)}] dense vectors ready in {time.perf_counter() - started:.1f}s")
            # Build (or load) the lexical cache before timing, as a long-running service would.
            for unit in ("chunk", "file"):
                LexicalIndex.for_reader(reader, weights=base.signals.lexical.field_weights,
                                        k1=base.signals.lexical.k1, b=base.signals.lexical.b,
                                        unit=unit)
            record: dict[str, Any] = {"instance_id": row["instance_id"], "repo": row["repo"],
                                      "split": split_of(row["instance_id"]),
                                      "class": query_class(row["query"])}
            for name in configs:
                if name == "bm25-raw":
                    ranked, took = _bm25_raw(reader, row["query"], base)
                    latency[name].append(took)
                else:
                    retriever = ReferenceRetriever(reader, config_for(name, base), dense=dense)
                    result = retriever.retrieve(row["query"], k=DEPTH)
                    latency[name].append(result.timing_ms["total"])
                    ranked = [(s.chunk.file, (s.chunk.symbol, *s.chunk.symbols) if s.chunk.symbol
                               else s.chunk.symbols) for s in result.ranked]
                scores = score_instance(ranked, row["gold_files"], row["gold_symbols"])
                record[name] = {"scores": scores, "files": list(dict.fromkeys(f for f, _ in ranked))[:10]}
            per_instance.append(record)
        if number % 10 == 0:
            log(f"[{number}/{len(rows)}] scored")
    print(f"\nSWE-bench dev localisation, n = {len(rows)} instances "
          f"({len({r['repo'] for r in rows})} repositories)")
    for split in SPLITS:
        records = [r for r in per_instance if r["split"] == split]
        if not records:
            continue
        print(f"\n{split}: n = {len(records)}\n")
        print_table(records, configs, latency)
        print(f"\n{split}, file Acc@5 / function Acc@5 by query class:\n")
        print_classes(records, configs)
        print(f"\n{split}, file Acc@5 / function Acc@5 by repository (old three: the first "
              "development repositories):\n")
        print_repositories(records, configs)
    if args.json:
        args.json.write_text(json.dumps(per_instance, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
