"""Mined corpus: the reference retriever on cases nobody on the team wrote.

Each case is a commit from a public repository's history: the query is its message (an
engineer's own words, as ``codegold cases mine`` reads it: subject and first paragraph),
the revision its parent, and the gold the definitions the commit changed, read at the
parent (``codegold.curate.fromchanges.mine_history``). On top of ``cases mine``'s own
filters (merges, version bumps, formatting, documentation-only and test-only commits,
messages that neither describe a fix nor reference an issue), this script keeps a commit
only when

- its message carries a question: after issue references, trailers and conventional
  prefixes (``fix(core):``) are removed, at least ``MIN_WORDS`` words and ``MIN_CHARS``
  characters remain, and it is not one of the housekeeping phrasings in ``_CHORE``
  (dependency bumps, CI, lint, "fix tests", "fix typo", release notes);
- it changes at most ``--max-files`` files (3) and at most ``--max-definitions``
  definitions in non-test files (4): a commit that touches many places is no question
  with one answer.

At most ``--per-repo`` cases per repository are kept, chosen by a seeded hash of the
commit sha (``--seed``), so a rerun picks the same commits and a larger cap keeps the
smaller one's cases. Each case is tagged with its repository, its language and a query
class read from the message by the retriever's own query analysis
(:func:`query_class`): ``stack_trace`` (a trace frame), ``exact_identifier`` (it names a
changed definition), ``names_code`` (it names code, not the gold), ``descriptive``
(nothing code-shaped).

Slices printed beside it (each scored the same way, cutoff 5):

- ``swebench-dev``: the SWE-bench development instances (``--swebench``), for the
  repositories with a clone under ``--repos-dir`` (``codegold cases import swebench``);
  the shipped learnt ranker was trained on these, so they are not held out.
- ``realcases``: the hand-written cases in ``benchmarks/realcases/`` whose repository
  has a clone (``--realcases``): one more slice, never the criterion.

The reference retriever is fixed (nothing is fitted on this corpus), so its
leave-one-repository-out figures are its per-repository figures: the tables print each
repository, the mean of per-repository pass rates and the worst one beside the pooled
rate.

Every revision is indexed once into ``CACHE/indexes/<commit>`` with one shared chunk
store (``CACHE/indexes/.chunkstore``: a file chunked for any earlier revision is not
parsed again); the build's wall time, CPU time and disk are printed per repository.
Case files go to ``CACHE/cases/``, attempts and per-case results to
``CACHE/runs/<config>/<slice-file>.{attempts.jsonl,results.json}``.

Usage::

    nice -n 15 python benchmarks/mined_corpus.py --repos-dir /work/.mirror \\
        --cache-dir /work/corpus-cache --per-repo 20 --realcases \\
        --swebench /work/shared/data/swebench-dev/instances.jsonl
    # after a ranking change, the same cases and indexes, nothing mined or built:
    python benchmarks/mined_corpus.py --cache-dir /work/corpus-cache --skip-build \\
        --indexed-only --configs reference,lexical
    # dense on a few repositories' cases (slow on a CPU):
    python benchmarks/mined_corpus.py --cache-dir /work/corpus-cache --skip-build \\
        --indexed-only --files jd+tenacity.yaml --configs reference,reference+dense \\
        --json dense.json

Mining is cached per repository in ``CACHE/eligible/`` (every commit that passed the
filters), so another ``--per-repo`` or ``--seed`` samples again without reading history;
``--mine-only`` writes the case files and stops, ``--skip-mine`` indexes what they pin,
runs and scores.

Nothing here reaches the network: ``--repos-dir`` holds local clones (bare is fine)
named ``owner+name`` (optionally with ``repo/`` inside).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from realcases import CASES_DIR as REALCASES_DIR
from realcases import configuration, run_one
from swebench_localization import find_repo

from codegold.curate.fromchanges import import_swebench, mine_history, read_instances
from codegold.curate.stanza import case_file_text
from codegold.errors import CodeIndexError
from codegold.evaluate.aggregate import aggregate
from codegold.index.catalog import IndexSet
from codegold.index.many import build_many
from codegold.model import CaseResult, load_cases
from codegold.model.languages import BY_NAME, language_of
from codegold.model.paths import PathPattern
from codegold.retrieve.config import load_config
from codegold.retrieve.query import analyze_query

# owner/name and the language its cases are tagged with (the language of most of its
# code). None is in benchmarks/realcases/ and none is a SWE-bench repository. reqwest,
# fmt and chi were dropped (and CLI11 and bytes added) when an outside held-out set turned
# out to use them: a corpus the defaults are chosen on must not hold what judges them.
REPOSITORIES: tuple[tuple[str, str], ...] = (
    ("marshmallow-code/marshmallow", "python"),
    ("jd/tenacity", "python"),
    ("encode/starlette", "python"),
    ("pinojs/pino", "javascript"),
    ("yargs/yargs", "javascript"),
    ("sindresorhus/ky", "typescript"),
    ("immerjs/immer", "typescript"),
    ("pmndrs/zustand", "typescript"),
    ("spf13/cobra", "go"),
    ("spf13/viper", "go"),
    ("jhy/jsoup", "java"),
    ("square/javapoet", "java"),
    ("serde-rs/json", "rust"),
    ("tokio-rs/bytes", "rust"),
    ("lostisland/faraday", "ruby"),
    ("sinatra/sinatra", "ruby"),
    ("App-vNext/Polly", "csharp"),
    ("serilog/serilog", "csharp"),
    ("DaveGamble/cJSON", "c"),
    ("jqlang/jq", "c"),
    ("CLIUtils/CLI11", "cpp"),
    ("jbeder/yaml-cpp", "cpp"),
    ("Seldaek/monolog", "php"),
    ("thephpleague/flysystem", "php"),
    ("square/kotlinpoet", "kotlin"),
    ("coil-kt/coil", "kotlin"),
    ("apple/swift-argument-parser", "swift"),
    ("onevcat/Kingfisher", "swift"),
    ("SwiftyJSON/SwiftyJSON", "swift"),
)
SWEBENCH = Path("/work/shared/data/swebench-dev/instances.jsonl")
CONFIGS = ("reference", "lexical", "file-bm25")
CLASSES = ("descriptive", "names_code", "exact_identifier", "stack_trace", "issue_report")
MIN_WORDS = 4
MIN_CHARS = 24
SCAN = 3000  # most recent commits read per repository
DRAFTS = 150  # drafts of `cases mine` read per repository, most recent first
POOL = 0  # most recent eligible commits the sample is drawn from (0: every one mined)
SEED = 0

_ISSUE_REFS = re.compile(r"\(?(?:#\d+|\bGH-\d+|https?://\S+)\)?")
# Signed-off-by:, Co-authored-by:, Change-Id: (a hyphenated key: "fix: …" is no trailer).
_TRAILERS = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)+:\s.*$", re.MULTILINE)
_PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,30}\]\s*|[a-z]+(?:\([^)]{0,40}\))?!?:\s*)+")
_CHORE_TYPE = re.compile(r"^\s*(?:chore|ci|build|docs?|style|tests?|release|deps)(?:\([^)]*\))?!?:",
                         re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'.-]*")
_CHORE = re.compile(
    r"\b(?:dependabot|renovate|deps|dependenc(?:y|ies)|bump(?:ed|s)?|upgrade \w+ to|"
    r"ci|travis|appveyor|github actions|workflow|lint(?:er|ing)?|clippy|rubocop|eslint|"
    r"phpstan|psalm|mypy|typos?|spelling|changelog|readme|copyright|license|"
    r"release notes?|prepare(?: for)? release|warnings?)\b|"
    r"^(?:fix(?:ed|es)?|update[sd]?|improve[sd]?|minor|cleanup|clean up|tweaks?)"
    r"(?: (?:the |some |a )?(?:tests?|specs?|build|docs?|comments?|examples?|"
    r"code|things|stuff|bugs?|issues?))?\W*$",
    re.IGNORECASE)


def question_text(message: str) -> str:
    """The words of ``message`` that can carry a question: no issue references, URLs,
    trailers or conventional-commit prefixes."""
    text = _TRAILERS.sub(" ", message)
    text = _ISSUE_REFS.sub(" ", text)
    lines = [line for line in text.splitlines() if line.strip()]
    if lines:
        lines[0] = _PREFIX.sub("", lines[0])
    return " ".join(" ".join(lines).split())


def no_question(message: str) -> str | None:
    """Why ``message`` carries no question (None: it does)."""
    text = question_text(message)
    subject = question_text(message.split("\n", 1)[0])
    if len(_WORD.findall(text)) < MIN_WORDS or len(text) < MIN_CHARS:
        return "message too short to ask anything"
    if _CHORE.search(subject) or _CHORE_TYPE.match(message):
        return "housekeeping message (dependencies, CI, lint, typo, tests, release)"
    return None


def required_definitions(groups: Sequence[Mapping[str, Any]]) -> int:
    """Definitions the commit changed in its required (non-test) files; a changed file
    with no changed definition counts as one place."""
    return sum(len(g["any_of"]) for g in groups if g.get("required", True))


def code_gold(groups: Sequence[Mapping[str, Any]]) -> bool:
    """Whether some required gold file is program text (a commit that only changed CI,
    packaging or settings files asks no question of the code)."""
    for group in groups:
        if group.get("required", True):
            for target in group["any_of"]:
                language = BY_NAME.get(language_of(str(target["file"])) or "")
                if language is not None and language.kind == "code":
                    return True
    return False


def gold_names(groups: Sequence[Mapping[str, Any]]) -> set[str]:
    """The last component of each gold definition (``Class.method`` -> ``method``) and
    each qualified name itself."""
    names: set[str] = set()
    for group in groups:
        if not group.get("required", True):
            continue
        for target in group["any_of"]:
            symbol = target.get("symbol")
            if symbol:
                names.add(str(symbol))
                # Ruby's `etag_matches?`, `save!`, `name=`: the query's word is the stem.
                names.add(re.split(r"\.|::|#", str(symbol))[-1].rstrip("?!="))
    return {n for n in names if len(n) >= 3}


def query_class(query: str, groups: Sequence[Mapping[str, Any]]) -> str:
    """``stack_trace`` when the retriever's query analysis reads a trace frame;
    ``exact_identifier`` when the message names a gold definition (as a whole word,
    case-sensitive) or a gold file's path; ``names_code`` when it names other code
    (identifiers, paths); else ``descriptive``."""
    analysis = analyze_query(query)
    if analysis.frames:
        return "stack_trace"
    words = set(re.findall(r"[A-Za-z_$][\w$]*", query))
    if words & gold_names(groups):
        return "exact_identifier"
    files = {t["file"] for g in groups if g.get("required", True) for t in g["any_of"]}
    if any(f in query for f in files):
        return "exact_identifier"
    if analysis.paths or analysis.identifiers:
        return "names_code"
    return "descriptive"


# Places that hold a copy or a description of code, never the definition a commit
# changed: the forbidden-source failures held-out sets count (docs sites, versioned docs,
# changelogs, example programs, vendored copies, benchmark suites).
FORBIDDEN = ("**/docs/**", "**/doc/**", "**/documentation/**", "**/versioned_docs/**",
             "**/*.md", "**/*.rst", "**/*.adoc", "**/CHANGELOG*", "**/CHANGES*", "**/HISTORY*",
             "**/NEWS*", "**/examples/**", "**/example/**", "**/_examples/**",
             "**/samples/**", "**/vendor/**", "**/third_party/**", "**/benchmarks/**",
             "**/benchmark/**", "**/bench/**")


def forbidden_for(groups: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ``FORBIDDEN`` patterns that match no gold file of the case (a commit that
    changed an example keeps examples allowed)."""
    files = [str(t["file"]) for g in groups for t in g["any_of"]]
    return [p for p in FORBIDDEN
            if not any(PathPattern.forbidden(p).matches(f) for f in files)]


