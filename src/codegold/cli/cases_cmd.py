"""``codegold cases``: get gold cases and keep their labels true (every output is a case file)."""

from __future__ import annotations

import sys

import click
import msgspec

from codegold import workflows
from codegold.cli._common import EXIT_FAIL, EXIT_OK, handle_errors
from codegold.cli._progress import RevisionsBar
from codegold.curate.split import describe_prior
from codegold.errors import InputError
from codegold.plumbing.outputs import guard_output
from codegold.plumbing.text import terminal_safe
from codegold.workflows import curating


@click.group("cases")
def command() -> None:
    """Get gold cases and keep their labels true.

    \b
    Example:
      codegold cases check cases.yaml --index indexes/
    """


@command.command("check")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.option("--index", "index", type=click.Path(), default=None,
              help="An index directory, or a folder of them (one per revision).")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository: build each case revision's missing index into --index first.")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@handle_errors
def check(cases: str, index: str | None, repo: str | None, strict: bool, as_json: bool) -> None:
    """Check every label of CASES against the index of its pinned revision, before any run.

    For each target: the file exists and is indexed (a missing one is followed through
    git's renames with --repo), the symbol is defined in it, not only imported, re-exported
    or used there (with the closest names and where it is defined when it is not), the
    labelled role is what the index gives; globs match a file; forbidden patterns match
    something, never a required target, and a literal prefix does not catch more than one
    folder; no two cases ask the same query or require the same evidence. With --repo,
    every revision must be a commit of it, and a tag or branch name where a sha belongs
    is named with its commit. Diagnosis reports the same label verdicts as stale_label.
    Exit 0 no errors, 1 errors (or warnings with --strict), 2 bad input.

    \b
    Example:
      codegold cases check cases.yaml --index indexes/
      codegold cases check cases.yaml --repo . --index .codegold/indexes --json
    """
    bar = RevisionsBar(quiet=as_json)
    try:
        report = workflows.check_cases(workflows.CheckRequest(cases=cases, index=index, repo=repo),
                                       index_progress=bar)
    finally:
        bar.stop()
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(report), indent=2))
    else:
        for finding in report.findings:
            where = finding.case_id + (f" [{finding.group}]" if finding.group else "")
            # case ids, paths and symbols come from the case file and the repository
            click.echo(terminal_safe(f"{finding.severity}: {where}: {finding.message}"))
        click.echo(f"cases check: {report.cases} cases, {report.errors} errors, "
                   f"{report.warnings} warnings")
    failed = report.errors > 0 or (strict and report.warnings > 0)
    sys.exit(EXIT_FAIL if failed else EXIT_OK)


@command.command("from-log")
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Draft case file (YAML) to write.")
@click.option("--map", "mappings", multiple=True, metavar="FIELD=PATH",
              help="Where a field sits in your records (dotted path, list indices allowed); "
                   "fields: id, query, repository, revision, timestamp, retrieved, cited, feedback.")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Git repository to resolve a record's timestamp to the commit then current.")
@click.option("--repository", default=None, help="Repository name for records that name none.")
@click.option("--index", "index_dir", type=click.Path(file_okay=False), default=None,
              help="Index (or folder of indexes) of the records' revisions: a cited line span "
                   "becomes the symbols it holds, not just its file.")
@click.option("--cutoff", type=click.IntRange(min=1, max=1000), default=5, show_default=True,
              help="Production cutoff k written into the drafts' defaults.")
@click.option("--name", "names", multiple=True,
              help="A user name to scrub wherever it appears (repeat the option).")
@click.option("--names-file", type=click.Path(dir_okay=False), default=None,
              help="A file of user names to scrub, one per line.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None,
              help="Write the scrub report (what was removed where, never the values) as JSON.")
