"""Index many release tags of one repository: shared chunk store vs each from scratch.

Takes the N most recent release tags (``X.Y.Z``, no ``dev``/``rc``) of REPO (default:
pytest, a local bare clone), oldest first, and builds one index per tag twice, each in a
fresh temporary folder and its own process:

- ``store``:   ``codegold index REPO --revisions TAGS -o DIR`` (one shared chunk store)
- ``scratch``: ``codegold index REPO --revisions TAGS -o DIR --no-store``

It repeats both ``--repeat`` times and prints a table of median wall time, median CPU
time (the build process, its chunking workers and git: the figure to trust on a shared
machine, where wall time depends on the neighbours), the disk each leaves (indexes, and
the store on its own), the ratios, and checks that both give every tag the same build id.

    python benchmarks/index_many.py                           # 20 tags of pytest
    python benchmarks/index_many.py --tags 5 --repeat 1       # quicker
    python benchmarks/index_many.py --repo ~/src/shop --tags 10
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_REPO = "/work/.mirror/pytest-dev+pytest/repo"
RELEASE = re.compile(r"^v?\d+\.\d+\.\d+$")


def release_tags(repo: str, count: int) -> list[str]:
    out = subprocess.run(["git", "-C", repo, "tag", "--sort=-creatordate"],
                         capture_output=True, text=True, check=True).stdout.split()
    tags = [tag for tag in out if RELEASE.match(tag)][:count]
    return list(reversed(tags))


def disk_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(repo: str, tags: list[str], out: Path, store: bool) -> tuple[float, float]:
    """Wall and CPU seconds of one ``codegold index --revisions`` run."""
    args = [sys.executable, "-m", "codegold.cli", "index", repo, "--revisions", ",".join(tags),
            "-o", str(out), "--quiet", *([] if store else ["--no-store"])]
    cpu = _children_cpu()
    started = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, _children_cpu() - cpu


def build_ids(out: Path) -> dict[str, str]:
    ids = {}
    for manifest in out.glob("*/manifest.json"):
        data = json.loads(manifest.read_text())
        ids[data["revision"]] = data["index_build_id"]
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    ns = parser.parse_args()
    tags = release_tags(ns.repo, ns.tags)
    print(f"{len(tags)} tags: {' '.join(tags)}")
    times: dict[str, list[float]] = {"store": [], "scratch": []}
    cpus: dict[str, list[float]] = {"store": [], "scratch": []}
    disk: dict[str, int] = {}
    store_disk = 0
    ids: dict[str, dict[str, str]] = {}
    for _ in range(ns.repeat):
        for mode in ("store", "scratch"):
            with tempfile.TemporaryDirectory(prefix=f"index-many-{mode}-") as tmp:
                out = Path(tmp) / "indexes"
                wall, cpu = build(ns.repo, tags, out, store=mode == "store")
                times[mode].append(wall)
                cpus[mode].append(cpu)
                disk[mode] = disk_bytes(out)
                ids[mode] = build_ids(out)
                if mode == "store":
                    store_disk = disk_bytes(out / ".chunkstore")
    same = ids["store"] == ids["scratch"] and len(ids["store"]) == len(tags)
    wall = {mode: statistics.median(values) for mode, values in times.items()}
    cpu = {mode: statistics.median(values) for mode, values in cpus.items()}
    print(f"{len(tags)} tags, medians of {ns.repeat} run(s) each\n")
    print("| build | wall s | CPU s | CPU s per tag | disk MB (indexes + store) | store MB |")
    print("|---|---|---|---|---|---|")
    for mode, label in (("scratch", "from scratch (--no-store)"),
                        ("store", "with the chunk store")):
        shared = store_disk if mode == "store" else 0
        print(f"| {label} | {wall[mode]:.1f} | {cpu[mode]:.1f} | {cpu[mode] / len(tags):.2f} "
              f"| {disk[mode] / 1e6:.1f} | {shared / 1e6:.1f} |")
    print(f"\nstore / scratch: wall {wall['store'] / wall['scratch']:.2f}, CPU "
          f"{cpu['store'] / cpu['scratch']:.2f}, disk {disk['store'] / disk['scratch']:.2f}; "
          f"same build ids: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
