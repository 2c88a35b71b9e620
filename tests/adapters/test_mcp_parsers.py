"""The text shapes code-search tools print, read into spans; and argument templates."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codegold.adapters.mcp.parsers import Hit, ToolAnswer, get_parser, hits_from_json
from codegold.adapters.mcp.settings import parse_template, query_terms, render, terms_regex
from codegold.errors import InputError, RetrieverError


def _spans(parser: str, text: str, structured: object = None) -> list[tuple[str, int | None, int | None]]:
    hits = get_parser(parser)(ToolAnswer(text=text, structured=structured))
    return [(h.file, h.start_line, h.end_line) for h in hits]


def test_grep_lines_and_vimgrep_columns() -> None:
    text = ("src/a.py:3:def login():\nsrc/a.py:4:    return 1\nsrc/a.py:9:x = 1\n"
            "lib/b.ts:12:7:export function f() {\nnot a match line\n")
    assert _spans("grep", text) == [("src/a.py", 3, 4), ("src/a.py", 9, 9), ("lib/b.ts", 12, 12)]


def test_range_headers_with_their_bodies() -> None:
    text = ("src/a.py:10-20\n    def f():\n        pass\nsrc/b.py#L5-L7\nbody\n"
            "- src/c.go (lines 3-4)\nsrc/d.rs:8\n")
    hits = get_parser("ranges")(ToolAnswer(text=text))
    assert [(h.file, h.start_line, h.end_line) for h in hits] == [
        ("src/a.py", 10, 20), ("src/b.py", 5, 7), ("src/c.go", 3, 4), ("src/d.rs", 8, 8)]
    assert hits[0].text == "    def f():\n        pass"


def test_markdown_fences_under_a_path_heading() -> None:
    text = ("## src/a.py:10-12\n```python\ndef f():\n    pass\n```\n"
            "**src/b.py**\n```\n5: def g():\n6:     return 2\n```\n"
            "### `README.md`\n```\nwhole file\n```\n")
    assert _spans("markdown", text) == [("src/a.py", 10, 12), ("src/b.py", 5, 6),
                                        ("README.md", None, None)]


def test_json_in_text_and_in_structured_content() -> None:
    text = 'Found 2 results:\n[{"path": "a.py", "line": 3}, {"file_path": "b.py", "startLine": 2, "endLine": 9, "score": 0.5}]'
    assert _spans("json", text) == [("a.py", 3, 3), ("b.py", 2, 9)]
    printed = "{'matches': [{'file': '/r/a.py', 'line': 19, 'content': 'x'}], 'n': True}"
    assert _spans("json", printed) == [("/r/a.py", 19, 19)]
    assert _spans("json", "{'f': __import__('os').system('true')}") == []
    grouped = {"results": [{"file": "c.py", "matches": [{"line": 4}, {"line": 8}]}]}
    assert _spans("structured", "", grouped) == [("c.py", 4, 4), ("c.py", 8, 8)]
    assert hits_from_json({"result": ["x.py", "y.py"]}) == [Hit(file="x.py"), Hit(file="y.py")]
    ranged = {"items": [{"uri": "d.py", "range": {"start": {"line": 2}, "end": {"line": 5}}}]}
    assert _spans("structured", "", ranged) == [("d.py", 2, 5)]


def test_auto_prefers_structured_hits_then_the_text_shapes() -> None:
    assert _spans("auto", "src/a.py:3:x", {"result": "src/a.py:3:x"}) == [("src/a.py", 3, 3)]
    assert _spans("auto", "", {"hits": [{"path": "s.py", "line": 1}]}) == [("s.py", 1, 1)]
    assert _spans("auto", "## a.py:1-2\n```\nx\n```\n") == [("a.py", 1, 2)]
    assert _spans("auto", "a.py:1-2\nbody") == [("a.py", 1, 2)]
    assert _spans("paths", "src/a.py\n- src/b.py\n\nnot a path here\n") == [
        ("src/a.py", None, None), ("src/b.py", None, None)]


def test_a_parser_of_your_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "myparse.py").write_text(
        "def parse(result):\n"
        "    return [{'file': l.split('@')[0], 'start_line': int(l.split('@')[1])}\n"
        "            for l in result['text'].splitlines()]\n"
        "def broken(result):\n    return 'nope'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("myparse", None)
    assert _spans("myparse:parse", "a.py@3\nb.py@4") == [("a.py", 3, 3), ("b.py", 4, 4)]
    with pytest.raises(RetrieverError, match="returned str"):
        _spans("myparse:broken", "x")
    with pytest.raises(InputError, match="no function"):
        get_parser("myparse:missing")


def test_templates_keep_types_drop_absent_fields_and_escape_braces() -> None:
    template = parse_template('{"query": "{query}", "limit": "{k}", "file": "{open_file}", '
                              '"note": "in {repository} {{literal}}", "paths": ["{checkout}"]}',
                              setting="mcp_args")
    fields = {"query": "login", "k": 10, "open_file": None, "repository": "acme/shop",
              "checkout": "/tmp/x"}
    assert render(template, fields) == {"query": "login", "limit": 10,
                                        "note": "in acme/shop {literal}", "paths": ["/tmp/x"]}
    with pytest.raises(InputError, match=r"unknown field \{nope\}"):
        parse_template('{"q": "{nope}"}', setting="mcp_args")


def test_query_terms_for_tools_that_take_a_pattern() -> None:
    terms = query_terms("How does Flask.make_response unpack a tuple returned from a view?")
    assert terms == ["Flask.make_response", "unpack", "tuple", "returned", "view"]
    assert terms_regex(terms[:2]) == r"Flask\.make_response|unpack"



HUGE = "9" * 5000  # past Python's 4,300-digit limit on int(str)


@pytest.mark.parametrize("text", [
    f"src/a.py:{HUGE}:x\nsrc/b.py:3:y", f"src/a.py:{HUGE}-{HUGE}\nbody\nsrc/b.py:3", f"src/a.py:1-{HUGE}",
    f"src/a.py#L{HUGE}-L{HUGE}", f"- src/a.py (lines {HUGE}-4)", f"## src/a.py:{HUGE}-1\n```\nx\n```\n",
    f"**src/a.py**\n```\n{HUGE}: x\n```\n", f'[{{"path": "a.py", "line": "{HUGE}"}}]',
    '[{"path": "a.py", "line": "\u00b2"}]', '{"path": "a.py", "range": ["\u00b2", "4"]}',
    "[" * 100_000 + "]" * 100_000, "{'a': " * 5000 + "1" + "}" * 5000])
@pytest.mark.parametrize("parser", ["auto", "grep", "ranges", "markdown", "json"])
def test_numbers_no_int_can_hold_and_deep_json_read_as_no_line(parser: str, text: str) -> None:
    """A hostile server's 5,000-digit line number, a superscript that ``str.isdigit``
    takes, or JSON nested past the recursion limit: no line (or no hit), never a
    ValueError or RecursionError that ends the whole run."""
    for start, end in [(h.start_line, h.end_line) for h in get_parser(parser)(ToolAnswer(text=text))]:
        assert start is None or start < 10**12
        assert end is None or end < 10**12
    structured = {"results": [{"path": "a.py", "line": HUGE}, {"path": "b.py", "line": "\u00b2"},
                              {"path": "c.py", "range": {"start": {"line": "\u00b2"}}}]}
    assert _spans("structured", "", structured) == [("a.py", None, None), ("b.py", None, None),
                                                    ("c.py", None, None)]


@pytest.mark.parametrize("line", ["(" * 200_000, "a/" * 200_000, "**a" * 200_000,
                                  "## " + "a." * 200_000, "a " * 200_000])
def test_a_long_line_is_read_in_linear_time(line: str) -> None:
    """One line of 400,000+ characters without the colon a hit needs: each parser reads
    it at once (the grep pattern backtracked over every split of it: minutes here, hours
    at the 64 MiB answer cap). Timed by the test run's timeout, not asserted."""
    for name in ("auto", "grep"):
        assert _spans(name, line + "\nsrc/a.py:3:x\n")[-1] == ("src/a.py", 3, 3)
    assert _spans("ranges", line + "\nsrc/a.py:3-4\n")[-1] == ("src/a.py", 3, 4)
    assert _spans("markdown", line + "\n## src/a.py:3-4\n```\nx\n```\n")[-1] == ("src/a.py", 3, 4)
