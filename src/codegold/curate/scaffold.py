"""``codegold cases init``: a starting cases.yaml, policy.yaml and owners.yaml for a repository.

The case file holds one real case (a definition found in the repository) so that every
command of the quickstart runs on it at once; the policy and owners files are commented
templates. Languages and likely forbidden folders are detected from the tree.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from codegold.curate.changes import file_at, git_output
from codegold.curate.stanza import yaml_comments, yaml_text
from codegold.index.build.naming import repository_name
from codegold.index.chunker import chunk_file
from codegold.index.gitsnap import GitSnapshot
from codegold.model.languages import language_of

TRAP_FOLDERS = ("vendor", "third_party", "thirdparty", "external", "generated", "gen",
                "legacy", "deprecated", "migrations", "dist", "build", "node_modules",
                "archive", "old")


# Paths a starter case never points at: tests, docs, examples, CI, build and benchmark
# scripts, private modules.
_NOT_STARTER = re.compile(
    r"(^|/)(tests?|spec|docs?|examples?|ci|scripts?|tools?|benchmarks?|asv_bench|bench|"
    r"\.github|build|dist)/|test_|_test\.|\.spec\.|\.test\.|(^|/)(setup|conftest|noxfile|"
    r"manage|__main__)\.py$|(^|/)_[^/]*$")
_STARTER_FILES = 80
# Names too common to find by name (``error``, ``main``): never the starter.
_GENERIC_NAMES = frozenset({"main", "error", "errors", "run", "test", "init", "setup", "helper",
                            "helpers", "util", "utils", "config", "app", "handler", "index"})


class Scaffold:
    def __init__(self, repo: str, revision: str = "HEAD") -> None:
        self.repo = repo
        sha = git_output(repo, "rev-parse", "--verify", "--end-of-options",
                         f"{revision}^{{commit}}").decode().strip()
        self.revision = sha
        self.paths = [p for p in git_output(repo, "ls-tree", "-r", "--name-only", "-z", sha)
                      .decode("utf-8", "replace").split("\0") if p]
        # The name `codegold index` writes into the manifest (the origin remote's
        # owner/name, else the folder), so cases and indexes name the repository alike.
        self.repository = repository_name(GitSnapshot.open(repo, sha))

    def languages(self) -> list[tuple[str, int]]:
        counts = Counter(lang for p in self.paths if (lang := language_of(p)))
        return counts.most_common()

    def trap_folders(self) -> list[str]:
        found: set[str] = set()
        for path in self.paths:
            parts = path.split("/")[:-1]
            for depth, part in enumerate(parts):
                if part.lower() in TRAP_FOLDERS:
                    found.add("/".join(parts[: depth + 1]) + "/")
                    break
        return sorted(found)

    def example_definition(self) -> tuple[str, str] | None:
        """(file, symbol) of the starter case: a top-level public class or function of the
        project's own code, whose name is defined once among the files looked at, so the
        reference retriever finds it by name out of the box. Tests, docs, examples, CI and
        build scripts, vendored or generated folders and private modules are skipped; the
        project's package folder (named like the repository, or ``src/``, ``lib/``) first."""
        short = self.repository.rsplit("/", 1)[-1].lower().replace("-", "_")
        candidates = [p for p in self.paths
                      if language_of(p) in ("python", "typescript", "javascript", "go", "java",
                                            "rust", "tsx")
                      and not _NOT_STARTER.search(p)
                      and not any(p.startswith(t) for t in self.trap_folders())]

        def order(path: str) -> tuple[bool, int, str]:
            first = path.split("/", 1)[0].lower().replace("-", "_")
            own = "/" in path and (first == short or first in ("src", "lib", "pkg", "app"))
            return (not own, path.count("/"), path)

        found: list[tuple[str, str, str]] = []  # (file, name, kind)
        for path in sorted(candidates, key=order)[:_STARTER_FILES]:
            data = file_at(self.repo, self.revision, path)
            if data is None or len(data) > 500_000:
                continue
            chunked = chunk_file(path, data)
            roles = {c.id: c.role for c in chunked.chunks}
            found += [(path, d.qualified, d.kind) for d in chunked.definitions
                      if d.role == "definition" and roles.get(d.chunk_id) == "definition"
                      and d.kind in ("function", "class") and "." not in d.qualified
                      and not d.qualified.startswith("_") and len(d.qualified) >= 4
                      and d.qualified.lower() not in _GENERIC_NAMES
                      # Go exports a name by its capital: authPair is the package's own
                      and (language_of(path) != "go" or d.qualified[:1].isupper())]
        defined = Counter(name for _, name, _ in found)
        unique = [item for item in found if defined[item[1]] == 1]
        for path, name, _ in sorted(unique or found, key=lambda f: f[2] != "class")[:1]:
            return path, name
        return None

    def cases_yaml(self) -> str:
        """The starting case file. Names from the repository (its folder, file and symbol
        names) are data: they are written by the YAML library, never pasted into YAML
        text, and comments that quote them are kept to one line."""
        langs = ", ".join(f"{lang} ({n})" for lang, n in self.languages()[:6]) or "none detected"
        traps = self.trap_folders()
        example = self.example_definition()
        comments = [
            f"Gold cases for {self.repository} (languages: {langs}).",
            "One case per question an engineer asks; pin each to the revision it was",
            "labelled at. Check labels before any run:  codegold cases check cases.yaml --index idx/",
            "revision: the commit these labels describe; cutoff: how many chunks your answer "
            "stage receives.",
        ]
        if traps:
            comments += ["Folders that look like traps (vendored, generated, legacy, build output);",
                         "forbid them where they are not authoritative:",
                         f"forbidden: {json.dumps(traps, ensure_ascii=False)}"]
        case: dict[str, object]
        if example is not None:
            path, symbol = example
            short = symbol.rsplit(".", 1)[-1]
            comments += ["The case below is a starter, so every command runs at once: replace it",
                         "with the questions your engineers really ask."]
            case = {
                "id": "starter-where-is-"
                      f"{re.sub(r'[^a-z0-9]+', '-', short.lower()).strip('-') or 'it'}",
                "query": f"Where is {short} defined?",
                "query_class": "exact_identifier",
                "accepted": [{"file": path, "symbol": symbol, "roles": ["definition"]}],
                "tags": {"starter": "yes"},
                "rationale": "A starter case written by `codegold cases init` (a top-level "
                             "public definition); replace it with a real question.",
            }
        else:
            case = {
                "id": "example",
                "query": "Where is the entry point defined?",
                "accepted": [{"file": self.paths[0] if self.paths else "README.md"}],
                "rationale": "An example written by `codegold cases init`; replace it.",
            }
        document = {"format": 1,
                    "defaults": {"repository": self.repository, "revision": self.revision,
                                 "cutoff": 5},
                    "cases": [case]}
        return yaml_comments(comments) + yaml_text(document)


POLICY_YAML = """# Gate policy (codegold gate results.json --policy policy.yaml). Start report-only:
#   codegold gate results.json --policy policy.yaml --report-only
format: 1
rules:
  - {metric: hit_rate, min: 0.80}            # the required evidence inside the cutoff
  - {metric: mean_group_recall, min: 0.75}
  # - {metric: forbidden_rate, max: 0.0, slice: "tag:risk=high", min_cases: 3}
zero_tolerance: [forbidden_sources, revision_mismatches, invalid_cases]
# baseline: {results: main-results.json, max_new_failures: 0}
"""

OWNERS_YAML = """# Failure cause -> the team that fixes it (codegold diagnose --owners owners.yaml).
format: 1
owners:
  invalid_run: indexing            # the index was missing, incomplete or of another revision
  stale_label: dataset             # the label is wrong at its revision
  excluded_by_policy: indexing
  not_chunked: parser
  metadata_mismatch: parser
  split_context: parser
  query_rewrite_loss: retrieval
  retrieval_miss: retrieval
  reranker_demotion: ranking
  below_cutoff: retrieval
  forbidden_source: retrieval
  answer_ignored_evidence: answering
default: retrieval
"""
