"""The walk over a checkout: each file chunked and read by ctags (then a second and a
rewritten time where needed), and the figures printed per language."""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import tempfile
import time
from pathlib import Path

from codegold.index import chunk_file
from codegold.index.grammars import parser as ts_parser
from codegold.model.languages import language_of
from ctags_measure.readings import (
    REWRITTEN_LANGUAGES,
    javascript_view,
    owner_name,
    plain_javascript,
    read_alone,
    spread_overloads,
    syntax_containers,
    without_type_parameters,
)
from ctags_measure.rules import (
    CODEGOLD_KINDS,
    GTEST_MACROS,
    LINE_TOLERANCE,
    comment_only,
    compared,
    measured_files,
    test_looking,
)
from ctags_measure.tags import ctags_extensions, definition_tags, in_ranges


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ctags_measure", description="Definition recall and precision of codegold's "
        "structural chunker against Universal Ctags.")
    parser.add_argument("path", type=Path, help="local directory to measure (a checkout)")
    parser.add_argument("--language", help="only this language (python, javascript, ...)")
    parser.add_argument("--span", action="store_true",
                        help="count a tag found when a same-named definition's span holds it")
    parser.add_argument("--misses", type=int, default=5, help="misses to list per language")
    args = parser.parse_args(argv)
    if shutil.which("ctags") is None:
        print("ctags not found: apt-get install universal-ctags", file=sys.stderr)
        return 2
    stats: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    misses: dict[str, list[str]] = collections.defaultdict(list)
    extras: dict[str, list[str]] = collections.defaultdict(list)
    reread: dict[str, list[str]] = collections.defaultdict(list)
    rewritten: dict[str, list[str]] = collections.defaultdict(list)
    read_by_ctags = ctags_extensions()
    scratch = Path(tempfile.mkdtemp(prefix="languages-"))
    for path in measured_files(args.path, args.language):
        rel = path.relative_to(args.path).as_posix()
        language = language_of(rel) or "?"
        if path.suffix.lower() not in read_by_ctags:
            continue  # ctags has no parser for it (TSX): nothing to compare with
        data = path.read_bytes()
        started = time.perf_counter()
        result = chunk_file(rel, data)
        elapsed = time.perf_counter() - started
        lines = data.decode("utf-8", "replace").splitlines()
        ours = [d for d in result.definitions if d.kind in CODEGOLD_KINDS]
        by_name: dict[str, list[tuple[int, int, int]]] = collections.defaultdict(list)
        for d in ours:
            by_name[compared(d.name)].append((d.header_line, d.start_line, d.end_line))
            if d.role == "test":
                by_name["<test>"].append((d.header_line, d.start_line, d.end_line))
        owners = {(owner_name(d), d.header_line) for d in ours if owner_name(d)}
        root = ts_parser(language).parse(data).root_node  # one parse serves every reading
        tags, confirming = definition_tags(path, language, data, root)
        if "minified" in (result.entry.reason or ""):
            # Packed code: every definition on one line, where ctags' line numbers cannot
            # tell a nested function from a top-level one. Counted apart.
            stats[language]["packed_files"] += 1
            stats[language]["packed_ctags"] += len(tags)
            stats[language]["packed_codegold"] += len(ours)
            continue
        near: dict[str, list[int]] = collections.defaultdict(list)
        for name, line in confirming:
            near["<test>" if name in GTEST_MACROS else name].append(line)
        counts = stats[language]
        counts["files"] += 1
        counts["ctags"] += len(tags)
        counts["codegold"] += len(ours)
        counts["microseconds"] += int(elapsed * 1e6)
        counts["lines"] += len(lines)
        counts["chunks"] += len(result.chunks)
        counts["comment_only"] += sum(comment_only(c.text, language) for c in result.chunks)
        for d in ours:
            if d.kind in ("function", "method") and test_looking(
                    lines, rel, d.name, d.header_line, d.start_line):
                counts["test_looking"] += 1
                counts["test_role"] += d.role == "test"
        for name, line, kind in tags:
            hit = any(abs(h - line) <= LINE_TOLERANCE or (args.span and s <= line <= e)
                      for h, s, e in by_name["<test>" if name in GTEST_MACROS else name]
                      ) or (name, line) in owners
            counts["found"] += hit
            if not hit:
                counts[f"miss:{kind}"] += 1
                misses[language].append(f"{rel}:{line} {kind} {name}")
        confirmed = [any(abs(ln - d.header_line) <= LINE_TOLERANCE
                         or (args.span and d.start_line <= ln <= d.end_line)
                         for ln in near[compared(d.name)] + (near["<test>"] if d.role == "test" else []))
                     or (owner_name(d), d.header_line) in confirming for d in ours]
        spread_overloads(ours, confirmed)
        containers = syntax_containers(language, root) if not all(confirmed) else []
        objects, untyped = (javascript_view(language, data, root) if not all(confirmed)
                            else ([], []))
        plain = without_type_parameters(language, data, lines, root) if not all(confirmed) else []
        for i, d in enumerate(ours):
            if not confirmed[i] and (
                    read_alone(path, plain, d, ours, scratch, containers)
                    or (untyped and read_alone(path, untyped, d, ours, scratch, containers))
                    or (in_ranges(d.header_line, objects)
                        and read_alone(path, untyped, d, ours, scratch, containers,
                                   parser="JavaScript"))):
                confirmed[i] = True
                counts["second_reading"] += 1
                reread[language].append(f"{rel}:{d.header_line} {d.kind} {d.qualified}")
        spread_overloads(ours, confirmed)
        for i, d in enumerate(ours):
            if confirmed[i]:
                continue
            rewrite = plain_javascript(root, data, d) if language == "javascript" else None
            if (rewrite is not None and read_alone(path, rewrite[0], d, ours, scratch, containers,
                                               wanted=rewrite[1])) or (
                    language in REWRITTEN_LANGUAGES
                    and read_alone(path, lines, d, ours, scratch, containers, rewrite=True)):
                confirmed[i] = True
                counts["rewritten_reading"] += 1
                rewritten[language].append(f"{rel}:{d.header_line} {d.kind} {d.qualified}")
        spread_overloads(ours, confirmed)
        for d, ok in zip(ours, confirmed, strict=True):
            counts["confirmed"] += ok
            if not ok:
                extras[language].append(f"{rel}:{d.header_line} {d.kind} {d.qualified}")
    for language, counts in sorted(stats.items()):
        recall = counts["found"] / counts["ctags"] if counts["ctags"] else 1.0
        precision = counts["confirmed"] / counts["codegold"] if counts["codegold"] else 1.0
        plain_share = ((counts["confirmed"] - counts["second_reading"]
                        - counts["rewritten_reading"]) / counts["codegold"]
                       if counts["codegold"] else 1.0)
        print(f"{language:11} files {counts['files']:5}  ctags {counts['ctags']:6}  "
              f"codegold {counts['codegold']:6}  recall {recall:6.1%}  "
              f"precision {precision:6.1%}  (second reading {counts['second_reading']}, "
              f"rewritten {counts['rewritten_reading']}; plain ctags {plain_share:6.1%})")
        tests = counts["test_role"] / counts["test_looking"] if counts["test_looking"] else 1.0
        comments = counts["comment_only"] / counts["chunks"] if counts["chunks"] else 0.0
        print(f"{'':11} lines {counts['lines']:7}  tests {tests:6.1%} of "
              f"{counts['test_looking']}  comment-only {comments:6.1%} of {counts['chunks']}  "
              f"time {counts['microseconds'] / 1e6:6.2f}s")
        if counts["packed_files"]:
            print(f"{'':11} packed files {counts['packed_files']} left out (ctags "
                  f"{counts['packed_ctags']} tags, codegold {counts['packed_codegold']} "
                  "definitions)")
        kinds = sorted(((k[5:], v) for k, v in counts.items() if k.startswith("miss:")),
                       key=lambda item: -item[1])
        if kinds:
            print("    misses by kind: " + ", ".join(f"{k} {v}" for k, v in kinds[:6]))
        for entry in misses[language][:args.misses]:
            print(f"    missed {entry}")
        for entry in extras[language][:args.misses]:
            print(f"    unconfirmed {entry}")
        for entry in reread[language][:args.misses]:
            print(f"    confirmed by the second reading {entry}")
        for entry in rewritten[language][:args.misses]:
            print(f"    confirmed by the rewritten reading {entry}")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0

