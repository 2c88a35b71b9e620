"""How much a repository's own history knows about where a question's answer is.

For each mined case (``benchmarks/mined_corpus.py``'s case files), the commits before the
case's revision are ranked by BM25 of their messages against the question (the
retriever's own query analysis and stemmer on both sides); the definitions those
commits changed are then scored by the similarity of the commits that changed them.
A definition is read from each diff hunk's header: the function line git prints after
``@@`` (its built-in drivers for Python, Ruby, Go, Rust, Java, Kotlin, C#, PHP and C/C++,
and the patterns below for JavaScript/TypeScript and Swift, which git has no driver
for).

It prints, per query class and language, how often a gold definition is among the 5
and 20 best-scored ones, and a gold file among the 5 best files; with
``--results-dir`` (a ``mined_corpus.py`` run's ``runs/reference``), how many of the
cases the retriever fails have a gold definition there. Nothing is fitted: it measures
the ceiling of a history signal before one is built (docs/tuning.md, "Repository
history").

Only the ancestors of each revision are read (the commit a case was mined from is its
revision's child, so never among them). Commits that touch more than ``--max-files``
files are skipped, and at most the ``--commits`` newest are kept. A mirror with missing
blobs stops ``git log -p``; the reader resumes after the commit it stopped in.

Usage::

    python benchmarks/history_potential.py --cases /work/corpus2/cases \\
        --repos-dir /work/clones --results-dir /work/corpus2/runs/reference
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from codegold.index.tokens import code_tokens
from codegold.model.cases import load_cases
from codegold.retrieve.lexindex import stem
from codegold.retrieve.query import STOPWORDS, analyze_query

_DRIVERS = {
    "python": ("py", "pyi"), "ruby": ("rb",), "golang": ("go",), "rust": ("rs",),
    "java": ("java",), "kotlin": ("kt", "kts"), "csharp": ("cs",), "php": ("php",),
    "cpp": ("c", "h", "cc", "cpp", "cxx", "hpp", "hh"),
    "cgjs": ("js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"), "cgswift": ("swift",),
}
# git's funcname patterns are POSIX extended; a leading "!" rejects a line.
_JS = "\n".join([
    r"!^[ \t]*(if|for|while|switch|catch|do|return|else|with|try|throw|new|await|yield)"
    r"([ \t(.;]|$)",
    r"^(export[ \t]+)?(default[ \t]+)?(declare[ \t]+)?(abstract[ \t]+)?(async[ \t]+)?"
    r"(function|class|interface|type|enum|namespace|const|let|var)[ \t].*$",
    r"^[ \t]*(export[ \t]+)?(async[ \t]+)?function[ \t*]+[A-Za-z_$].*$",
    r"^[ \t]{1,4}((static|async|get|set|public|private|protected|readonly|override|abstract)"
    r"[ \t]+)*[A-Za-z_$#][A-Za-z0-9_$]*[ \t]*(<[^>]*>)?\([^)]*\)[ \t]*(:[^{]*)?\{[ \t]*$",
])
_SWIFT = (r"^[ \t]*((@[A-Za-z]+|public|private|internal|open|fileprivate|static|final|override"
          r"|mutating|nonmutating|convenience|required|class|indirect|lazy)[ \t]+)*"
          r"(func|init|struct|enum|protocol|extension|subscript|class|actor|typealias)"
          r"([ \t(<?!]|$).*$")
_KEYWORD = re.compile(r"\b(?:def|func|fn|function|class|struct|module|interface|enum|trait|impl"
                      r"|object|fun|sub|protocol|extension|record|type|actor|namespace|const"
                      r"|let|var)\s+(?:\([^)]*\)\s*)?\*?([A-Za-z_$][\w$]*)")
_CALLED = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_CONTROL = frozenset(["if", "for", "while", "switch", "catch", "return", "else", "do", "with",
                      "try", "elif", "unless", "until", "foreach", "match", "when", "guard"])
_HEADER = "\x1e\x1eCOMMIT "
_Key = TypeVar("_Key", str, tuple[str, str])


def hunk_name(context: str) -> str | None:
    """The definition a hunk header's function line names, if any."""
    found = _KEYWORD.search(context) or _CALLED.search(context)
    name = found.group(1) if found else None
    return None if name in _CONTROL else name