def sample_key(seed: int, commit: str) -> str:
    return hashlib.sha256(f"{seed}:{commit}".encode()).hexdigest()


def sample(cases: Sequence[dict[str, Any]], cap: int, seed: int) -> list[dict[str, Any]]:
    """At most ``cap`` cases, the ones whose seeded commit hash is smallest, in their
    original order: deterministic, and a larger cap keeps every case a smaller one kept."""
    keep = {id(c) for c in sorted(cases, key=lambda c: sample_key(seed, c["tags"]["commit"]))[:cap]}
    return [c for c in cases if id(c) in keep]


def select(drafts: Iterable[dict[str, Any]], *, max_definitions: int
           ) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The drafts this corpus keeps, each with its query class; why others were dropped."""
    kept: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    for draft in drafts:
        why = no_question(draft["query"])
        if why is None and required_definitions(draft["groups"]) > max_definitions:
            why = f"more than {max_definitions} definitions changed"
        if why is not None:
            dropped[why] += 1
            continue
        kept.append({**draft, "query_class": query_class(draft["query"], draft["groups"])})
    return kept, dropped


def mine_repository(repo: Path, repository: str, language: str, *, max_files: int,
                    max_definitions: int, scan: int, drafts: int) -> dict[str, Any]:
    """Every eligible case of one repository (before the cap), why other commits were
    skipped, and how many commits were read."""
    found, report = mine_history(str(repo), max_cases=drafts, max_files=max_files, scan=scan,
                                 repository=repository)
    kept, dropped = select(found, max_definitions=max_definitions)
    dropped.update(report.skipped)
    for case in kept:
        case["tags"] = {**case["tags"], "language": language, "source": "mined",
                        "status": "mined"}
        case["rationale"] = (f"Commit {case['tags']['commit']} of {repository}: the query is "
                             "its message, the gold what it changed, read at its parent.")
    return {"repository": repository, "language": language, "commits_read": report.items,
            "dropped": dict(dropped), "cases": kept,
            "settings": {"scan": scan, "drafts": drafts, "max_files": max_files,
                         "max_definitions": max_definitions}}


def reusable(cached: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether mining done with ``cached`` settings serves ``wanted``: the same filters, and
    at least as many commits and drafts read (the pool is the most recent eligible
    commits, so reading further back only adds older ones after it)."""
    same = all(cached.get(k) == wanted[k] for k in ("max_files", "max_definitions"))
    return (same and int(cached.get("scan", 0)) >= int(wanted["scan"])
            and int(cached.get("drafts", cached.get("scan", 0))) >= int(wanted["drafts"]))


