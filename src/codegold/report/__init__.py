"""Renderers over one report model: a self-contained HTML page, Markdown and JUnit XML.

Imports no engine (:mod:`codegold.model` only): the caller hands over the run, and
optionally a comparison, diagnoses and a gate verdict as the model records they are.
"""

from collections.abc import Callable

from codegold.report.html import render_html
from codegold.report.junit import render_junit
from codegold.report.markdown import render_markdown
from codegold.report.model import ReportInput

RENDERERS: dict[str, Callable[[ReportInput], str]] = {
    "html": render_html,
    "markdown": render_markdown,
    "junit": render_junit,
}

__all__ = [
    "RENDERERS",
    "ReportInput",
    "render_html",
    "render_junit",
    "render_markdown",
]
