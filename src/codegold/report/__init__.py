"""Renderers over one report model: a self-contained HTML page, Markdown and JUnit XML.

Imports no engine (:mod:`codegold.model` only): the caller hands over the run, and
optionally a comparison, diagnoses and a gate verdict as the model records they are.
"""

import functools
from collections.abc import Callable

from codegold.plumbing.secrets import redact_struct, redact_text
from codegold.report.html import render_html
from codegold.report.junit import render_junit
from codegold.report.markdown import render_markdown
from codegold.report.model import ReportInput


def _redacting(render: Callable[[ReportInput], str]) -> Callable[[ReportInput], str]:
    """``render`` over the report with every string in it redacted (excerpts, queries and
    errors came from outside), and the page redacted again on the way out."""

    @functools.wraps(render)
    def redacted(report: ReportInput) -> str:
        return redact_text(render(redact_struct(report)), code=True)

    return redacted


RENDERERS: dict[str, Callable[[ReportInput], str]] = {
    "html": _redacting(render_html),
    "markdown": _redacting(render_markdown),
    "junit": _redacting(render_junit),
}

__all__ = [
    "RENDERERS",
    "ReportInput",
    "render_html",
    "render_junit",
    "render_markdown",
]