def terms(text: str) -> list[str]:
    return [stem(t) for t in code_tokens(text)
            if len(t) > 1 and t not in STOPWORDS and not t.isdigit()]


class History:
    """Every non-merge commit of one repository: message terms, files and hunk names."""

    def __init__(self, git: Path, attributes: Path) -> None:
        self.parents: dict[str, list[str]] = {}
        for line in _git(git, "log", "--all", "--format=%H %P").splitlines():
            sha, *parents = line.split()
            self.parents[sha] = parents
        self.time: dict[str, int] = {}
        self.files: dict[str, list[str]] = {}
        self.names: dict[str, collections.Counter[tuple[str, str]]] = {}
        self.length: dict[str, int] = {}
        self.postings: dict[str, list[tuple[str, int]]] = collections.defaultdict(list)
        todo = _git(git, "rev-list", "--all", "--no-merges").split()
        config = ["-c", f"core.attributesFile={attributes}", "-c", f"diff.cgjs.xfuncname={_JS}",
                  "-c", f"diff.cgswift.xfuncname={_SWIFT}"]
        while todo:
            proc = subprocess.Popen(
                ["git", *config, "-C", str(git), "log", "--no-walk=unsorted", "--stdin", "-p",
                 "-U0", "--no-renames", "--format=%x1e%x1eCOMMIT %H %ct%n%B%x1f"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, errors="replace")
            assert proc.stdin is not None and proc.stdout is not None
            threading.Thread(target=_feed, args=(proc.stdin, list(todo)), daemon=True).start()
            last = self._read(proc.stdout)
            if proc.wait() == 0:
                break
            # A missing blob stopped git inside ``last``: go on after it.
            todo = todo[todo.index(last) + 1:] if last in todo else todo[1:]

    def _read(self, lines: Iterable[str]) -> str | None:
        sha: str | None = None
        message: list[str] = []
        reading = False
        path = ""
        for line in lines:
            if line.startswith(_HEADER):
                if sha is not None:
                    self._add_message(sha, message)
                _, sha, stamp = line[2:].split()
                self.time[sha], self.files[sha] = int(stamp), []
                self.names[sha] = collections.Counter()
                message, reading = [], True
            elif sha is None:
                continue
            elif reading:
                head, mark, _ = line.partition("\x1f")
                message.append(head)
                reading = not mark
            elif line.startswith("diff --git "):
                path = line.rstrip("\n").split(" b/", 1)[-1]
                self.files[sha].append(path)
            elif line.startswith("@@") and path:
                parts = line.split("@@", 2)
                name = hunk_name(parts[2]) if len(parts) == 3 else None
                if name:
                    self.names[sha][(path, name)] += 1
        if sha is not None:
            self._add_message(sha, message)
        return sha

    def _add_message(self, sha: str, message: list[str]) -> None:
        counts = collections.Counter(terms("".join(message)))
        self.length[sha] = sum(counts.values())
        for term, count in counts.items():
            self.postings[term].append((sha, count))

    def usable(self, revision: str, commits: int, max_files: int) -> set[str]:
        seen: set[str] = set()
        stack = [revision]
        while stack:
            sha = stack.pop()
            if sha not in seen:
                seen.add(sha)
                stack.extend(self.parents.get(sha, ()))
        kept = sorted((s for s in seen if 0 < len(self.files.get(s, ())) <= max_files),
                      key=lambda s: -self.time[s])
        return set(kept[:commits])

    def rank(self, revision: str, question: list[str], *, commits: int, max_files: int,
             top: int) -> tuple[list[tuple[str, str]], list[str]]:
        """The changed definitions and files of the ``top`` commits most like the question."""
        usable = self.usable(revision, commits, max_files)
        average = sum(self.length[s] for s in usable) / max(1, len(usable))
        scores: dict[str, float] = collections.defaultdict(float)
        for term in set(question):
            hits = [(s, n) for s, n in self.postings.get(term, ()) if s in usable]
            idf = math.log(1 + (len(usable) - len(hits) + 0.5) / (len(hits) + 0.5))
            for sha, count in hits:
                norm = 1.2 * (0.25 + 0.75 * self.length[sha] / average)
                scores[sha] += idf * count * 2.2 / (count + norm)
        names: dict[tuple[str, str], float] = collections.defaultdict(float)
        files: dict[str, float] = collections.defaultdict(float)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:top]
        for sha, score in best:
            total = sum(self.names[sha].values())
            for key, count in self.names[sha].items():
                names[key] += score * count / total
            for path in self.files[sha]:
                files[path] += score / len(self.files[sha])
        return _best(names)[:20], _best(files)[:5]


