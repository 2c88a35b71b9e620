"""Rows 4 and 5 of ``defaults.py`` alone, side by side: a second revision with the chunk
store against the same revision from scratch (``build_index`` and ``codegold index``), and
one build against the tree-sitter parse-only floor.

    python benchmarks/reindex_rows.py [--repo DIR] [--rounds 3] [--skip-row5] [--json]

Medians of interleaved rounds; timings are never asserted, read the ratios.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bytecode import compile_package
from defaults import DEFAULT_REPO, codegold, med, print_table, timed
from index_throughput import parse_only

from codegold.index import build_index
from codegold.index.chunkstore import ChunkStore


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base", default="8.3.0")
    parser.add_argument("--next", dest="next_rev", default="8.3.1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-row4", action="store_true")
    parser.add_argument("--skip-row5", action="store_true")
    parser.add_argument("--json", action="store_true",
                        help="Print every round's wall and CPU seconds as JSON instead.")
    ns = parser.parse_args(argv)
    print(compile_package())
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="cg-reindex-") as scratch:
        root = Path(scratch)
        keys = ("scratch_build", "store_build", "scratch_cli", "store_cli", "floor", "built")
        times: dict[str, list[float]] = {k: [] for k in keys}
        cpu: dict[str, list[float]] = {k: [] for k in keys}

        def cli(key: str, *args: str) -> None:
            times[key].append(timed(lambda: codegold(*args), cpu[key]))

        for n in range(ns.rounds):
            if not ns.skip_row4:
                times["scratch_build"].append(timed(lambda n=n: build_index(
                    ns.repo, ns.next_rev, root / f"s-{n}"), cpu["scratch_build"]))
                store = ChunkStore.open(root / f"store-{n}")
                build_index(ns.repo, ns.base, root / f"b-{n}", store=store)
                times["store_build"].append(timed(lambda n=n, store=store: build_index(
                    ns.repo, ns.next_rev, root / f"n-{n}", store=store), cpu["store_build"]))
                cli("scratch_cli", "index", ns.repo, "--revision", ns.next_rev, "-o",
                    str(root / f"sc-{n}"), "--quiet")
                codegold("index", ns.repo, "--revision", ns.base, "-o", str(root / f"bc-{n}"),
                         "--store", str(root / f"cstore-{n}"), "--quiet")
                cli("store_cli", "index", ns.repo, "--revision", ns.next_rev, "-o",
                    str(root / f"nc-{n}"), "--store", str(root / f"cstore-{n}"), "--quiet")
            if not ns.skip_row5:
                times["floor"].append(timed(lambda: parse_only(Path(ns.repo), ns.next_rev),
                                            cpu["floor"]))
                times["built"].append(timed(lambda n=n: build_index(
                    ns.repo, ns.next_rev, root / f"f-{n}", jobs=ns.jobs), cpu["built"]))
        if ns.json:
            print(json.dumps({"wall": times, "cpu": cpu}))
            return 0
        m = {key: med(values) for key, values in times.items()}
        c = {key: med(values) for key, values in cpu.items()}

        def cpus(key: str, anchor: str) -> str:
            return f"CPU {c[key]:.2f} / {c[anchor]:.2f} s = {c[key] / c[anchor]:.2f}x"

        if not ns.skip_row4:
            rows.append((f"{ns.next_rev} after {ns.base}, chunk store, build only",
                         f"{m['store_build']:.2f} s",
                         f"{m['store_build'] / m['scratch_build']:.2f}x scratch",
                         f"scratch {m['scratch_build']:.2f} s; "
                         + cpus("store_build", "scratch_build")))
            rows.append((f"{ns.next_rev} after {ns.base}, chunk store, `codegold index`",
                         f"{m['store_cli']:.2f} s",
                         f"{m['store_cli'] / m['scratch_cli']:.2f}x scratch",
                         f"scratch {m['scratch_cli']:.2f} s; " + cpus("store_cli", "scratch_cli")))
        if not ns.skip_row5:
            rows.append((f"one build, {ns.jobs} workers, vs parse-only floor",
                         f"{m['built']:.2f} s", f"{m['built'] / m['floor']:.2f}x floor",
                         f"floor {m['floor']:.2f} s; " + cpus("built", "floor")))
    print_table(ns.repo, ns.rounds, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