@handle_errors
def from_log(log: str, output: str, mappings: tuple[str, ...], repo: str | None,
             repository: str | None, index_dir: str | None, cutoff: int,
             names: tuple[str, ...], names_file: str | None, report_path: str | None) -> None:
    """Draft cases from assistant traces or search logs in LOG (JSONL or a JSON list).

    Secrets (cloud keys, tokens, private keys, high-entropy strings, credentials in URLs,
    password assignments) and personal data (e-mails, IP addresses, phone and card
    numbers, home folders, the user names you list) are replaced by typed placeholders
    before anything is written; the report says what was removed and where, never the
    value. A record becomes a draft when it names a revision (or a timestamp and --repo)
    and evidence: what the answer cited, or the first retrieved chunk when the feedback
    was positive. A cited line span is kept: with --index, as the symbols it holds (the
    rule span resolution applies); without, named in the rationale. Drafts carry the tag
    status=draft: review them, then `cases check`.

    \b
    Example:
      codegold cases from-log traces.jsonl -o drafts.yaml --report scrub.json
      codegold cases from-log traces.jsonl -o drafts.yaml --index indexes/
      codegold cases from-log spans.json -o drafts.yaml --repo . \\
          --map query=attributes.gen_ai.prompt --map timestamp=start_time
    """
    guard_output(output, inputs=(log, names_file, report_path))
    if report_path is not None:
        guard_output(report_path, inputs=(log, names_file), option="--report")
    report = curating.cases_from_log(curating.FromLogRequest(
        log=log, output=output, mappings=mappings, repo=repo, repository=repository,
        cutoff=cutoff, names=names, names_file=names_file, report=report_path,
        index=index_dir))
    removed = ", ".join(f"{n} {kind}" for kind, n in report.removed.items()) or "nothing"
    click.echo(f"{report.drafts} draft case(s) from {report.records} record(s) written to "
               f"{output}; scrubbed: {removed}", err=True)
    for why, n in report.skipped.items():
        click.echo(f"skipped {n}: {terminal_safe(why)}", err=True)


def _say_skipped(skipped: dict[str, int]) -> None:
    for why, n in sorted(skipped.items(), key=lambda item: -item[1]):
        click.echo(f"skipped {n}: {terminal_safe(why)}", err=True)


@command.group("import")
def import_group() -> None:
    """Import cases from benchmark files.

    \b
    Example:
      codegold cases import swebench instances.jsonl --repo ../flask -o swebench.yaml
    """


