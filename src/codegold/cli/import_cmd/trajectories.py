"""``codegold import trajectories``: agent trajectories as attempts, one each."""

from __future__ import annotations

from pathlib import Path

import click

from codegold.cli._common import guard, handle_errors, index_option, json_option, quiet_option
from codegold.cli.import_cmd._lines import say_imported

# the format names, without importing the readers before a command runs
TRAJECTORY_FORMATS = ("swe-agent", "mini-swe-agent", "openhands", "claude-code", "otel", "mapped")


@click.command("trajectories")
@click.argument("sources", nargs=-1, required=True, type=click.Path())
@click.option("--format", "format_name", required=True, type=click.Choice(TRAJECTORY_FORMATS),
              help="The agent that wrote the trajectories.")
@click.option("--cases", "cases_path", required=True, type=click.Path(dir_okay=False),
              help="The gold cases the trajectories worked on.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Write the attempts (attempts.jsonl) here.")
@click.option("--case", "case_id", default=None,
              help="The case of a single trajectory (when it records no instance id).")
@click.option("--map", "mappings", multiple=True, metavar="FIELD=PATH",
              help="Where a field sits (dotted path): case=PATH for any format; with "
                   "--format mapped also events, tool, arguments, output, command, file, "
                   "start_line, end_line, step, cwd, final. Repeatable.")
@click.option("--root", "roots", multiple=True, metavar="DIR",
              help="Where the agent saw the repository (besides /testbed, /repo, "
                   "/workspace/NAME and the session's directory). Repeatable.")
@index_option("Attach the manifest of each case's index (an index directory or a folder of "
              "them), so eval can vouch for the revision.")
@click.option("--resolve", is_flag=True,
              help="Also resolve every span against that index (symbols and roles), as "
                   "`run --resolve` does for line windows. Needs --index.")
@click.option("--skip-unknown", is_flag=True,
              help="Leave out trajectories whose case is not in CASES (reported) instead "
                   "of stopping.")
@click.option("--replace", is_flag=True, help="Replace the attempts an -o file holds (else refused).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None,
              help="Write what was imported and passed over, per trajectory, as JSON.")
@json_option("Print the import report as JSON.")
@quiet_option("No summary on the terminal.")
@handle_errors
def trajectories(sources: tuple[str, ...], format_name: str, cases_path: str, output: str,
                 case_id: str | None, mappings: tuple[str, ...], roots: tuple[str, ...],
                 index: str | None, resolve: bool, skip_unknown: bool, replace: bool,
                 report_path: str | None, as_json: bool, quiet: bool) -> None:
    """Import agent trajectories (files or folders of them) as attempts, one each.

    Each attempt's ranked list is the evidence in the order it first entered the
    model's context: file reads with their exact lines and search hits, each with its
    step, tool, kind and size; edits go to `edits`, the final patch or answer to `final`.
    Paths are made relative to the repository. A trajectory is matched to its case by
    its instance id (or file name), --case, or --map case=PATH; one whose case is not in
    CASES stops the import (exit 2, nothing written) unless --skip-unknown. Score the
    attempts with `codegold eval`; give --index (and --resolve) so that it can.

    \b
    Example:
      codegold import trajectories runs/ --format swe-agent --cases cases.yaml \\
          -o attempts.jsonl --index indexes/ --resolve
      codegold import trajectories session.jsonl --format claude-code --case session-expiry \\
          --cases cases.yaml -o attempts.jsonl
    """
    from codegold.workflows.importing import TrajectoriesRequest, import_trajectories, report_json
    # a folder of trajectories is read whole: an output inside it would be read next time
    trees = (*(s for s in sources if Path(s).is_dir()), index)
    guard(output, cases_path, *sources, report_path, trees=trees)
    guard(report_path, cases_path, *sources, output, trees=trees, option="--report")
    report = import_trajectories(TrajectoriesRequest(
        sources=sources, format=format_name, cases=cases_path, output=output, case_id=case_id,
        mappings=mappings, roots=roots, index=index, resolve=resolve,
        skip_unknown=skip_unknown, report=report_path, replace=replace))
    if as_json:
        click.echo(report_json(report))
    elif not quiet:
        say_imported(report, output)
