"""terminal_safe, rich_safe and the Markdown escaper, checked against unicodedata and a real
CommonMark renderer (markdown-it-py, with GitHub tables)."""

from __future__ import annotations

import html
import io
import re
import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from codegold.plumbing.text import md_code, md_fence, md_text, rich_safe, rich_text, terminal_safe

UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")


def test_every_control_and_format_character_is_made_visible() -> None:
    missed = [hex(code) for code in range(sys.maxunicode + 1)
              if unicodedata.category(chr(code)) in UNSAFE_CATEGORIES
              and terminal_safe(chr(code)) == chr(code)]
    assert missed == []


def test_escapes_are_visible_and_single_line() -> None:
    assert terminal_safe("a\x1b]52;c;SGVsbG8=\x07b") == "a\\x1b]52;c;SGVsbG8=\\x07b"
    assert terminal_safe("x\u202ey\u2066") == "x\\u202ey\\u2066"
    assert terminal_safe("one\ntwo\tthree\r") == "one\\x0atwo\\x09three\\x0d"
    assert terminal_safe("one\r\ntwo\tx", multiline=True) == "one\ntwo\tx"
    assert terminal_safe("\x9b31m", multiline=True) == "\\x9b31m"
    assert terminal_safe("\udcff") == "\\udcff"  # a surrogate-escaped byte


@given(st.text(st.characters(exclude_categories=tuple(UNSAFE_CATEGORIES))))  # type: ignore[arg-type]
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert terminal_safe(text) == text


@given(st.text(max_size=60))
def test_rich_never_parses_untrusted_text_as_markup(text: str) -> None:
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, width=10_000, color_system=None, highlight=False)
    console.print(f"[bold]{rich_safe(text)}[/bold]", end="")
    console.print(rich_text(text), end="")
    assert out.getvalue() == terminal_safe(text) * 2


def _cell_html(cell: str) -> str:
    rendered = MD.render(f"| head |\n|---|\n| {cell} |\n")
    bodies = re.findall(r"<td>(.*?)</td>", rendered, re.S)
    assert len(bodies) == 1, rendered
    assert "<tr>" in rendered and rendered.count("<tr>") == 2, rendered
    return bodies[0]


PIECES = [*"ab <>&|\\`*_[]()!#-+=.:~$@'\"\n\t\r\x1b\u202e1",
          "![x](http://e/i.png)", "<img src=x>", "&amp;", "```", "1. ", "- ", "[a]: /u"]
ALPHABET = st.lists(st.sampled_from(PIECES), max_size=15).map("".join)


@settings(max_examples=300)
@given(ALPHABET)
def test_md_text_renders_as_the_literal_text(text: str) -> None:
    expected = terminal_safe(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    for body in (_cell_html(md_text(text)), MD.renderInline(md_text(text))):
        assert "<" not in body.replace("&lt;", ""), body  # no tag of any kind
        assert html.unescape(body).strip() == expected.strip()
    paragraph = MD.render("- " + md_text(text))
    assert paragraph.count("<li>") == 1 and "<ol" not in paragraph and "<h" not in paragraph


@settings(max_examples=300)
@given(ALPHABET)
def test_md_code_is_one_code_span_holding_the_text(text: str) -> None:
    expected = terminal_safe(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))
    for body in (MD.renderInline(md_code(text)), _cell_html(md_code(text, cell=True))):
        spans = re.findall(r"<code>(.*?)</code>", body, re.S)
        assert len(spans) == 1 and body.startswith("<code>") and body.endswith("</code>"), body
        assert html.unescape(spans[0]) == (expected or " ")


@settings(max_examples=200)
@given(ALPHABET)
def test_md_fence_cannot_be_closed_early(text: str) -> None:
    rendered = MD.render(md_fence(text) + "\n\nafter")
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", rendered, re.S)
    assert len(blocks) == 1, rendered
    assert html.unescape(blocks[0]) == terminal_safe(text, multiline=True) + "\n"
    assert rendered.endswith("<p>after</p>\n")
