#!/usr/bin/env python3
"""A plain baseline retriever: BM25 over fixed 40-line windows of every text file.

No chunker, no symbols, no rerank: each file of the request's revision is cut into
windows of 40 lines (1-40, 41-80, ...) and ranked by BM25 (k1 1.2, b 0.75) over
lower-cased identifier parts. Answers file + line windows, so run it with ``--resolve``.
The files are read from git objects of the request's revision with codegold's own
reader (no checkout); one corpus is kept per revision.

    windows_bm25.py --serve REPO      # command+jsonl: one JSON request per line
    windows_bm25.py --once REPO       # command: one request on stdin
    windows_bm25.py --http PORT REPO  # http://127.0.0.1:PORT/

REPO is a clone, or a folder of clones named owner+name (as ``codegold run --repo``).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from codegold.index.gitsnap import GitSnapshot
from codegold.index.many import clone_for

WINDOW = 40
MAX_FILE = 512 * 1024
_WORD = re.compile(r"[A-Za-z0-9]+")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text: str) -> list[str]:
    out = []
    for word in _WORD.findall(text):
        lowered = word.lower()
        out.append(lowered)
        parts = [p.lower() for p in _PARTS.findall(word)]
        if len(parts) > 1:
            out.extend(parts)
    return out


class Corpus:
    def __init__(self, repo: Path, revision: str) -> None:
        snapshot = GitSnapshot.open(repo, revision)
        entries = [e for e in snapshot.entries()
                   if e.object_type == "blob" and e.mode not in ("120000", "160000")
                   and (e.size or 0) <= MAX_FILE]
        paths: dict[str, list[str]] = {}
        for entry in entries:
            paths.setdefault(entry.sha, []).append(entry.path)
        self.windows: list[tuple[str, int, int]] = []
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for sha, data in snapshot.blobs(list(paths)):
            if b"\0" in data[:8192]:
                continue
            lines = data.decode("utf-8", "replace").splitlines()
            for path in paths[sha]:
                for start in range(0, max(len(lines), 1), WINDOW):
                    counts = Counter(tokens("\n".join(lines[start:start + WINDOW]) + " " + path))
                    row = len(self.windows)
                    self.windows.append((path, start + 1, min(start + WINDOW, max(len(lines), 1))))
                    self.lengths.append(sum(counts.values()))
                    for term, tf in counts.items():
                        self.postings.setdefault(term, []).append((row, tf))
        self.average = sum(self.lengths) / max(len(self.lengths), 1)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        scores: dict[int, float] = {}
        total = len(self.windows)
        for term in set(tokens(query)):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for row, tf in posting:
                norm = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * self.lengths[row] / self.average))
                scores[row] = scores.get(row, 0.0) + idf * norm
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]


class Retriever:
    def __init__(self, repo: str) -> None:
        self.repo = repo
        self.corpora: dict[str, Corpus] = {}

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        revision = request["revision"]
        corpus = self.corpora.get(revision)
        if corpus is None:
            name = request.get("repository")
            clone = (clone_for(self.repo, name) if name else None) or Path(self.repo)
            corpus = self.corpora[revision] = Corpus(clone, revision)
        ranked = []
        for row, score in corpus.search(request["query"], int(request["k"])):
            path, start, end = corpus.windows[row]
            ranked.append({"chunk_id": f"{path}:{start}-{end}", "file": path,
                           "start_line": start, "end_line": end, "revision": revision,
                           "score": round(score, 4)})
        return {"format": 1, "ranked": ranked}


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--serve":
        retriever = Retriever(argv[1])
        for line in sys.stdin:
            print(json.dumps(retriever.answer(json.loads(line))), flush=True)
        return 0
    if len(argv) == 2 and argv[0] == "--once":
        json.dump(Retriever(argv[1]).answer(json.load(sys.stdin)), sys.stdout)
        return 0
    if len(argv) == 3 and argv[0] == "--http":
        retriever = Retriever(argv[2])

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                data = json.dumps(retriever.answer(json.loads(body))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer(("127.0.0.1", int(argv[1])), Handler).serve_forever()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
