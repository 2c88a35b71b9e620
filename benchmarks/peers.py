"""Peers measured by codegold: the same gold cases through several retrievers, one table.

Every retriever runs through codegold's own runner with span resolution (what
``codegold run --resolve`` does) and is scored by ``codegold eval``'s engine:

- ``reference``: codegold's reference retriever, default configuration (``--no-dense``
  unless ``--dense``).
- ``file-bm25``: the reference retriever's whole-file BM25 signal alone.
- ``windows-bm25``: ``examples/retrievers/windows_bm25.py``, BM25 over plain 40-line
  windows, through ``command+jsonl:`` (one process for the run).
- ``semble``: semble 0.7 as a Python library (``benchmarks/semble_retriever.py`` behind
  ``command+jsonl:``, in the environment ``--semble-python`` names), BM25 + its rerank
  (``alpha=0.0``) on work trees of each revision. semble embeds every chunk when it
  builds an index and by default loads its model from the Hugging Face hub; a local
  placeholder model (random vectors) is used instead unless ``--semble-model`` names a
  real one, which cannot change an ``alpha=0.0`` ranking. Without ``--semble-python`` it
  is skipped, with the reason printed.
- ``mcp:code-index-mcp``: the code-index-mcp server over stdio (``--code-index-mcp``
  names its executable), started per revision on a work tree of it, its
  ``search_code_advanced`` tool called with the query's words as a regular expression.

Printed: pass rate, hit rate, MRR, forbidden rate, latency p50/p95 (the wall time of each
answer; the first answer of a server includes its start), pass per query class; then
``codegold compare``'s Holm-corrected verdicts against ``reference``.

    python benchmarks/peers.py --suite acme --out /tmp/peers-acme \\
        --code-index-mcp /tmp/mcpservers/code-index-mcp/.venv/bin/code-index-mcp
    python benchmarks/peers.py --suite real --repos-dir /work/.mirror --indexes IDX \\
        --out /tmp/peers-real --code-index-mcp ...

``--suite acme`` uses the bundled example as ``make demo`` builds it (``demo-out/``:
its repository and indexes); ``--suite real`` the hand-written cases in
``benchmarks/realcases/`` (flask, pytest, requests: Python) and ``benchmarks/peercases/``
(express 5.1.0: JavaScript, 11 cases), merged into one cases file, with
the clones under ``--repos-dir`` (``owner+name/``) and their indexes under ``--indexes``
(``codegold index REPOS --cases FILE -o IDX`` builds them).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
from realcases import configuration

from codegold.adapters.mcp import McpSettings
from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
from codegold.adapters.resolving import ResolvingRetriever
from codegold.adapters.runner import run_cases
from codegold.evaluate.aggregate import aggregate
from codegold.evaluate.engine import evaluate_files
from codegold.index.catalog import IndexSet
from codegold.model import CaseResult, decode_attempt, load_cases, write_results
from codegold.resolve import AttemptResolver
from codegold.retrieve.config import load_config

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = ROOT / "examples" / "retrievers" / "windows_bm25.py"
CLASSES = ("exact_identifier", "descriptive", "usage", "test", "config")
SEMBLE = ROOT / "benchmarks" / "semble_retriever.py"


def specs(args: argparse.Namespace, repo: str,
          checkouts: dict[str, Path]) -> list[tuple[str, str, RetrieverOptions]]:
    base = load_config(None)  # the shipped defaults (default_config.yaml), as `run` uses
    out = [("reference", "reference", RetrieverOptions(config=base, dense=args.dense)),
           ("file-bm25", "reference", RetrieverOptions(config=configuration("file-bm25", base),
                                                       dense=False)),
           ("windows-bm25", f"command+jsonl:{sys.executable} {WINDOWS} --serve {repo}",
            RetrieverOptions(timeout=600))]
    if args.semble_python:
        model = args.semble_model or str(args.out / "semble-placeholder-model")
        if args.semble_model is None:
            subprocess.run([args.semble_python, str(SEMBLE), "--make-placeholder", model],
                           check=True)
        trees = " ".join(f"{revision}={tree}" for revision, tree in checkouts.items())
        out.append(("semble", f"command+jsonl:{args.semble_python} {SEMBLE} {model} {trees}",
                    RetrieverOptions(timeout=600)))
    else:
        print("semble: skipped: no --semble-python. semble 0.7 embeds every chunk with a "
              "model2vec model when it builds an index and loads minishlab/potion-code-16M-v2 "
              "from the Hugging Face hub, which this machine cannot reach; with "
              "--semble-python (an environment with semble) a local placeholder model is "
              "used, which cannot change its alpha=0 (BM25 + rerank) ranking",
              file=sys.stderr)
    if args.code_index_mcp:
        settings = McpSettings(
            tool="search_code_advanced", repo=repo,
            arguments='{"pattern": "{terms_regex}", "regex": true, "case_sensitive": false, '
                      '"max_results": "{k}"}')
        command = (f"mcp:stdio:{args.code_index_mcp} --project-path {{checkout}} "
                   f"--indexer-path {args.out / 'code-index-mcp'}")
        out.append(("mcp:code-index-mcp", command,
                    RetrieverOptions(timeout=120, mcp=settings)))
    return out


def run_one(name: str, spec: str, options: RetrieverOptions, case_files: list[Path],
            indexes: IndexSet, out: Path) -> tuple[list[CaseResult], list[float], list[Path]]:
    retriever = ResolvingRetriever(make_retriever(spec, options), AttemptResolver(indexes))
    folder = out / name.replace(":", "-")
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[CaseResult] = []
    walls: list[float] = []
    results_files = []
    try:
        for path in case_files:
            attempts = folder / f"{path.stem}.attempts.jsonl"
            attempts.unlink(missing_ok=True)
            summary = run_cases(load_cases(str(path)).cases, retriever, indexes, attempts,
                                label=name, run_id=f"peers-{name}-{path.stem}",
                                require_index=False,
                                default_k=load_config(None).candidates.default_k)
            if summary.errors:
                print(f"{name}/{path.stem}: {summary.errors} error attempt(s)", file=sys.stderr)
            for number, line in enumerate(attempts.read_bytes().splitlines(), start=1):
                attempt = decode_attempt(line, path=str(attempts), line_number=number)
                wall = (attempt.timing_ms or {}).get("wall")
                if wall is not None:
                    walls.append(wall)
            result = evaluate_files(str(path), str(attempts))
            target = folder / f"{path.stem}.results.json"
            write_results(result, str(target))
            results_files.append(target)
            rows.extend(result.cases)
            print(f"{name}/{path.stem}: {summary.written} cases in {summary.seconds:.1f}s",
                  file=sys.stderr)
    finally:
        close_retriever(retriever)
    return rows, walls, results_files


def merge_cases(paths: list[Path], target: Path) -> Path:
    """One cases file holding every case of ``paths`` (each with its own repository and
    revision), so each retriever has one results file for ``codegold compare``."""
    import msgspec
    import yaml

    cases = []
    for path in paths:
        for case in load_cases(str(path)).cases:
            data = msgspec.to_builtins(case)
            data.pop("line", None)  # where it was read, not a field
            for empty in ("context", "supersedes", "tags"):
                if not data.get(empty):
                    data.pop(empty, None)
            cases.append(data)
    target.write_text(yaml.safe_dump({"format": 1, "cases": cases}, sort_keys=False))
    return target


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def table(runs: dict[str, tuple[list[CaseResult], list[float], list[Path]]],
          case_class: dict[str, str], case_repo: dict[str, str]) -> str:
    classes = [c for c in CLASSES if c in case_class.values()]
    classes += sorted(set(case_class.values()) - set(classes))
    repos = sorted(set(case_repo.values())) if len(set(case_repo.values())) > 1 else []
    head = ["retriever", "pass % (n)", "hit %", "MRR", "forbidden %", "invalid",
            "p50 ms", "p95 ms", *(f"{c} pass" for c in classes),
            *(f"{r.split('/')[-1]} pass" for r in repos)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, (rows, walls, _) in runs.items():
        every = aggregate(rows)
        cells = [name, f"{_pct(every.pass_rate)} ({every.pass_}/{every.scored})",
                 _pct(every.hit_rate), "-" if every.mrr is None else f"{every.mrr:.3f}",
                 _pct(every.forbidden_rate), str(every.invalid),
                 f"{np.percentile(walls, 50):.1f}" if walls else "-",
                 f"{np.percentile(walls, 95):.1f}" if walls else "-"]
        for wanted in classes:
            part = aggregate([r for r in rows if case_class.get(r.case_id) == wanted])
            cells.append(f"{part.pass_}/{part.scored}")
        for repo in repos:
            part = aggregate([r for r in rows if case_repo.get(r.case_id) == repo])
            cells.append(f"{part.pass_}/{part.scored}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=("acme", "real"), required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repos-dir", type=Path, default=None)
    parser.add_argument("--indexes", type=Path, default=None)
    parser.add_argument("--demo", type=Path, default=ROOT / "demo-out")
    parser.add_argument("--cases", default=None, help="comma-separated case files (real suite)")
    parser.add_argument("--code-index-mcp", default=None, help="the code-index-mcp executable")
    parser.add_argument("--semble-python", default=None,
                        help="the Python of an environment with semble 0.7")
    parser.add_argument("--semble-model", default=None,
                        help="a local model2vec model directory (default: a placeholder)")
    parser.add_argument("--dense", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.suite == "acme":
        case_files = [ROOT / "examples" / "acme-shop" / "cases.yaml"]
        repo, index_root = str(args.demo / "repo"), args.demo / "indexes"
    else:
        if args.repos_dir is None or args.indexes is None:
            parser.error("--suite real needs --repos-dir and --indexes")
        parts = ([Path(p) for p in args.cases.split(",")] if args.cases else
                 sorted((ROOT / "benchmarks" / "realcases").glob("*.yaml"))
                 + sorted((ROOT / "benchmarks" / "peercases").glob("*.yaml")))
        case_files = [merge_cases(parts, args.out / "cases.yaml")]
        repo, index_root = str(args.repos_dir), args.indexes
    indexes = IndexSet.from_path(index_root)
    case_class = {c.id: c.query_class or "-" for p in case_files
                  for c in load_cases(str(p)).cases}
    case_repo = {c.id: c.repository or "-" for p in case_files
                 for c in load_cases(str(p)).cases}
    checkouts = None
    trees: dict[str, Path] = {}
    if args.semble_python:  # semble reads files on disk: work trees from git objects
        from codegold.adapters.mcp.checkout import Checkouts

        checkouts = Checkouts(repo)
        trees = {c.revision: checkouts.path_for(c.revision, c.repository)
                 for p in case_files for c in load_cases(str(p)).cases}
    try:
        runs = {name: run_one(name, spec, options, case_files, indexes, args.out)
                for name, spec, options in specs(args, repo, trees)}
    finally:
        if checkouts is not None:
            checkouts.close()
    print(f"\n{len(case_class)} cases, {len(case_files)} case file(s), every retriever "
          "resolved against the pinned indexes\n")
    print(table(runs, case_class, case_repo))
    import shutil

    named = []
    for name, (_, _, files) in runs.items():
        short = name.replace("mcp:", "mcp-") + ".json"
        shutil.copyfile(files[0], args.out / short)
        named.append(short)
    command = [str(Path(sys.executable).parent / "codegold"), "compare", *named,
               "--baseline", "reference.json", "--md", "compare.md"]
    subprocess.run(command, cwd=args.out, capture_output=True, text=True, check=True)
    report = (args.out / "compare.md").read_text(encoding="utf-8")
    counts = next((line for line in report.splitlines() if "significant difference" in line), "")
    overall = report.split("### Against the baseline", 1)[-1].split("Slices with", 1)[0]
    print(f"\n`codegold compare {' '.join(named)} --baseline reference.json` "
          f"(whole report: {args.out / 'compare.md'}): {counts}\n")
    print("Against the baseline" + overall.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
