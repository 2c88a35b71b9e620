"""``codegold report``: one self-contained HTML page, plus Markdown and JUnit on request."""

from __future__ import annotations

from pathlib import Path

import click

from codegold.cli._common import guard, handle_errors


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
    from codegold.assemble import report_input
    from codegold.errors import InputError
    from codegold.model import load_results
    from codegold.report import RENDERERS

    if not (html_out or md_out or junit_out):
        raise InputError("nothing to write: give -o report.html, --md FILE or --junit FILE")
    _guard_outputs(results, base, policy, diagnosis_dir, html_out=html_out, md_out=md_out,
                   junit_out=junit_out)
    run = load_results(results)
    baseline = load_results(base) if base else None
    comparison = None
    if baseline is not None:
        from codegold.compare import compare_runs

        comparison = compare_runs(baseline, run, base_name=base or "", new_name=results)
    verdict = None
    if policy:
        from codegold.gate import load_policy, run_gate

        # The same call `codegold gate RESULTS --policy P` makes: one verdict, the policy's
        # own (its baseline, if it names one). --compare is shown apart, never a check.
        verdict = run_gate(run, load_policy(policy), policy_path=policy)
    report = report_input(run, results_name=results, title=title, comparison=comparison,
                          verdict=verdict, policy_name=policy or "", diagnosis_dir=diagnosis_dir)
    from codegold.plumbing.outputs import write_text_atomic

    for target, kind in ((html_out, "html"), (md_out, "markdown"), (junit_out, "junit")):
        if target:
            write_text_atomic(target, RENDERERS[kind](report))
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
