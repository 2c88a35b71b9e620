"""Draft cases from changes with a known fix: SWE-bench-style instances and git history.

Both give a query (an issue text, a commit message), a base revision and a patch; the gold
is one required group per changed file that existed at the base revision, whose
alternatives are the definitions the patch changed there (a file-only target when the
change is outside any definition). New files are left out: no retriever could return
them at the base revision.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from codegold.curate.changes import changed_definitions, file_at, git_output, parse_patch
from codegold.curate.jsonrecords import read_json_records
from codegold.curate.stanza import slug, unique_id
from codegold.errors import InputError, MissingDependency
from codegold.index.categories import categorize
from codegold.index.clones import clone_for
from codegold.index.policy import PathPolicy
from codegold.model.languages import language_of
from codegold.plumbing.git import git, is_full_sha

MAX_ALTERNATIVES = 8
# What an index built with the default path policy leaves out is no evidence to draft.
_INDEX_POLICY = PathPolicy()


class DraftReport(msgspec.Struct, frozen=True, kw_only=True):
    items: int
    drafts: int
    skipped: dict[str, int]
    format: int = 1


def gold_groups(repo: str, base: str, patch: str) -> tuple[list[dict[str, Any]], str | None]:
    """Groups for ``patch`` at ``base``, or ``([], reason)`` when there is no required one.

    A changed test file is supporting evidence (``required: false``): the tests a fix
    updates are not what a user asking about the behaviour needs first. Every group is
    one the patch changes, so each says ``edit: true``: a fix must change it (evidence
    drop, docs/agents.md).
    """
    if not is_full_sha(base):
        return [], "base revision is not a 40-hex commit sha"
    groups: list[dict[str, Any]] = []
    left_out = 0
    for change in parse_patch(patch):
        if change.old_path is None:
            continue  # a new file: nothing to retrieve at the base revision
        data = file_at(repo, base, change.old_path)
        if data is None:
            continue
        if _INDEX_POLICY.exclusion(change.old_path, len(data)) is not None:
            # A lock file, a bundle, a binary or a secret-bearing file: an index leaves it
            # out, so no retriever could ever find it (a dependency bump's package-lock.json
            # beside the fix would fail every run of the case).
            left_out += 1
            continue
        targets: list[dict[str, Any]] = [
            {"file": change.old_path, "symbol": d.qualified}
            for d in changed_definitions(change.old_path, data, change.old_lines)
        ][:MAX_ALTERNATIVES]
        group: dict[str, Any] = {"id": slug(change.old_path, limit=60),
                                 "any_of": targets or [{"file": change.old_path}],
                                 "edit": True}
        if categorize(change.old_path, data, language_of(change.old_path)) == "test":
            group["required"] = False
        groups.append(group)
    if not groups:
        if left_out:
            return [], "the patch changes only files an index leaves out (lock files, bundles, binaries)"
        return [], "the patch changes no file that exists at the base revision"
    if all(group.get("required") is False for group in groups):
        return [], "only test files changed"
    seen: set[str] = set()
    for group in groups:
        group["id"] = unique_id(group["id"], seen)
    return groups, None


# --- SWE-bench ---------------------------------------------------------------------------


def read_instances(path: str | Path) -> list[dict[str, Any]]:
    """Instances from JSONL, a JSON list, or Parquet (needs pyarrow)."""
    source = Path(path)
    if source.suffix.lower() == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as err:
            raise MissingDependency("pyarrow", "parquet", "reading Parquet instance files",
                                    install="pip install pyarrow") from err
        try:
            rows: list[dict[str, Any]] = pq.read_table(source).to_pylist()
        except Exception as err:
            raise InputError(f"cannot read Parquet file: {err}", path=str(path)) from None
        return rows
    return [value for _, value in read_json_records(path, "instances", item="instance")
            if isinstance(value, dict)]


def _instance_fields(item: dict[str, Any]) -> tuple[str, str, str, str, str]:
    """(instance id, repository, base commit, problem statement, patch) in SWE-bench,
    SWE-bench Lite/Verified or Multi-SWE-bench shape."""
    repo = str(item.get("repo") or "")
    if item.get("org") and repo and "/" not in repo:
        repo = f"{item['org']}/{repo}"
    # Multi-SWE-bench gives ``base: {sha: …}``; any other shape (``"base": "main"``) is no
    # commit and is skipped as one below.
    nested = item.get("base")
    base = item.get("base_commit") or (nested.get("sha") if isinstance(nested, dict) else "") or ""
    statement = item.get("problem_statement") or item.get("query")
    if not statement and isinstance(item.get("resolved_issues"), list):
        statement = "\n\n".join(f"{i.get('title', '')}\n{i.get('body', '')}".strip()
                                for i in item["resolved_issues"] if isinstance(i, dict))
    instance = item.get("instance_id") or (
        f"{repo.replace('/', '__')}-{item['number']}" if item.get("number") else "")
    patch = item.get("patch") or item.get("fix_patch") or ""
    return str(instance), repo, str(base), str(statement or ""), str(patch)


def _repo_path(repository: str, repo: str | None, repos_dir: str | None) -> str | None:
    if repo is not None:
        return repo
    if repos_dir is None or not repository:
        return None
    found = clone_for(repos_dir, repository)
    return str(found) if found is not None else None


def _localization_groups(item: dict[str, Any], repo: str, base: str
                         ) -> tuple[list[dict[str, Any]], str | None]:
    """Groups from a localisation file's ``gold_files``/``gold_symbols`` (no patch given)."""
    if not is_full_sha(base):
        return [], "base revision is not a 40-hex commit sha"
    symbols: dict[str, list[str]] = {}
    for entry in item.get("gold_symbols") or []:
        if isinstance(entry, dict) and entry.get("file") and entry.get("symbol"):
            symbols.setdefault(str(entry["file"]), []).append(str(entry["symbol"]))
    groups: list[dict[str, Any]] = []
    seen: set[str] = set()
    for file in item.get("gold_files") or []:
        if not isinstance(file, str) or file_at(repo, base, file) is None:
            continue
        targets = [{"file": file, "symbol": s} for s in symbols.get(file, [])][:MAX_ALTERNATIVES]
        # the gold files are the ones the gold patch changes: a fix must change them
        groups.append({"id": unique_id(slug(file, limit=60), seen),
                       "any_of": targets or [{"file": file}], "edit": True})
    return (groups, None) if groups else ([], "no gold file exists at the base revision")