@import_group.command("swebench")
@click.argument("instances", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Case file (YAML) to write.")
@click.option("--repo", type=click.Path(file_okay=False), default=None,
              help="Local clone of the instances' repository.")
@click.option("--repos-dir", type=click.Path(file_okay=False), default=None,
              help="Folder of local clones, named owner__name, owner+name or name.")
@click.option("--cutoff", type=click.IntRange(min=1, max=1000), default=5, show_default=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Import at most N instances.")
@handle_errors
def import_swebench_cmd(instances: str, output: str, repo: str | None, repos_dir: str | None,
                        cutoff: int, limit: int | None) -> None:
    """Turn SWE-bench-style INSTANCES (JSONL, JSON or Parquet) into gold cases.

    One case per instance: the query is the problem statement, the revision the base
    commit, and each file the reference patch changes (new files excluded) is one
    required group whose alternatives are the definitions the patch changed, found by
    parsing that file at the base commit. SWE-bench, Lite, Verified and Multi-SWE-bench
    field names are understood.

    \b
    Example:
      codegold cases import swebench lite.jsonl --repos-dir clones/ -o swebench.yaml
      codegold cases check swebench.yaml --repo clones/flask --index idx/
    """
    if repo is None and repos_dir is None:
        raise InputError("give --repo (one repository) or --repos-dir (a folder of clones)")
    guard_output(output, inputs=(instances,))
    report = curating.cases_from_swebench(curating.SwebenchRequest(
        instances=instances, output=output, repo=repo, repos_dir=repos_dir, cutoff=cutoff,
        limit=limit))
    click.echo(f"{report.drafts} case(s) from {report.items} instance(s) written to {output}",
               err=True)
    _say_skipped(report.skipped)


@command.command("mine")
@click.argument("repo", type=click.Path(file_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Draft case file (YAML) to write.")
@click.option("--since", default=None, help="Only commits after this date (git's --since).")
@click.option("--paths", "paths", multiple=True, help="Only commits touching these paths.")
@click.option("--max", "max_cases", type=click.IntRange(min=1), default=50, show_default=True,
              help="Stop after this many drafts.")
@click.option("--max-files", type=click.IntRange(min=1), default=8, show_default=True,
              help="Skip commits changing more files than this.")
@click.option("--repository", default=None, help="Repository name written into the drafts.")
@click.option("--cutoff", type=click.IntRange(min=1, max=1000), default=5, show_default=True)
@handle_errors
def mine(repo: str, output: str, since: str | None, paths: tuple[str, ...], max_cases: int,
         max_files: int, repository: str | None, cutoff: int) -> None:
    """Draft cases from the git history of REPO: fixes and issue-referencing commits.

    The query is the commit message (issue references kept), the revision its parent,
    and the gold the definitions it changed, read at the parent. Merges, version bumps,
    formatting, documentation-only and large commits are skipped, with the reason
    counted. Drafts carry the tag status=draft and the commit in the rationale.

    \b
    Example:
      codegold cases mine . --since 2024-01-01 --max 30 -o mined.yaml
    """
    guard_output(output, inputs=(repo,))
    report = curating.cases_from_history(curating.MineRequest(
        repo=repo, output=output, since=since, paths=paths, max_cases=max_cases,
        max_files=max_files, repository=repository, cutoff=cutoff))
    click.echo(f"{report.drafts} draft case(s) from {report.items} commit(s) written to "
               f"{output}", err=True)
    _say_skipped(report.skipped)


@command.command("split")
@click.argument("cases", type=click.Path(dir_okay=False))
@click.option("--train", type=float, default=0.7, show_default=True,
              help="Share of cases in the training split.")
@click.option("--by", type=click.Choice(["repository", "query_class"]), default=None,
              help="Stratify: split each repository or query class in the same proportion.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", required=True, type=click.Path(),
              help="With --tag: the case file to write. Else a prefix: PREFIX.train.yaml and "
                   "PREFIX.heldout.yaml.")
@click.option("--tag", is_flag=True, help="Write one file with a `split` tag on every case.")
@handle_errors
def split(cases: str, train: float, by: str | None, seed: int, output: str, tag: bool) -> None:
    """Split CASES into train and held-out sets, deterministically by a hash of each case id.

    The same seed always gives the same split, and adding cases never moves an existing
    one (with --by, at most one per stratum). Tune on train; judge on held-out.

    \b
    Example:
      codegold cases split cases.yaml --train 0.7 -o cases      # cases.train.yaml, cases.heldout.yaml
      codegold cases split cases.yaml --by query_class --tag -o cases.split.yaml
    """
    request = curating.SplitRequest(cases=cases, output=output, train=train, by=by, seed=seed,
                                    tag=tag)
    for path in request.outputs:
        guard_output(path, inputs=(cases,))
    done = curating.split_cases(request)
    click.echo(f"{done.train} train, {done.heldout} held-out: {', '.join(done.written)}",
               err=True)


@command.command("diff")
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@handle_errors
def diff(old: str, new: str, as_json: bool) -> None:
    """List cases added, removed and relabelled between OLD and NEW, with each rationale.

    A relabelled case changed its evidence, forbidden list, revision or cutoff; the
    previous rationale is shown beside the new one, for review in a pull request, with
    the label versions the new file added to the case's `supersedes` history (and a note
    when a relabelled case keeps no record of the label it replaced).

    \b
    Example:
      git show main:evals/cases.yaml > /tmp/old.yaml
      codegold cases diff /tmp/old.yaml evals/cases.yaml
    """
    changes = curating.case_changes(old, new)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(changes), indent=2))
        return
    for change in changes:
        fields = f" ({', '.join(change.fields)})" if change.fields else ""
        click.echo(terminal_safe(f"{change.change} {change.case_id}{fields}"))
        if change.rationale:
            click.echo(f"    rationale: {terminal_safe(change.rationale)}")
        if change.supersedes and change.supersedes != change.rationale:
            click.echo(f"    was: {terminal_safe(change.supersedes)}")
        for prior in change.prior_labels:
            click.echo(f"    supersedes {terminal_safe(describe_prior(prior))}")
        if change.history_missing:
            click.echo("    (the replaced label is not kept in supersedes)")
    counts = {k: sum(c.change == k for c in changes)
              for k in ("added", "removed", "relabelled", "changed")}
    click.echo(", ".join(f"{n} {k}" for k, n in counts.items()))


@command.command("init")
@click.argument("repo", type=click.Path(file_okay=False), default=".")
@click.option("-o", "--output", "folder", type=click.Path(file_okay=False), default="evals",
              show_default=True, help="Folder to write cases.yaml, policy.yaml, owners.yaml into.")
@click.option("--revision", default="HEAD", show_default=True,
              help="Commit (or tag, branch) the example case is pinned to.")
@handle_errors
def init(repo: str, folder: str, revision: str) -> None:
    """Write a starting cases.yaml, policy.yaml and owners.yaml for the repository REPO.

    The case file holds one real case (a definition found in the repository, pinned to
    the resolved commit), lists the languages found and the folders that look like
    traps (vendored, generated, legacy, migrations, build output). Existing files are
    never overwritten.

    \b
    Example:
      codegold cases init . -o evals
      codegold index . --revision HEAD -o .codegold/idx
      codegold cases check evals/cases.yaml --index .codegold/idx
    """
    if revision.startswith("-"):
        raise InputError(f"--revision must name a commit, found {revision!r}")
    started = curating.start_evals(curating.InitRequest(repo=repo, folder=folder,
                                                        revision=revision))
    click.echo(f"wrote {', '.join(str(p) for p in started.written)} for {started.repository} "
               f"at {started.revision[:12]}", err=True)
