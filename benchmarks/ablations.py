"""Judge retriever settings side by side: the mined corpus first, the hand-written cases beside it.

Each setting is a retriever config override (YAML, as ``codegold run --config`` reads);
``base`` is the shipped defaults. Every setting runs on the same indexes through
``benchmarks/mined_corpus.py`` (cases nobody here wrote: the criterion) and, with
``--realcases-cache``, ``benchmarks/realcases.py`` (the hand-written cases: one more
slice). One row per setting: cases passing at cutoff 5, the change against ``base``,
the mean of per-repository pass rates (nothing is fitted per repository, so this is the
leave-one-repository-out figure), cases gained and lost, descriptive questions, and the
language that lost most. The rule a change is held to: it raises the corpus mean and no
language loses more than two points.

Each setting's per-case outcomes are kept in ``--out`` (``mined-NAME.json``,
``realcases-NAME.json``); a rerun only runs settings whose files are missing.

Usage::

    python benchmarks/ablations.py --cache-dir /work/corpus2 --repos-dir /work/clones \\
        --realcases-cache /work/rc --out /tmp/ablate \\
        no-decay=ablate/no-decay.yaml twins=ablate/twins.yaml
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path

from codegold.model.cases import load_cases

HERE = Path(__file__).resolve().parent


def _run(script: str, args: list[str], config: Path | None, out: Path) -> None:
    if out.exists():
        return
    partial = out.with_suffix(".partial")
    command = [sys.executable, str(HERE / script), *args, "--configs", "reference",
               "--json", str(partial), *(["--config", str(config)] if config else [])]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    partial.replace(out)


def _meta(files: list[Path]) -> dict[str, tuple[str, str, str]]:
    """Case id -> (repository, query class, language)."""
    out: dict[str, tuple[str, str, str]] = {}
    for path in files:
        for case in load_cases(str(path)).cases:
            out[case.id] = (case.repository or path.stem, case.query_class,
                            case.tags.get("language", "?"))
    return out


def _outcomes(path: Path, meta: dict[str, tuple[str, str, str]]) -> dict[str, bool]:
    cases = json.loads(path.read_text())["reference"]["cases"]
    return {case: status == "pass" for case, status in cases.items() if case in meta}


def _rates(outcomes: dict[str, bool], meta: dict[str, tuple[str, str, str]], field: int
           ) -> dict[str, float]:
    groups: dict[str, list[bool]] = collections.defaultdict(list)
    for case, passed in outcomes.items():
        groups[meta[case][field]].append(passed)
    return {key: 100 * sum(v) / len(v) for key, v in groups.items()}


def table(title: str, runs: dict[str, dict[str, bool]], meta: dict[str, tuple[str, str, str]]
          ) -> str:
    base = runs["base"]
    base_repos, base_langs = _rates(base, meta, 0), _rates(base, meta, 2)
    lines = [f"### {title}", "",
             "| setting | pass | % | Δ | repository mean | gained / lost | descriptive % "
             "| worst language (Δ points) |", "|---|---|---|---|---|---|---|---|"]
    for name, outcomes in runs.items():
        passed = sum(outcomes.values())
        repos = _rates(outcomes, meta, 0)
        langs = _rates(outcomes, meta, 2)
        classes = _rates(outcomes, meta, 1)
        gained = sum(1 for c, p in outcomes.items() if p and not base.get(c))
        lost = sum(1 for c, p in outcomes.items() if not p and base.get(c))
        worst = min(((langs[k] - base_langs.get(k, langs[k]), k) for k in langs), default=(0, "-"))
        mean = sum(repos.values()) / len(repos)
        delta = 100 * (passed - sum(base.values())) / len(outcomes)
        lines.append(f"| {name} | {passed}/{len(outcomes)} | {100 * passed / len(outcomes):.1f} "
                     f"| {delta:+.1f} | {mean:.1f} ({mean - sum(base_repos.values()) / len(base_repos):+.1f}) "
                     f"| +{gained} / -{lost} | {classes.get('descriptive', 0):.1f} "
                     f"| {worst[1]} ({worst[0]:+.1f}) |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", type=Path, required=True,
                        help="the mined corpus (benchmarks/mined_corpus.py --cache-dir), built")
    parser.add_argument("--repos-dir", type=Path, required=True, help="local clones (owner+name)")
    parser.add_argument("--realcases-cache", type=Path, default=None,
                        help="also run the hand-written cases (benchmarks/realcases.py --cache-dir)")
    parser.add_argument("--out", type=Path, required=True, help="per-setting outcomes go here")
    parser.add_argument("settings", nargs="*", metavar="NAME=CONFIG.yaml",
                        help="config overrides to judge against the defaults")
    args = parser.parse_args(argv)
    settings: dict[str, Path | None] = {"base": None}
    for item in args.settings:
        name, _, path = item.partition("=")
        if not path or name == "base":
            parser.error(f"expected NAME=CONFIG.yaml (NAME not 'base'), got {item!r}")
        settings[name] = Path(path)
    args.out.mkdir(parents=True, exist_ok=True)
    mined_files = sorted(p for p in (args.cache_dir / "cases").glob("*.yaml")
                         if not p.name.startswith("slice"))
    mined_meta = _meta(mined_files)
    mined: dict[str, dict[str, bool]] = {}
    hand: dict[str, dict[str, bool]] = {}
    hand_meta = _meta(sorted((HERE / "realcases").glob("*.yaml")))
    for name, config in settings.items():
        print(f"running {name}", file=sys.stderr, flush=True)
        out = args.out / f"mined-{name}.json"
        _run("mined_corpus.py", ["--cache-dir", str(args.cache_dir), "--skip-build",
                                 "--indexed-only", "--files",
                                 ",".join(p.name for p in mined_files)], config, out)
        mined[name] = _outcomes(out, mined_meta)
        if args.realcases_cache is not None:
            out = args.out / f"realcases-{name}.json"
            _run("realcases.py", ["--repos-dir", str(args.repos_dir), "--cache-dir",
                                  str(args.realcases_cache), "--jobs", "1"], config, out)
            hand[name] = _outcomes(out, hand_meta)
    print(table("Mined corpus (the criterion)", mined, mined_meta))
    if hand:
        print()
        print(table("Hand-written cases (one more slice)", hand, hand_meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