def import_swebench(items: Iterable[dict[str, Any]], *, repo: str | None,
                    repos_dir: str | None) -> tuple[list[dict[str, Any]], DraftReport]:
    cases: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    seen: set[str] = set()
    total = 0
    for item in items:
        total += 1
        instance, repository, base, statement, patch = _instance_fields(item)
        localization = not patch.strip() and bool(item.get("gold_files"))
        if not instance or not statement.strip() or not (patch.strip() or localization):
            skipped["missing instance_id, problem_statement or patch"] += 1
            continue
        path = _repo_path(repository, repo, repos_dir)
        if path is None:
            skipped[f"no local clone of {repository or 'the repository'}"] += 1
            continue
        groups, why = (_localization_groups(item, path, base) if localization
                       else gold_groups(path, base, patch))
        if why is not None:
            skipped[why] += 1
            continue
        cases.append({
            "id": unique_id(re.sub(r"[^A-Za-z0-9_.-]+", "-", instance), seen),
            "query": statement,
            "repository": repository or None,
            "revision": base,
            "query_class": "issue_report",
            "groups": groups,
            "tags": {"source": "swebench", "instance": instance},
            "rationale": (f"SWE-bench instance {instance}: the reference patch changes these "
                          "definitions at the base commit; each changed file is one required "
                          "group, any changed definition in it satisfies the group."),
        })
        if not repository:
            del cases[-1]["repository"]
    return cases, DraftReport(items=total, drafts=len(cases), skipped=dict(skipped))


# --- git history -------------------------------------------------------------------------

_ISSUE_REF = re.compile(r"(?:#\d+|\bGH-\d+|\b[A-Z][A-Z0-9]+-\d+\b|/issues/\d+)")
_FIX_WORDS = re.compile(r"\b(?:fix(?:e[sd])?|bug|crash|error|regression|broken|wrong|"
                        r"incorrect|fail(?:s|ed|ure)?|handle|prevent|avoid)\b", re.IGNORECASE)
_TRIVIAL = (
    (re.compile(r"\b(?:bump|release|version)\b.*\d+\.\d+", re.IGNORECASE), "version bump"),
    (re.compile(r"\b(?:format(?:ting)?|lint|style|black|prettier|isort|ruff|typo|whitespace)\b",
                re.IGNORECASE), "formatting or typo"),
    (re.compile(r"^(?:merge|revert)\b", re.IGNORECASE), "merge or revert"),
)
_DOC_PATH = re.compile(r"(?:^|/)(?:docs?|documentation)/|\.(?:md|rst|txt|adoc)$|(?:^|/)CHANGE",
                       re.IGNORECASE)


