"""An MCP code-search server for the tests, written with the SDK's server side.

``python mcp_fake_server.py MODE [PORT]``: stdio, or Streamable HTTP on 127.0.0.1:PORT.

- ``structured``: ``search_code(query, limit)`` returns structured hits: ``src/<first
  query word>.py`` lines 1-2, then filler; also a ``read_file`` tool (not search-like).
- ``grep``: ``grep(pattern)`` prints ``./src/<word>.py:1:def <word>():`` lines.
- ``disk``: ``search(query, root)`` greps the files under ``root`` for the query's words
  (longer than 3 letters) and prints ``ABSOLUTE_PATH:LINE:TEXT`` lines.
- ``count``: ``search(query)`` answers JSON text naming this process and its call count.
- ``crash-after-N``: ``search(query)`` answers N calls, then the process exits (status 7).
- ``failing``: ``search(query)`` raises (a tool error, ``isError``).
- ``two``: ``search_code`` and ``find_symbol`` (two search-like tools).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

MODE = sys.argv[1]
app = MCPServer("codegold-test-server")
CALLS = {"n": 0}


class Hit(BaseModel):
    path: str
    start_line: int
    end_line: int
    score: float


def _first(query: str) -> str:
    return query.split()[0].lower()


if MODE in ("structured", "two"):

    @app.tool()
    def search_code(query: str, limit: int = 10) -> list[Hit]:
        """Search the code."""
        hits = [Hit(path=f"src/{_first(query)}.py", start_line=1, end_line=2, score=3.0)]
        hits += [Hit(path=f"src/other{i}.py", start_line=1, end_line=1, score=1.0)
                 for i in range(limit)]
        return hits[:limit]

    @app.tool()
    def read_file(path: str) -> str:
        """Read a file."""
        return ""

if MODE == "two":

    @app.tool()
    def find_symbol(name: str) -> str:
        """Find a symbol."""
        return ""

if MODE == "grep":

    @app.tool()
    def grep(pattern: str) -> str:
        """Grep the code."""
        word = _first(pattern)
        return f"./src/{word}.py:1:def {word}():\n./src/{word}.py:2:    pass\nsrc/x.py:9:other"

if MODE == "disk":

    @app.tool()
    def search(query: str, root: str) -> str:
        """Grep the files under root."""
        words = [w for w in re.findall(r"\w+", query) if len(w) > 3]
        lines = []
        for path in sorted(Path(root).rglob("*")):
            if path.is_file():
                for number, text in enumerate(path.read_text().splitlines(), start=1):
                    if any(word in text for word in words):
                        lines.append(f"{path}:{number}:{text}")
        return "\n".join(lines)

if MODE == "count":

    @app.tool()
    def search(query: str) -> str:
        """Count calls."""
        CALLS["n"] += 1
        return json.dumps({"results": [{"file": f"pid-{os.getpid()}.py", "line": CALLS["n"]}]})

if MODE.startswith("crash-after-"):
    LIMIT = int(MODE.rsplit("-", 1)[1])

    @app.tool()
    def search(query: str) -> str:
        """Answer, then crash."""
        CALLS["n"] += 1
        if CALLS["n"] > LIMIT:
            sys.stderr.write("fake server: giving up\n")
            sys.stderr.flush()
            os._exit(7)
        return f"src/{_first(query)}.py:1:def {_first(query)}():"

if MODE == "failing":

    @app.tool()
    def search(query: str) -> str:
        """Always fails."""
        raise ValueError("index is offline")


if __name__ == "__main__":
    if len(sys.argv) > 2:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
