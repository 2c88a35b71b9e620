"""What a revision costs after another is indexed, against a scratch build, side by side.

Two measurements, each `codegold index` in its own process (interpreter start, imports,
build and lexical caches: what a user waits for), medians of ``--rounds``:

1. **Changed files.** A generated repository of ``--files`` Python modules (fixed seed)
   is indexed once with a chunk store; then revisions that change 1, 10, 100 and 1,000
   of its files (``--changes``) are each indexed after it (a fresh copy of that store
   every round, so each round starts from the same state) and from scratch (no store).
   The same single change is also measured on a repository of twice the files: the cost
   of a revision should follow its changed files, not the repository.
2. **Histories.** ``--history REPO:COUNT`` (repeatable; default requests:50 and
   pytest:200, the local mirrors) takes the COUNT most recent first-parent commits and
   indexes them in one call (``--revisions A,B,...``: each revision's caches derived
   from the one before); beside it, ``--scratch`` of those revisions spread evenly,
   each built from scratch in its own process, whose median stands for one scratch build.

Wall time and CPU time (the process, its workers and git) are printed; on a shared
machine CPU time is the steadier figure. Timings are never asserted: read the ratios.

    python benchmarks/revisions_cost.py
    python benchmarks/revisions_cost.py --rounds 1 --changes 1,10 --history /src/requests:20
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HISTORIES = ["/work/.mirror/psf+requests/repo:50", "/work/.mirror/pytest-dev+pytest/repo:200"]
_WORDS = [f"{a}{b}" for a in ("get", "set", "load", "parse", "make", "find", "send", "read",
                              "write", "check", "build", "merge", "split", "join", "walk")
          for b in ("", "_user", "_session", "_token", "_config", "_path", "_node", "_rows",
                    "_cache", "_index", "_request", "_reply", "_frame", "_chunk", "_item")]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def codegold(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``codegold`` process."""
    cpu = _children_cpu()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "codegold.cli", *args, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, _children_cpu() - cpu


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid",
           "GIT_AUTHOR_DATE": "2025-01-01T00:00:00", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def module(rng: random.Random, number: int) -> str:
    """A Python module of a few classes and functions over a shared vocabulary, with
    some words of its own (so edits add and drop terms)."""
    parts = [f'"""Module {number}: {rng.choice(_WORDS)} and {rng.choice(_WORDS)}."""\n']
    for block in range(rng.randint(2, 5)):
        own = f"w{number}_{rng.randint(0, 10 ** 6)}"
        name = f"{rng.choice(_WORDS)}_{block}"
        parts.append(f"class {name.title().replace('_', '')}:\n"
                     f"    def {rng.choice(_WORDS)}(self, {rng.choice(_WORDS)}):\n"
                     f"        {own} = self.{rng.choice(_WORDS)}({rng.choice(_WORDS)})\n"
                     f"        return {own} or {rng.choice(_WORDS)}\n\n\n"
                     f"def {name}({rng.choice(_WORDS)}, {rng.choice(_WORDS)}=None):\n"
                     f"    # {rng.choice(_WORDS)} then {rng.choice(_WORDS)}\n"
                     f"    return [{rng.choice(_WORDS)}(x) for x in {rng.choice(_WORDS)}]\n")
    return "\n\n".join(parts)


def generated_repo(folder: Path, files: int, changes: list[int]) -> dict[int, str]:
    """A repository of ``files`` modules: the base commit (key 0) and, for each count of
    ``changes``, a commit on its own branch from the base that rewrites that many."""
    rng = random.Random(files)
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    for number in range(files):
        path = folder / f"pkg{number % 20}" / f"mod{number}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(module(rng, number))
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "base")
    commits = {0: git(folder, "rev-parse", "HEAD")}
    for count in changes:
        git(folder, "checkout", "-q", "-B", f"change{count}", commits[0])
        for number in random.Random(count).sample(range(files), min(count, files)):
            (folder / f"pkg{number % 20}" / f"mod{number}.py").write_text(module(rng, number))
        git(folder, "commit", "-qam", f"{count} changed")
        commits[count] = git(folder, "rev-parse", "HEAD")
    git(folder, "checkout", "-q", "main")
    return commits


def changed_files(root: Path, files: int, changes: list[int], rounds: int
                  ) -> list[tuple[str, ...]]:
    repo = root / f"gen{files}"
    commits = generated_repo(repo, files, changes)
    base, store = root / f"base{files}", root / f"store{files}"
    codegold("index", str(repo), "--revision", commits[0], "-o", str(base), "--store", str(store))
    rows = []
    for count in changes:
        after: list[tuple[float, float]] = []
        scratch: list[tuple[float, float]] = []
        for n in range(rounds):
            copy = root / f"store{files}-{count}-{n}"
            shutil.copytree(store, copy)
            after.append(codegold("index", str(repo), "--revision", commits[count], "-o",
                                  str(root / f"after{files}-{count}-{n}"), "--store", str(copy)))
            scratch.append(codegold("index", str(repo), "--revision", commits[count], "-o",
                                    str(root / f"scratch{files}-{count}-{n}")))
            shutil.rmtree(copy)
        rows.append(_row(f"{files} files, {count} changed", after, scratch))
    return rows


def history(root: Path, spec: str, scratch_count: int, rounds: int) -> tuple[str, ...]:
    repo, _, count_text = spec.rpartition(":")
    count = int(count_text)
    commits = git(Path(repo), "rev-list", "--reverse", "--first-parent", "-n", str(count),
                  "HEAD").split()
    many: list[tuple[float, float]] = []
    for n in range(rounds):
        many.append(codegold("index", repo, "--revisions", ",".join(commits), "-o",
                             str(root / f"history-{Path(repo).parent.name}-{n}")))
    picked = commits[::max(1, len(commits) // scratch_count)][:scratch_count]
    scratch = [codegold("index", repo, "--revision", commit, "-o",
                        str(root / f"hs-{Path(repo).parent.name}-{n}"))
               for n, commit in enumerate(picked)]
    per = [(wall / len(commits), cpu / len(commits)) for wall, cpu in many]
    return _row(f"{Path(repo).parent.name}: {len(commits)} revisions in one call, per "
                f"revision (scratch: median of {len(picked)})", per, scratch)


def _row(label: str, runs: list[tuple[float, float]], scratch: list[tuple[float, float]]
         ) -> tuple[str, ...]:
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    s_wall = statistics.median(w for w, _ in scratch)
    s_cpu = statistics.median(c for _, c in scratch)
    return (label, f"{wall:.3f}", f"{s_wall:.3f}", f"{wall / s_wall:.2f}x", f"{cpu:.3f}",
            f"{s_cpu:.3f}", f"{cpu / s_cpu:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--changes", default="1,10,100,1000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--history", action="append", default=None)
    parser.add_argument("--scratch", type=int, default=5,
                        help="Scratch builds sampled along each history.")
    parser.add_argument("--skip-changes", action="store_true")
    ns = parser.parse_args()
    changes = [int(part) for part in ns.changes.split(",")]
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="cg-revcost-") as scratch_dir:
        root = Path(scratch_dir)
        if not ns.skip_changes:
            rows += changed_files(root, ns.files, changes, ns.rounds)
            rows += changed_files(root, 2 * ns.files, changes[:1], ns.rounds)
        for spec in ns.history if ns.history is not None else HISTORIES:
            rows.append(history(root, spec, ns.scratch, ns.rounds))
    print(f"medians of {ns.rounds} round(s); each figure one `codegold index` process\n")
    print("| revision | wall s | scratch wall s | ratio | CPU s | scratch CPU s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
