"""``codegold report``: one self-contained HTML page, plus Markdown and JUnit on request."""

from __future__ import annotations

from pathlib import Path

import click

from codegold.cli._common import guard, handle_errors
from codegold.errors import InputError
from codegold.workflows import ReportRequest, render


@click.command("report")
@click.argument("results", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "html_out", type=click.Path(dir_okay=False, writable=True),
              help="Write the HTML report here.")
@click.option("--md", "md_out", type=click.Path(dir_okay=False, writable=True),
              help="Write a short Markdown summary here.")
@click.option("--junit", "junit_out", type=click.Path(dir_okay=False, writable=True),
              help="Write JUnit XML (one test case per gold case) here.")
@click.option("--compare", "base", type=click.Path(dir_okay=False),
              help="Baseline results.json to compare against.")
@click.option("--diagnosis", "diagnosis_dir", type=click.Path(file_okay=False),
              help="Directory written by `codegold diagnose -o`.")
@click.option("--gate-policy", "policy", type=click.Path(dir_okay=False),
              help="Gate policy file: show its verdict (the report never fails a build).")
@click.option("--title", default="codegold report", show_default=True)
@handle_errors
def command(results: str, html_out: str | None, md_out: str | None, junit_out: str | None,
            base: str | None, diagnosis_dir: str | None, policy: str | None, title: str) -> None:
    """Render RESULTS as an HTML page people read, Markdown, and JUnit XML.

    The page holds overview figures, slices with their n, the gate verdict, failure causes
    and owners, charts, and every case with its ranked evidence beside what was accepted
    and forbidden; filter by status, cause, slice or case id (the filter lives in the URL,
    e.g. report.html#status=fail). It loads nothing from the network.

    \b
    Example:
      codegold report results.json --diagnosis diag/ --compare base.json \\
          -o report.html --md summary.md --junit junit.xml
    """
    if not (html_out or md_out or junit_out):
        raise InputError("nothing to write: give -o report.html, --md FILE or --junit FILE")
    _guard_outputs(results, base, policy, diagnosis_dir, html_out=html_out, md_out=md_out,
                   junit_out=junit_out)
    for target in render(ReportRequest(results=results, html=html_out, markdown=md_out,
                                       junit=junit_out, title=title, baseline=base,
                                       diagnosis=diagnosis_dir, policy=policy)):
        click.echo(f"wrote {target}", err=True)


def _guard_outputs(*inputs: str | None, html_out: str | None, md_out: str | None,
                   junit_out: str | None) -> None:
    """No output may overwrite an input (a diagnosis folder's own files included) or
    another output of the same call."""
    diagnosis = inputs[-1]
    files = [*inputs[:-1]]
    trees: tuple[str | None, ...] = ()
    if diagnosis is not None:
        files.append(str(Path(diagnosis) / "diagnoses.json"))
        trees = (str(Path(diagnosis) / "bundles"),)
    written: list[str] = []
    for option, target in (("-o", html_out), ("--md", md_out), ("--junit", junit_out)):
        guard(target, *files, *written, trees=trees, option=option)
        if target is not None:
            written.append(target)
