"""Fast by default: every figure of "what the defaults cost" side by side, in one run.

Rows (medians of ``--rounds`` interleaved rounds unless noted; each command is a fresh
``codegold`` process, as a user or CI job runs it):

1. ``run``: the first ``--cases`` hand-written pytest cases (``realcases/pytest.yaml``,
   tag 8.3.4) with the defaults, with ``--no-dense`` (lexical-only anchor) and with
   ``--dense`` (the former default: lazy dense, a cold vector store each round;
   ``--dense-rounds``), with the passes of each.
2. first ``search`` on a fresh index as ``codegold index`` leaves it (caches built at index
   time), against a later search, and against a first search with ``lexical/`` removed
   (what a fresh index cost before caches were built at index time).
3. re-index of the unchanged revision into the same ``-o``: whether ``lexical/`` and the
   vector store ``dense/store/`` survive, and the next search.
4. second revision with the chunk store (``--base`` then ``--next``, default pytest 8.3.0
   then 8.3.1) against ``--next`` from scratch: the build alone (``build_index``, in this
   process) and ``codegold index`` with its caches.
5. one build (``build_index``, ``--jobs`` workers) against the tree-sitter parse-only floor
   (``index_throughput.parse_only``).
6. ``codegold eval`` of ``--eval-cases`` generated cases × 50 chunks against ranx end to
   end and against merely decoding the attempts file (``eval_throughput.py``'s commands;
   ranx from the ``bench`` extra, the row says so when it is missing; 0 skips the row).
7. a retriever behind ``command:`` (a process per case) and ``command+jsonl:`` (one
   process) against the same retriever behind HTTP, on the same cases
   (``adapters_latency.py``'s measure): steady mean per answer.

Timings are never asserted; read the ratios. ``REPO`` is a local clone, bare is fine.

    python benchmarks/defaults.py                      # pytest mirror, 13 cases, 3 rounds
    python benchmarks/defaults.py --repo DIR --rounds 5 --cases 42
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from adapters_latency import HTTP, adapter_figures
from bytecode import compile_package
from eval_throughput import eval_commands, generate, time_rounds
from index_throughput import parse_only

from codegold.index import build_index
from codegold.index.chunkstore import ChunkStore
from codegold.model import load_cases

HERE = Path(__file__).resolve().parent
DEFAULT_REPO = "/work/.mirror/pytest-dev+pytest/repo"
CASES = HERE / "realcases" / "pytest.yaml"
QUERY = "how does pytest decide the order fixtures are torn down"


def codegold(*args: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall seconds of one ``codegold`` process, and its stderr."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "codegold.cli", *args], check=True,
                          capture_output=True, text=True, env=env)
    return time.perf_counter() - started, done.stderr


def timed(fn: Callable[[], object], cpu: list[float] | None = None) -> float:
    """Wall seconds of ``fn()``; its CPU seconds (this process and the children it waited
    for: git, chunking workers) appended to ``cpu``: on a shared machine the figure that
    does not depend on the neighbours."""
    own, children = time.process_time(), _children_cpu()
    started = time.perf_counter()
    fn()
    wall = time.perf_counter() - started
    if cpu is not None:
        cpu.append(time.process_time() - own + _children_cpu() - children)
    return wall


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def print_table(repo: str, rounds: int, rows: list[tuple[str, ...]]) -> None:
    """The figures as a Markdown table: figure, measured, ratio, detail."""
    print(f"repository {repo}; medians of {rounds} round(s)\n")
    print("| figure | measured | ratio | detail |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def subset(path: Path, count: int, out: Path) -> int:
    data = yaml.safe_load(path.read_text())
    data["cases"] = data["cases"][:count]
    out.write_text(yaml.safe_dump(data, sort_keys=False))
    return len(data["cases"])


def passes(cases: Path, attempts: Path, results: Path) -> int:
    codegold("eval", str(cases), str(attempts), "-o", str(results), "--quiet")
    return int(json.loads(results.read_text())["summary"]["pass"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--cases", type=int, default=13)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dense-rounds", type=int, default=1)
    parser.add_argument("--base", default="8.3.0")
    parser.add_argument("--next", dest="next_rev", default="8.3.1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--eval-cases", type=int, default=20_000)
    ns = parser.parse_args(argv)
    print(compile_package())
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="cg-defaults-") as scratch:
        root = Path(scratch)
        cases = root / "cases.yaml"
        count = subset(CASES, ns.cases, cases)
        revision = yaml.safe_load(CASES.read_text())["defaults"]["revision"]

        # 1. run: defaults vs lexical-only vs the former default (lazy dense, cold store)
        index = root / "idx"
        codegold("index", ns.repo, "--revision", revision, "-o", str(index), "--quiet")
        runs: dict[str, list[float]] = {"default": [], "no-dense": [], "dense": []}
        passed: dict[str, int] = {}
        for n in range(max(ns.rounds, ns.dense_rounds)):
            for mode, flags in (("default", []), ("no-dense", ["--no-dense"]),
                                ("dense", ["--dense"])):
                if n >= (ns.dense_rounds if mode == "dense" else ns.rounds):
                    continue
                target = index
                if mode == "dense":  # a cold vector store each round
                    target = root / f"dense-{n}"
                    shutil.copytree(index, target, ignore=shutil.ignore_patterns("dense"))
                attempts = root / f"{mode}-{n}.jsonl"
                wall, _ = codegold("run", str(cases), "--index", str(target), "-o",
                                   str(attempts), "--quiet", *flags)
                runs[mode].append(wall)
                passed[mode] = passes(cases, attempts, root / f"{mode}-{n}.json")
        anchor = med(runs["no-dense"])
        for mode, label in (("no-dense", "run --no-dense (anchor)"), ("default", "run, defaults"),
                            ("dense", "run --dense (the former default), cold store")):
            rounds = ns.dense_rounds if mode == "dense" else ns.rounds
            if not rounds:
                continue
            rows.append((f"{label}, {count} cases", f"{med(runs[mode]):.2f} s ({rounds} rounds)",
                         f"{med(runs[mode]) / anchor:.2f}x", f"{passed[mode]}/{count} pass"))

        # 2. first search on a fresh index, and 3. re-index into the same -o
        first: list[float] = []
        later: list[float] = []
        uncached: list[float] = []
        reindex: list[float] = []
        after: list[float] = []
        kept = True
        for n in range(ns.rounds):
            fresh = root / f"fresh-{n}"
            codegold("index", ns.repo, "--revision", revision, "-o", str(fresh), "--quiet")
            first.append(codegold("search", str(fresh), QUERY)[0])
            later.append(codegold("search", str(fresh), QUERY)[0])
            bare = root / f"bare-{n}"
            shutil.copytree(fresh, bare, ignore=shutil.ignore_patterns("lexical"))
            uncached.append(codegold("search", str(bare), QUERY)[0])
            (fresh / "dense" / "store").mkdir(parents=True, exist_ok=True)
            (fresh / "dense" / "store" / "marker").write_text("kept")
            names = listing(fresh / "lexical")
            reindex.append(codegold("index", ns.repo, "--revision", revision, "-o",
                                    str(fresh), "--quiet")[0])
            kept = kept and bool(names) and names == listing(fresh / "lexical") \
                and (fresh / "dense" / "store" / "marker").is_file()
            after.append(codegold("search", str(fresh), QUERY)[0])
        rows.append(("first search, fresh index (caches from index time)",
                     f"{med(first):.2f} s", f"{med(first) / med(later):.2f}x later",
                     f"later {med(later):.2f} s"))
        rows.append(("first search, lexical/ removed (before: built on first query)",
                     f"{med(uncached):.2f} s", f"{med(uncached) / med(later):.2f}x later", ""))
        rows.append(("re-index unchanged revision, same -o", f"{med(reindex):.2f} s",
                     f"caches kept: {kept}", f"next search {med(after):.2f} s"))

        # 4. second revision with the chunk store vs from scratch
        scratch_build: list[float] = []
        store_build: list[float] = []
        scratch_cpu: list[float] = []
        store_cpu: list[float] = []
        scratch_cli: list[float] = []
        store_cli: list[float] = []
        for n in range(ns.rounds):
            # workers as `codegold index` picks them (none for the few changed files)
            scratch_build.append(timed(lambda n=n: build_index(
                ns.repo, ns.next_rev, root / f"s-{n}"), scratch_cpu))
            store = ChunkStore.open(root / f"store-{n}")
            build_index(ns.repo, ns.base, root / f"b-{n}", store=store)
            store_build.append(timed(lambda n=n, store=store: build_index(
                ns.repo, ns.next_rev, root / f"n-{n}", store=store), store_cpu))
            scratch_cli.append(codegold("index", ns.repo, "--revision", ns.next_rev, "-o",
                                        str(root / f"sc-{n}"), "--quiet")[0])
            codegold("index", ns.repo, "--revision", ns.base, "-o", str(root / f"bc-{n}"),
                     "--store", str(root / f"cstore-{n}"), "--quiet")
            store_cli.append(codegold("index", ns.repo, "--revision", ns.next_rev, "-o",
                                      str(root / f"nc-{n}"), "--store",
                                      str(root / f"cstore-{n}"), "--quiet")[0])
        rows.append((f"{ns.next_rev} after {ns.base}, chunk store, build only",
                     f"{med(store_build):.2f} s",
                     f"{med(store_build) / med(scratch_build):.2f}x scratch",
                     f"scratch {med(scratch_build):.2f} s; CPU {med(store_cpu):.2f} / "
                     f"{med(scratch_cpu):.2f} s = {med(store_cpu) / med(scratch_cpu):.2f}x"))
        rows.append((f"{ns.next_rev} after {ns.base}, chunk store, `codegold index` with caches",
                     f"{med(store_cli):.2f} s", f"{med(store_cli) / med(scratch_cli):.2f}x scratch",
                     f"scratch {med(scratch_cli):.2f} s"))

        # 5. one build vs the parse-only floor
        floor: list[float] = []
        built: list[float] = []
        floor_cpu: list[float] = []
        built_cpu: list[float] = []
        for n in range(ns.rounds):
            floor.append(timed(lambda: parse_only(Path(ns.repo), ns.next_rev), floor_cpu))
            built.append(timed(lambda n=n: build_index(ns.repo, ns.next_rev, root / f"f-{n}",
                                                       jobs=ns.jobs), built_cpu))
        rows.append((f"one build, {ns.jobs} workers, vs parse-only floor", f"{med(built):.2f} s",
                     f"{med(built) / med(floor):.2f}x floor",
                     f"floor {med(floor):.2f} s; CPU {med(built_cpu):.2f} / "
                     f"{med(floor_cpu):.2f} s = {med(built_cpu) / med(floor_cpu):.2f}x"))

        # 6. eval vs ranx vs the decode floor
        if ns.eval_cases:
            rows.append(eval_row(root / "eval", ns.eval_cases, ns.rounds))
        # 7. the command retriever, one-shot and persistent, vs HTTP
        rows.append(adapters_row(ns.repo, load_cases(str(cases)).cases, ns.rounds,
                                 root / "adapters"))

    print_table(ns.repo, ns.rounds, rows)
    return 0


def eval_row(work: Path, count: int, rounds: int) -> tuple[str, str, str, str]:
    work.mkdir(parents=True)
    generate(work, count, 50)
    commands, envs = eval_commands(work)
    have_ranx = importlib.util.find_spec("ranx") is not None
    if not have_ranx:
        del commands["ranx"]
    runs, _ = time_rounds(commands, envs, rounds)
    wall = {name: med([w for w, _, _ in values]) for name, values in runs.items()}
    vs_ranx = f"{wall['codegold eval'] / wall['ranx']:.2f}x ranx, " if have_ranx else ""
    ranx = f"ranx {wall['ranx']:.2f} s; " if have_ranx else "ranx not installed (bench extra); "
    return (f"eval, {count:,} cases x 50 chunks", f"{wall['codegold eval']:.2f} s",
            f"{vs_ranx}{wall['codegold eval'] / wall['decode floor']:.2f}x decode floor",
            f"{ranx}floor {wall['decode floor']:.2f} s; without redaction "
            f"{wall['  no redaction']:.2f} s")


def adapters_row(repo: str, cases: list[Any], rounds: int, out: Path
                 ) -> tuple[str, str, str, str]:
    figures = adapter_figures(repo, cases, rounds, out)
    http = figures[HTTP]["steady"]
    once = figures["command (a process per case)"]["steady"]
    served = figures["command+jsonl (one process)"]["steady"]
    return (f"command retriever, {len(cases)} cases, steady ms per answer",
            f"{served:.1f} ms (command+jsonl)", f"{served / http:.2f}x HTTP",
            f"HTTP {http:.1f} ms; one process per case {once:.1f} ms = {once / http:.0f}x")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