def _best(scored: dict[_Key, float]) -> list[_Key]:
    """Keys by score, best first, ties by key."""
    return [key for key, _ in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))]


def _feed(pipe: IO[str], items: list[str]) -> None:
    try:
        pipe.write("\n".join(items) + "\n")
        pipe.close()
    except BrokenPipeError:
        pass


def _git(git: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(git), *args], capture_output=True, text=True,
                          errors="replace", check=True).stdout


def _attributes(folder: Path) -> Path:
    path = folder / "attributes"
    path.write_text("".join(f"*.{ext} diff={driver}\n" for driver, exts in _DRIVERS.items()
                            for ext in exts))
    return path


def _failing(results_dir: Path | None, name: str) -> set[str] | None:
    if results_dir is None:
        return None
    path = results_dir / f"{name}.results.json"
    if not path.is_file():
        return None
    return {c["case_id"] for c in json.loads(path.read_text())["cases"] if c["status"] == "fail"}


def _rows(args: argparse.Namespace, attributes: Path) -> Iterator[tuple[str, str, dict[str, bool]]]:
    for case_file in sorted(args.cases.glob("*.yaml")):
        cases = [c for c in load_cases(str(case_file)).cases if c.repository]
        if not cases:
            continue
        histories: dict[str, History | None] = {}
        failing = _failing(args.results_dir, case_file.stem)
        for case in cases:
            repository = str(case.repository)
            if repository not in histories:
                git = args.repos_dir / repository.replace("/", "+")
                histories[repository] = History(git, attributes) if git.is_dir() else None
                if not git.is_dir():
                    print(f"{case_file.name}: no clone at {git}; its cases are skipped",
                          file=sys.stderr)
            history = histories[repository]
            if history is None:
                continue
            targets = [t for g in case.groups for t in g.any_of]
            definitions = {(t.file, (t.symbol or "").replace("::", ".").rsplit(".", 1)[-1])
                           for t in targets}
            gold_files = {t.file for t in targets}
            question = [stem(t) for t in analyze_query(case.query).terms]
            names, files = history.rank(case.revision, question, commits=args.commits,
                                        max_files=args.max_files, top=args.top)
            found = {"definition@5": bool(definitions & set(names[:5])),
                     "definition@20": bool(definitions & set(names)),
                     "file@5": bool(gold_files & set(files))}
            if failing is not None:
                found["failing"] = case.id in failing
            for key in (case.query_class, case.tags.get("language", "?"), "all"):
                yield key, case.id, found
        print(f"{case_file.stem}: {len(cases)} cases", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, required=True,
                        help="folder of mined case files (mined_corpus.py's cases/)")
    parser.add_argument("--repos-dir", type=Path, required=True,
                        help="clones or bare mirrors named owner+name")
    parser.add_argument("--results-dir", type=Path,
                        help="a mined_corpus.py run's runs/reference: adds the failing cases")
    parser.add_argument("--commits", type=int, default=5000,
                        help="newest commits before each revision that are read (5000)")
    parser.add_argument("--max-files", type=int, default=15,
                        help="commits touching more files are skipped (15)")
    parser.add_argument("--top", type=int, default=50,
                        help="most similar commits whose changes are scored (50)")
    args = parser.parse_args(argv)
    table: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    with tempfile.TemporaryDirectory() as tmp:
        for key, _case, found in _rows(args, _attributes(Path(tmp))):
            row = table[key]
            row["cases"] += 1
            for name, value in found.items():
                row[name] += value
                if name != "failing" and found.get("failing"):
                    row[f"failing, {name}"] += value
    columns = ["cases", "definition@5", "definition@20", "file@5"]
    if args.results_dir is not None:
        columns += ["failing", "failing, definition@5", "failing, definition@20"]
    print("| slice | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for key in sorted(table, key=lambda k: (k != "all", k)):
        row = table[key]
        cells = [str(row["cases"])] + [
            f"{row[c]} ({100 * row[c] / max(1, row['cases']):.1f} %)" for c in columns[1:]]
        print(f"| {key} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