def _commits(repo: str, since: str | None, paths: tuple[str, ...], limit: int
             ) -> Iterator[tuple[str, list[str], str, str]]:
    args = ["log", "--no-color", "--format=%H%x00%P%x00%s%x00%b%x1e", f"--max-count={limit}"]
    if since:
        if since.startswith("-"):
            raise InputError(f"{{since}} must be a date or duration, found {since!r}",
                             settings=("since",))
        args.append(f"--since={since}")
    args.append("HEAD")
    if paths:
        args += ["--", *paths]
    if not git(["rev-parse", "--verify", "--quiet", "HEAD"], repo=repo, check=False).ok \
            and git(["rev-parse", "--git-dir"], repo=repo, check=False).ok:
        raise InputError("HEAD has no commits (an empty repository, or a branch made with "
                         "'git checkout --orphan' and not yet committed to): no history to "
                         "mine", path=repo)
    out = git_output(repo, *args, timeout=120).decode("utf-8", "replace")
    for record in out.split("\x1e"):
        parts = record.strip("\n").split("\x00")
        if len(parts) == 4 and is_full_sha(parts[0]):
            yield parts[0], parts[1].split(), parts[2].strip(), parts[3].strip()


_TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*(?:-by|-to|-id|-Id)?:\s", re.MULTILINE)


def mined_query(subject: str, body: str, scrubber: Any) -> str:
    """A commit's question: its subject and the first paragraph of its body (a squash
    merge's body lists every folded commit; trailers such as ``Co-authored-by:`` name
    people), scrubbed like a log (secrets, e-mail addresses, home folders)."""
    first = body.strip().split("\n\n", 1)[0] if body.strip() else ""
    if first and all(_TRAILER.match(line) for line in first.splitlines() if line.strip()):
        first = ""  # the body is only trailers
    text = f"{subject}\n\n{first}".strip()
    clean, _ = scrubber.scrub(text)
    return str(clean)


def mine_history(repo: str, *, since: str | None = None, paths: tuple[str, ...] = (),
                 max_cases: int = 50, max_files: int = 8, scan: int = 2000,
                 repository: str | None = None) -> tuple[list[dict[str, Any]], DraftReport]:
    """Draft cases from commits that reference an issue or describe a fix."""
    from codegold.curate.scrub import Scrubber

    cases: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    seen: set[str] = set()
    total = 0
    scrubber = Scrubber(use_detect_secrets=False)
    for sha, parents, subject, body in _commits(repo, since, paths, scan):
        if len(cases) >= max_cases:
            break
        total += 1
        message = mined_query(subject, body, scrubber)
        if len(parents) != 1:
            skipped["merge or root commit"] += 1
            continue
        trivial = next((why for pattern, why in _TRIVIAL if pattern.search(subject)), None)
        if trivial:
            skipped[trivial] += 1
            continue
        if not (_ISSUE_REF.search(message) or _FIX_WORDS.search(subject)):
            skipped["message neither references an issue nor describes a fix"] += 1
            continue
        # -z: a name holding a space, a tab or a newline is one name, unquoted
        names = [name for name in git_output(
            repo, "diff-tree", "-z", "--no-commit-id", "--name-only", "-r", parents[0], sha,
        ).decode("utf-8", "replace").split("\0") if name]
        if len(names) > max_files:
            skipped[f"more than {max_files} files changed"] += 1
            continue
        if names and all(_DOC_PATH.search(n) for n in names):
            skipped["documentation only"] += 1
            continue
        patch = git_output(repo, "diff-tree", "-p", "--no-color", "--no-renames",
                           parents[0], sha).decode("utf-8", "replace")
        groups, why = gold_groups(repo, parents[0], patch)
        groups = [g for g in groups if not _DOC_PATH.search(g["any_of"][0]["file"])]
        required = [g for g in groups if g.get("required", True)]
        if why is not None or not required:
            skipped[why or "only documentation or test files existed before the change"] += 1
            continue
        if all("symbol" not in t for g in required for t in g["any_of"]):
            skipped["no definition changed (module-level or config edits only)"] += 1
            continue
        case: dict[str, Any] = {
            "id": unique_id("commit-" + sha[:10] + "-" + slug(subject, limit=30), seen),
            "query": message,
            "revision": parents[0],
            "query_class": "commit_message",
            "groups": groups,
            "tags": {"status": "draft", "source": "git-history", "commit": sha[:12]},
            "rationale": (f"Drafted from commit {sha} ({subject[:80]}): the gold is what it "
                          "changed, read at its parent. Review: keep only the definitions "
                          "that answer the message, and rewrite the query as a user would ask."),
        }
        if repository:
            case["repository"] = repository
        cases.append(case)
    return cases, DraftReport(items=total, drafts=len(cases), skipped=dict(skipped))
