"""Hand-written real cases: the reference retriever on twenty repositories at pinned revisions.

The cases in ``benchmarks/realcases/*.yaml`` were written by hand (queries and labels)
by reading each repository at its revision; every case names its query class
(``exact_identifier``, ``descriptive``, ``stack_trace``, ``usage``, ``test``, ``config``)
and its repository's language (the ``language`` tag), and most name forbidden sources
(docs, changelog, compat shims, version copies, benchmark suites, examples, tests) where a
plausible wrong answer exists. ``codegold cases check`` passes on all of them. The first
three (requests, flask, pytest: ``OLD_REPOSITORIES``) are the repositories the retriever
was first tuned on; the others were added to judge it on repositories it was not.

For each case file the pinned revision is indexed once into ``--cache-dir`` (reused when
complete), then each configuration runs every case through the reference retriever
(codegold's runner and eval engine, as ``codegold run`` + ``codegold eval`` do) at the
cases' cutoff (5):

- ``reference``: the default configuration, as ``codegold run`` uses it.
- ``lexical``: chunk BM25 alone (no other signal, no rerank, no expansion).
- ``file-bm25``: the whole-file BM25 signal alone (a file's best chunks).
- ``reference+dense``: the default configuration with dense retrieval (``--dense``;
  needs ``codegold[dense]``; lazy by default: each query embeds the candidates the other
  signals found; ``--config`` with ``signals.dense.mode: full`` embeds every chunk).

Printed: one summary row per configuration (pass rate, hit rate, MRR, forbidden-source
rate), then for each configuration the same figures per repository, per language, per
query class, and for the old three repositories against the others (the gap). Attempts
and results files are kept under ``--out`` (default: CACHE/runs), so failures can be
explained with
``codegold diagnose OUT/CONFIG/REPO.results.json --index CACHE/indexes``.

Usage::

    python benchmarks/realcases.py --repos-dir /work/.mirror --cache-dir .cache/realcases
    python benchmarks/realcases.py --repos-dir DIR --configs reference --dense --json out.json

Nothing here reaches the network: REPOS_DIR holds local clones (bare is fine) named
``owner+name`` or ``owner__name`` (optionally with ``repo/`` inside).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
from swebench_localization import config_for, find_repo

from codegold.adapters.reference import ReferenceAdapter, reference_setup
from codegold.adapters.runner import run_cases
from codegold.evaluate.aggregate import aggregate
from codegold.evaluate.engine import evaluate_files
from codegold.index import build_index
from codegold.index.catalog import IndexSet
from codegold.model import Aggregates, CaseResult, load_cases, write_results
from codegold.retrieve.config import RetrieverConfig, load_config

CASES_DIR = Path(__file__).resolve().parent / "realcases"
CONFIGS = ("reference", "lexical", "file-bm25")
DENSE_CONFIG = "reference+dense"
CLASSES = ("exact_identifier", "descriptive", "stack_trace", "usage", "test", "config")
# The repositories the retriever's rules and learnt ranker were first developed on.
OLD_REPOSITORIES = frozenset({"psf/requests", "pallets/flask", "pytest-dev/pytest"})


def configuration(name: str, base: RetrieverConfig) -> RetrieverConfig:
    """The retriever config a configuration name stands for (signals switched off in base)."""
    if name in ("reference", DENSE_CONFIG):
        return base
    if name == "lexical":
        return config_for("bm25", base)
    if name == "file-bm25":
        return config_for("file", base)
    raise SystemExit(f"unknown configuration {name!r}; choose from {', '.join(CONFIGS)}")


def _complete(index_dir: Path) -> bool:
    try:
        return bool(json.loads((index_dir / "manifest.json").read_text()).get("complete"))
    except (OSError, ValueError):
        return False


def build_indexes(case_files: Sequence[Path], repos_dir: Path, root: Path,
                  log: Callable[[str], None], jobs: int | None = None) -> None:
    """Index every revision the case files pin into ROOT/<revision> (once; reused when complete)."""
    for path in case_files:
        pins = {(c.repository, c.revision) for c in load_cases(str(path)).cases}
        for repository, revision in sorted(pins, key=lambda p: (p[0] or "", p[1])):
            out = root / revision
            if _complete(out):
                continue
            if repository is None:
                raise SystemExit(f"{path}: a case names no repository")
            repo = find_repo(repos_dir, repository)
            if repo is None:
                raise SystemExit(f"no clone of {repository} under {repos_dir} "
                                 f"(expected {repository.replace('/', '+')}/)")
            started = time.perf_counter()
            build_index(repo, revision, out, repository=repository, jobs=jobs)
            log(f"indexed {repository}@{revision[:12]} in {time.perf_counter() - started:.1f}s")


def run_one(name: str, config: RetrieverConfig, dense: bool, embedder: str | None,
            case_files: Sequence[Path], indexes: IndexSet, out: Path,
            log: Callable[[str], None]) -> list[tuple[str, CaseResult]]:
    """Run and score every case file under one configuration; (repository, result) pairs."""
    config, factory = reference_setup(config, dense=dense, embedder=embedder)
    adapter = ReferenceAdapter(config, dense_factory=factory)
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, CaseResult]] = []
    try:
        for path in case_files:
            attempts = folder / f"{path.stem}.attempts.jsonl"
            attempts.unlink(missing_ok=True)
            case_set = load_cases(str(path))
            started = time.perf_counter()
            summary = run_cases(case_set.cases, adapter, indexes, attempts, label=name,
                                run_id=f"realcases-{name}-{path.stem}")
            if summary.errors:
                log(f"{name}/{path.stem}: {summary.errors} case(s) got an error attempt")
            result = evaluate_files(str(path), str(attempts))
            write_results(result, str(folder / f"{path.stem}.results.json"))
            log(f"{name}/{path.stem}: {len(case_set.cases)} cases in "
                f"{time.perf_counter() - started:.1f}s")
            repository = {c.id: c.repository or path.stem for c in case_set.cases}
            rows.extend((repository[r.case_id], r) for r in result.cases)
    finally:
        adapter.close()
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _pass_cell(figures: Aggregates) -> str:
    return f"{_pct(figures.pass_rate)} ({figures.pass_}/{figures.scored})"


def _figures(rows: Sequence[CaseResult]) -> list[str]:
    every = aggregate(list(rows))
    return [str(every.cases), _pass_cell(every), _pct(every.hit_rate),
            _pct(every.mean_group_recall),
            "-" if every.mrr is None else f"{every.mrr:.3f}", _pct(every.forbidden_rate)]


_FIGURE_HEAD = ["cases", "pass % (n)", "hit %", "group recall %", "MRR", "forbidden %"]


def table(results: dict[str, list[tuple[str, CaseResult]]], case_class: dict[str, str]) -> str:
    """The summary table: one row per configuration, Markdown."""
    lines = ["| config | " + " | ".join(_FIGURE_HEAD) + " | invalid |",
             "|" + "---|" * (len(_FIGURE_HEAD) + 2)]
    for name, rows in results.items():
        every = aggregate([r for _, r in rows])
        lines.append(f"| {name} | " + " | ".join(_figures([r for _, r in rows]))
                     + f" | {every.invalid} |")
    return "\n".join(lines)


def breakdown(rows: Sequence[tuple[str, CaseResult]], case_class: dict[str, str],
              case_language: dict[str, str]) -> str:
    """One configuration per repository, per language, per class and old against new."""
    def section(title: str, key: Callable[[str, CaseResult], str],
                order: Sequence[str] | None = None) -> list[str]:
        groups: dict[str, list[CaseResult]] = {}
        for repo, result in rows:
            groups.setdefault(key(repo, result), []).append(result)
        names = [n for n in (order or ()) if n in groups] + sorted(set(groups) - set(order or ()))
        out = [f"| {title} | " + " | ".join(_FIGURE_HEAD) + " |",
               "|" + "---|" * (len(_FIGURE_HEAD) + 1)]
        out += [f"| {n} | " + " | ".join(_figures(groups[n])) + " |" for n in names]
        return out

    def era(repo: str, _: CaseResult) -> str:
        return "old three" if repo in OLD_REPOSITORIES else "new"

    parts = [section("repository", lambda repo, _: repo),
             section("language", lambda _, r: case_language.get(r.case_id, "?")),
             section("query class", lambda _, r: case_class[r.case_id], CLASSES),
             section("repositories", era, ("old three", "new"))]
    pass_by_repo = {repo: aggregate([r for rp, r in rows if rp == repo]).pass_rate or 0.0
                    for repo in {repo for repo, _ in rows}}
    if pass_by_repo:
        worst = min(pass_by_repo, key=lambda r: (pass_by_repo[r], r))
        mean = sum(pass_by_repo.values()) / len(pass_by_repo)
        parts.append([f"mean of per-repository pass rates {100 * mean:.1f} %, worst "
                      f"{worst} {100 * pass_by_repo[worst]:.1f} %"])
    return "\n\n".join("\n".join(p) for p in parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos-dir", type=Path, required=True,
                        help="local clones named owner+name or owner__name (repo/ inside is fine)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".cache/realcases"),
                        help="indexes are built into CACHE/indexes/<revision> and reused")
    parser.add_argument("--out", type=Path, default=None,
                        help="attempts and results per configuration (default: CACHE/runs)")
    parser.add_argument("--cases", default=None,
                        help="comma-separated case files (default: every benchmarks/realcases/*.yaml)")
    parser.add_argument("--configs", default=",".join(CONFIGS),
                        help=f"comma-separated from {','.join(CONFIGS)}")
    parser.add_argument("--dense", action="store_true",
                        help=f"also run {DENSE_CONFIG} (needs codegold[dense])")
    parser.add_argument("--embedder", default=None, help="dense embedder (default: the config's)")
    parser.add_argument("--config", type=Path, default=None, help="retriever config override (YAML)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="chunking worker processes per index build (default: per CPU)")
    parser.add_argument("--json", type=Path, default=None,
                        help="write per-configuration figures and per-case outcomes here")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    case_files = ([Path(p) for p in args.cases.split(",") if p] if args.cases
                  else sorted(CASES_DIR.glob("*.yaml")))
    names = [c for c in args.configs.split(",") if c]
    if args.dense and DENSE_CONFIG not in names:
        names.append(DENSE_CONFIG)
    base = load_config(args.config)
    index_root = args.cache_dir / "indexes"
    build_indexes(case_files, args.repos_dir, index_root, log, args.jobs)
    indexes = IndexSet.from_path(index_root)
    out = args.out or args.cache_dir / "runs"
    loaded = [c for p in case_files for c in load_cases(str(p)).cases]
    case_class = {c.id: c.query_class for c in loaded}
    case_language = {c.id: c.tags.get("language", "?") for c in loaded}
    results = {name: run_one(name, configuration(name, base), name == DENSE_CONFIG,
                             args.embedder, case_files, indexes, out, log)
               for name in names}
    print(f"\nReal cases: {len(case_class)} hand-written cases, "
          f"{len(case_files)} repositories, cutoff 5 (pass rate with passed/scored)\n")
    print(table(results, case_class))
    for name, rows in results.items():
        print(f"\n### {name}\n")
        print(breakdown(rows, case_class, case_language))
    print(f"\nExplain failures: codegold diagnose {out}/CONFIG/REPO.results.json "
          f"--index {index_root}")
    if args.json:
        report = {name: {"summary": msgspec.to_builtins(aggregate([r for _, r in rows])),
                         "cases": {r.case_id: r.status for _, r in rows},
                         "repositories": {r.case_id: repo for repo, r in rows}}
                  for name, rows in results.items()}
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
