"""Markdown and JUnit against golden files; HTML structure, self-containment and escaping."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sample import XSS_QUERY, sample_report

from codegold.report import render_html, render_junit, render_markdown

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("CODEGOLD_UPDATE_GOLDEN") == "1"


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with CODEGOLD_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_markdown_matches_golden() -> None:
    _golden("summary.md", render_markdown(sample_report()))


def test_junit_matches_golden_and_parses() -> None:
    text = render_junit(sample_report())
    _golden("junit.xml", text)
    root = ET.fromstring(text.encode("utf-8"))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == 6
    by_name = {c.get("name"): c for c in cases}
    assert by_name["session-expiry"].find("failure") is None
    below = by_name["refresh-below-cutoff"].find("failure")
    assert below is not None
    assert below.get("message") == "below_cutoff: first relevant rank 7 (past cutoff 5)"
    assert by_name["stale-index"].find("error") is not None
    assert by_name["xss</script><b>case"].find("failure") is not None
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "4", "1")


def test_renderers_are_deterministic() -> None:
    assert render_html(sample_report()) == render_html(sample_report())


def test_html_is_self_contained() -> None:
    page = render_html(sample_report())
    # The only URL allowed is the SVG namespace name, which is never fetched.
    urls = set(re.findall(r"(?:https?:)?//[\w.-]+", page))
    assert urls <= {"http://www.w3.org"}, urls
    assert "<link" not in page and " src=" not in page.replace(' src=x', '')
    assert "Content-Security-Policy" in page


def test_embedded_data_cannot_break_out_and_round_trips() -> None:
    page = render_html(sample_report())
    start = page.index('<script id="cg-data" type="application/json">') + len(
        '<script id="cg-data" type="application/json">')
    end = page.index("</script>", start)
    blob = page[start:end]
    assert "<" not in blob and ">" not in blob
    data = json.loads(blob)
    queries = {c["id"]: c["query"] for c in data["cases"]}
    assert queries["xss</script><b>case"] == XSS_QUERY
    # Outside the data element, untrusted text appears only escaped.
    rest = page[:start] + page[end:]
    assert "<script>alert" not in rest and "<b>not bold" not in rest
    assert "search &lt;team&gt;" in rest


def test_overview_shows_figures_causes_and_slices() -> None:
    page = render_html(sample_report())
    for text in ("Gate failed", "below_cutoff", "forbidden_source", "tag:area=auth",
                 "Hit rate by slice", "First relevant rank", "Compared with base.json",
                 "retrieval-team", "<svg"):
        assert text in page, text


@pytest.mark.parametrize("cases", [0])
def test_empty_run_renders(cases: int) -> None:
    from codegold.report import ReportInput
    from runfactory import make_run

    report = ReportInput(results=make_run([]))
    assert "0 of 0" not in render_html(report)  # counts are computed in the browser
    assert render_markdown(report).startswith("# codegold report")
    ET.fromstring(render_junit(report).encode("utf-8"))