def eligible(cases: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The mined cases whose gold holds code (applied when sampling, so a rule changed
    here needs no mining again)."""
    return [c for c in cases if code_gold(c["groups"])]


def finish(case: Mapping[str, Any]) -> dict[str, Any]:
    """A sampled case as written: its query class and forbidden sources read now."""
    return {**case, "query_class": query_class(case["query"], case["groups"]),
            "forbidden": forbidden_for(case["groups"])}


def slug_of(repository: str) -> str:
    return repository.replace("/", "+")


# --- building -----------------------------------------------------------------------------


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def build_corpus(args: argparse.Namespace, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Mine every repository into CACHE/cases/, import the slices; one row per case file
    with what it cost."""
    cases_dir = args.cache_dir / "cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    wanted = set(args.repos.split(",")) if args.repos else None
    for repository, language in REPOSITORIES:
        if wanted is not None and repository not in wanted:
            continue
        repo = find_repo(args.repos_dir, repository)
        if repo is None:
            log(f"skip {repository}: no clone under {args.repos_dir}")
            continue
        settings = {"scan": args.scan, "drafts": args.drafts, "max_files": args.max_files,
                    "max_definitions": args.max_definitions}
        eligible_file = args.cache_dir / "eligible" / f"{slug_of(repository)}.json"
        started, cpu = time.perf_counter(), _cpu()
        mined: dict[str, Any] | None = None
        if eligible_file.is_file():
            mined = json.loads(eligible_file.read_text())
            if not reusable(mined.get("settings", {}), settings):
                mined = None
        if mined is None:
            mined = mine_repository(repo, repository, language, max_files=args.max_files,
                                    max_definitions=args.max_definitions, scan=args.scan,
                                    drafts=args.drafts)
            mined["mine_s"], mined["mine_cpu_s"] = time.perf_counter() - started, _cpu() - cpu
            eligible_file.parent.mkdir(parents=True, exist_ok=True)
            eligible_file.write_text(json.dumps(mined, indent=1) + "\n")
        cases = [finish(case) for case in
                 sample(eligible(mined["cases"])[:args.pool or None], args.per_repo,
                        args.seed)]
        path = cases_dir / f"{slug_of(repository)}.yaml"
        if not cases:  # a case file holds at least one case
            path.unlink(missing_ok=True)
            log(f"mined {repository}: no eligible commit")
            continue
        path.write_text(case_file_text(cases, {"cutoff": 5, "repository": repository},
                                       f"# Mined from {repository}: {len(cases)} of "
                                       f"{len(eligible(mined['cases']))} eligible commits, seed "
                                       f"{args.seed}.\n"))
        rows.append({"file": path.name, "repository": repository, "language": language,
                     "commits_read": mined["commits_read"],
                     "eligible": len(eligible(mined["cases"])),
                     "cases": len(cases), "dropped": mined["dropped"],
                     "mine_s": mined["mine_s"], "mine_cpu_s": mined["mine_cpu_s"]})
        log(f"mined {repository}: {len(cases)} cases ({len(eligible(mined['cases']))} eligible) from "
            f"{mined['commits_read']} commits in {mined['mine_s']:.1f}s")
    if args.swebench is not None and args.swebench.is_file():
        items = read_instances(args.swebench)
        present = [i for i in items if find_repo(args.repos_dir, str(i.get("repo"))) is not None]
        if args.swebench_repos:
            keep = set(args.swebench_repos.split(","))
            present = [i for i in present if i.get("repo") in keep]
        cases, report = import_swebench(present, repo=None, repos_dir=str(args.repos_dir))
        for case in cases:
            case["tags"] = {**case["tags"], "language": "python"}
        path = cases_dir / "slice-swebench-dev.yaml"
        path.write_text(case_file_text(cases, {"cutoff": 5}, "# SWE-bench dev instances.\n"))
        rows.append({"file": path.name, "repository": "(swebench-dev)", "language": "python",
                     "commits_read": report.items, "cases": len(cases),
                     "dropped": dict(report.skipped), "mine_s": 0.0, "mine_cpu_s": 0.0})
    if args.realcases:
        for source in sorted(REALCASES_DIR.glob("*.yaml")):
            repository = load_cases(str(source)).cases[0].repository or ""
            if find_repo(args.repos_dir, repository) is None:
                log(f"realcases: skip {source.name}: no clone of {repository}")
                continue
            target = cases_dir / f"slice-realcases-{source.name}"
            target.write_text(source.read_text())
    return rows


def index_corpus(args: argparse.Namespace, case_files: Sequence[Path],
                 log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Index every revision the case files pin, one shared chunk store; cost per file."""
    root = args.cache_dir / "indexes"
    rows: list[dict[str, Any]] = []
    for path in case_files:
        pins: dict[str, dict[str, str]] = {}
        for case in load_cases(str(path)).cases:
            pins.setdefault(case.repository or "", {}).setdefault(case.revision, case.id)
        for repository, pinned in sorted(pins.items()):
            repo = find_repo(args.repos_dir, repository)
            if repo is None:
                raise SystemExit(f"{path}: no clone of {repository} under {args.repos_dir}")
            started, cpu, before = time.perf_counter(), _cpu(), len(pinned)
            built: list[str] = []
            failed = 0
            for revision in sorted(pinned):
                # One revision at a time: a snapshot without some blob (stored copies of
                # public repositories leave out files of 4 MiB and more) loses that
                # revision's cases, not the repository's.
                try:
                    result = build_many(repo, root, [revision], repository=repository,
                                        pinned_by={revision: pinned[revision]})
                except CodeIndexError as err:
                    failed += 1
                    log(f"{repository}@{revision[:12]}: not indexed: {err}")
                    continue
                built += [m.revision for m in result.built if m.revision]
            rows.append({"file": path.name, "repository": repository,
                         "revisions": before, "built": len(built), "failed": failed,
                         "wall_s": time.perf_counter() - started, "cpu_s": _cpu() - cpu,
                         "index_bytes": sum(_disk(root / r) for r in built)})
            log(f"indexed {repository}: {len(built)} of {before} revisions built "
                f"({failed} failed) in {time.perf_counter() - started:.1f}s")
    return rows


# --- tables -------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


_HEAD = ["cases", "pass@5 %", "hit %", "file hit %", "MRR", "forbidden %"]
# Required gold files per case id (filled by case_meta): a mined gold is the definitions
# a commit changed, stricter than "the right file", so the tables show both.
GOLD_FILES: dict[str, frozenset[str]] = {}


def file_hit(result: CaseResult) -> bool:
    """A required gold file among the chunks within the case's cutoff."""
    gold = GOLD_FILES.get(result.case_id, frozenset())
    return any(chunk.file in gold for chunk in result.ranked[:result.cutoff])


def figures(results: Sequence[CaseResult]) -> list[str]:
    every = aggregate(list(results))
    files = sum(file_hit(r) for r in results) / len(results) if results else None
    return [str(every.cases), _pct(every.pass_rate), _pct(every.hit_rate), _pct(files),
            "-" if every.mrr is None else f"{every.mrr:.3f}", _pct(every.forbidden_rate)]


def section(title: str, groups: Mapping[str, Sequence[CaseResult]],
            order: Sequence[str] = ()) -> str:
    names = [n for n in order if n in groups] + sorted(set(groups) - set(order))
    lines = [f"| {title} | " + " | ".join(_HEAD) + " |", "|" + "---|" * (len(_HEAD) + 1)]
    lines += [f"| {n} | " + " | ".join(figures(groups[n])) + " |" for n in names]
    return "\n".join(lines)


def group_by(results: Iterable[CaseResult], key: Callable[[CaseResult], str]
             ) -> dict[str, list[CaseResult]]:
    out: dict[str, list[CaseResult]] = {}
    for result in results:
        out.setdefault(key(result), []).append(result)
    return out


def per_repository_summary(by_repo: Mapping[str, Sequence[CaseResult]]) -> str:
    rates = {repo: aggregate(list(rows)).pass_rate or 0.0 for repo, rows in by_repo.items()}
    if not rates:
        return ""
    worst = min(rates, key=lambda r: (rates[r], r))
    mean = sum(rates.values()) / len(rates)
    return (f"leave-one-repository-out: mean of {len(rates)} per-repository pass rates "
            f"{100 * mean:.1f} %, worst {worst} {100 * rates[worst]:.1f} %")


def tables(name: str, rows: Sequence[tuple[str, CaseResult]], meta: Mapping[str, Mapping[str, str]]
           ) -> str:
    mined = [r for f, r in rows if not f.startswith("slice-")]
    by_slice = group_by((r for _, r in rows), lambda r: meta[r.case_id]["slice"])
    parts = [f"### {name}", section("slice", by_slice, ("mined", "swebench-dev", "realcases"))]
    by_repo = group_by(mined, lambda r: meta[r.case_id]["repository"])
    parts += [section("mined: language", group_by(mined, lambda r: meta[r.case_id]["language"])),
              section("mined: query class",
                      group_by(mined, lambda r: meta[r.case_id]["class"]), CLASSES),
              section("mined: repository", by_repo), per_repository_summary(by_repo)]
    for other in ("swebench-dev", "realcases"):
        sliced = by_slice.get(other, [])
        if sliced:
            parts.append(section(f"{other}: query class",
                                 group_by(sliced, lambda r: meta[r.case_id]["class"]), CLASSES))
    return "\n\n".join(p for p in parts if p)


def case_meta(case_files: Sequence[Path]) -> dict[str, dict[str, str]]:
    meta: dict[str, dict[str, str]] = {}
    for path in case_files:
        kind = ("swebench-dev" if path.name.startswith("slice-swebench") else
                "realcases" if path.name.startswith("slice-realcases") else "mined")
        for case in load_cases(str(path)).cases:
            GOLD_FILES[case.id] = frozenset(t.file for g in case.groups if g.required
                                            for t in g.any_of)
            meta[case.id] = {"slice": kind, "repository": case.repository or path.stem,
                             "language": str(case.tags.get("language", "?")),
                             "class": case.query_class}
    return meta


def corpus_table(meta: Mapping[str, Mapping[str, str]]) -> str:
    """Cases per repository and per language, each split by query class, the slices
    beside the mined ones."""
    def rows(key: str, only: str | None) -> list[str]:
        counts: dict[str, Counter[str]] = {}
        for case in meta.values():
            if only is None or case["slice"] == only:
                counts.setdefault(case[key], Counter())[case["class"]] += 1
        classes = [c for c in CLASSES if any(c in n for n in counts.values())]
        classes += sorted({c for n in counts.values() for c in n} - set(classes))
        out = [f"| {key} | cases | " + " | ".join(classes) + " |",
               "|" + "---|" * (len(classes) + 2)]
        for name in sorted(counts):
            out.append(f"| {name} | {sum(counts[name].values())} | "
                       + " | ".join(str(counts[name][c]) for c in classes) + " |")
        return out

    parts = ["\n".join(rows("slice", None)), "\n".join(rows("language", "mined")),
             "\n".join(rows("repository", "mined"))]
    return "\n\n".join(parts)


def cost_table(cache: Path, case_files: Sequence[Path]) -> str:
    """What the corpus cost: mining per repository (``CACHE/eligible/``), and every index
    build recorded in ``CACHE/built.jsonl`` (builds of one repository added up, however
    many runs they took), beside the disk the indexes and the chunk store take now."""
    ledger: dict[str, dict[str, float]] = {}
    built_file = cache / "built.jsonl"
    for line in built_file.read_text().splitlines() if built_file.is_file() else ():
        row = json.loads(line)
        sums = ledger.setdefault(row["repository"], {"built": 0, "wall_s": 0.0, "cpu_s": 0.0,
                                                     "index_bytes": 0})
        for key in sums:
            sums[key] += row[key]
    pinned: dict[str, set[str]] = {}
    cases: Counter[str] = Counter()
    for path in case_files:
        for case in load_cases(str(path)).cases:
            pinned.setdefault(case.repository or "", set()).add(case.revision)
            cases[case.repository or ""] += 1
    lines = ["| repository | cases | commits read | mine s | revisions | built | "
             "index wall s | index CPU s | index MB |", "|---|---|---|---|---|---|---|---|---|"]
    total = Counter[str]()
    for repository in sorted(pinned):
        mined_file = cache / "eligible" / f"{slug_of(repository)}.json"
        mined = json.loads(mined_file.read_text()) if mined_file.is_file() else {}
        sums = ledger.get(repository, {})
        row = {"cases": cases[repository], "read": mined.get("commits_read", 0),
               "mine_s": mined.get("mine_s", 0.0), "revisions": len(pinned[repository]),
               "built": sums.get("built", 0), "wall_s": sums.get("wall_s", 0.0),
               "cpu_s": sums.get("cpu_s", 0.0), "mb": sums.get("index_bytes", 0) / 1e6}
        total.update(row)
        lines.append(f"| {repository} | " + " | ".join(
            f"{v:.0f}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    lines.append("| total | " + " | ".join(
        f"{total[k]:.0f}" for k in ("cases", "read", "mine_s", "revisions", "built", "wall_s",
                                    "cpu_s", "mb")) + " |")
    store = cache / "indexes" / ".chunkstore"
    if store.is_dir():
        lines.append(f"\nchunk store {_disk(store) / 1e6:.0f} MB; all indexes "
                     f"{_disk(cache / 'indexes') / 1e6:.0f} MB with it")
    return "\n".join(lines)


def indexed_only(case_files: Sequence[Path], root: Path, folder: Path,
                 log: Callable[[str], None]) -> list[Path]:
    """Copies of ``case_files`` in ``folder`` keeping only the cases whose revision has a
    complete index under ``root`` (a build stopped part way still scores what it built)."""
    have = set(IndexSet.from_path(root).by_revision) if root.is_dir() else set()
    folder.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    for path in case_files:
        revisions = [c.revision for c in load_cases(str(path)).cases]
        if all(r in have for r in revisions):
            out.append(path)  # as it is (PyYAML cannot read every file the loader reads)
            continue
        document = yaml.safe_load(path.read_text())
        default = (document.get("defaults") or {}).get("revision")
        cases = [c for c in document["cases"] if c.get("revision", default) in have]
        if len(cases) < len(document["cases"]):
            log(f"{path.name}: {len(document['cases']) - len(cases)} of "
                f"{len(document['cases'])} cases left out (revision not indexed)")
        if cases:
            target = folder / path.name
            target.write_text(yaml.safe_dump({**document, "cases": cases}, sort_keys=False,
                                             allow_unicode=True))
            out.append(target)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos-dir", type=Path, default=Path("/work/.mirror"),
                        help="local clones named owner+name (repo/ inside is fine)")
    parser.add_argument("--cache-dir", type=Path, required=True,
                        help="cases/, indexes/ (one per revision, shared chunk store), runs/")
    parser.add_argument("--skip-build", action="store_true",
                        help="reuse CACHE/cases and CACHE/indexes as they are: only run and score")
    parser.add_argument("--repos", default=None, help="comma-separated owner/name subset")
    parser.add_argument("--per-repo", type=int, default=20,
                        help="cases kept per repository (eligible commits are mined once "
                             "into CACHE/eligible/ and sampled again for another cap)")
    parser.add_argument("--skip-mine", action="store_true",
                        help="use CACHE/cases as they are: index what they pin, run and score")
    parser.add_argument("--indexed-only", action="store_true",
                        help="run only the cases whose revision has a complete index (their "
                             "case files are copied to CACHE/indexed-cases/)")
    parser.add_argument("--cost", action="store_true",
                        help="with --skip-build: print the build cost table all the same")
    parser.add_argument("--mine-only", action="store_true",
                        help="mine and write the case files, index and run nothing")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the per-repository sample")
    parser.add_argument("--scan", type=int, default=SCAN, help="recent commits read per repository")
    parser.add_argument("--drafts", type=int, default=DRAFTS,
                        help="stop reading a repository's history after this many drafts "
                             "(before this script's own filters)")
    parser.add_argument("--pool", type=int, default=POOL,
                        help="the sample is drawn from this many most recent eligible commits "
                             "(default 0: every one mined)")
    parser.add_argument("--max-files", type=int, default=3, help="drop commits changing more files")
    parser.add_argument("--max-definitions", type=int, default=4,
                        help="drop commits changing more definitions in non-test files")
    parser.add_argument("--swebench", type=Path, default=None,
                        help=f"SWE-bench instances to add as a slice (e.g. {SWEBENCH})")
    parser.add_argument("--swebench-repos", default=None,
                        help="comma-separated owner/name: only these repositories' instances")
    parser.add_argument("--realcases", action="store_true",
                        help="add the hand-written realcases whose repository has a clone")
    parser.add_argument("--configs", default="reference",
                        help=f"comma-separated from {','.join(CONFIGS)}, reference+dense")
    parser.add_argument("--files", default=None,
                        help="comma-separated case file names under CACHE/cases to run (default all)")
    parser.add_argument("--config", type=Path, default=None, help="retriever config override (YAML)")
    parser.add_argument("--json", type=Path, default=None,
                        help="per-configuration figures and per-case statuses (default CACHE/runs/summary.json)")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    cases_dir = args.cache_dir / "cases"
    mined_rows: list[dict[str, Any]] = []
    built_rows: list[dict[str, Any]] = []
    if not (args.skip_build or args.skip_mine):
        mined_rows = build_corpus(args, log)
        (args.cache_dir / "mined.json").write_text(json.dumps(mined_rows, indent=1) + "\n")
    case_files = sorted(cases_dir.glob("*.yaml"))
    if args.files:
        wanted = set(args.files.split(","))
        case_files = [p for p in case_files if p.name in wanted]
    if args.mine_only:
        return 0
    if not args.skip_build:
        built_rows = index_corpus(args, case_files, log)
        with (args.cache_dir / "built.jsonl").open("a") as ledger:
            ledger.writelines(json.dumps(row) + "\n" for row in built_rows)
    if not args.skip_build or args.cost:
        print("\nBuild cost (wall and CPU seconds on this machine, niced, shared CPUs)\n")
        print(cost_table(args.cache_dir, case_files))
    if args.indexed_only:
        case_files = indexed_only(case_files, args.cache_dir / "indexes",
                                  args.cache_dir / "indexed-cases", log)
    meta = case_meta(case_files)
    print("\nCorpus (cases per query class)\n")
    print(corpus_table(meta))
    indexes = IndexSet.from_path(args.cache_dir / "indexes")
    base = load_config(args.config)
    out = args.cache_dir / "runs"
    report: dict[str, Any] = {}
    for name in [c for c in args.configs.split(",") if c]:
        started = time.perf_counter()
        rows = run_one(name, configuration(name, base), name.endswith("+dense"), None,
                       case_files, indexes, out, log)
        tagged = [(meta[r.case_id]["slice"] if meta[r.case_id]["slice"] != "mined" else "", r)
                  for _, r in rows]
        log(f"{name}: {len(rows)} cases in {time.perf_counter() - started:.0f}s")
        print(f"\n{tables(name, [('slice-' + s if s else 'mined', r) for s, r in tagged], meta)}")
        report[name] = {"cases": {r.case_id: r.status for _, r in rows},
                        "seconds": time.perf_counter() - started}
    out.mkdir(parents=True, exist_ok=True)
    (args.json or out / "summary.json").write_text(json.dumps(report, indent=1, sort_keys=True)
                                                   + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
