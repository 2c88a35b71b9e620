"""``codegold index``: build a pinned-revision index, inspect one, or chunk a single file."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import click
import msgspec
from click_default_group import DefaultGroup

from codegold import workflows
from codegold.cli._common import (
    ProgressLine,
    config_option,
    executor_option,
    guard,
    handle_errors,
    json_option,
    quiet_option,
    start_executor,
)
from codegold.cli._progress import RevisionsBar, build_printer, embed_line, warm_line
from codegold.errors import InputError
from codegold.execute import parse_executor
from codegold.index import IndexReader, chunk_file, load_policy
from codegold.index.build import redact_blob
from codegold.index.chunkstore import ChunkStore, collect_garbage
from codegold.index.many import read_revisions
from codegold.index.records import InventoryEntry
from codegold.index.store import IndexedChunk
from codegold.model import Manifest, load_cases
from codegold.model._files import MAX_LINE_BYTES, read_bytes
from codegold.plumbing.text import terminal_safe as _safe


class _IndexGroup(DefaultGroup):
    """``build`` is the default subcommand (click-default-group): ``codegold index REPO ...``
    works, and so does a call that starts with build's options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0].startswith("-") and args[0] not in ("-h", "--help"):
            args = [str(self.default_cmd_name), *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path,
                              "REPO --revision REV -o DIR [OPTIONS] | inspect INDEX | parse FILE"
                              " | gc STORE")


@click.group("index", cls=_IndexGroup, default="build",
             context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """Index a repository at a pinned revision, inspect an index, or chunk one file.

    `codegold index REPO ...` is short for `codegold index build REPO ...`: it reads git
    objects at REV (no checkout), chunks every file the path policy admits, and writes
    manifest.json + index.sqlite atomically into DIR. With --revisions or --cases it
    builds one index per revision into DIR/<commit>, sharing a chunk store.

    \b
    Example:
      codegold index . --revision v1.2.0 -o idx/
      codegold index . --revisions v1.0,v1.1,v1.2 -o indexes/
      codegold index inspect idx/ --symbol SessionService.createSession
      codegold index parse src/auth/session-service.ts
    """


def prepare_caches(dirs: Sequence[Path], *, quiet: bool, embed: bool = False) -> None:
    """Pay the query-time caches of freshly built indexes now, with progress: every BM25
    engine the default configuration reads, and with ``embed`` every chunk's vector (the
    full dense pass of `codegold index embed`, default embedder and store)."""
    if not dirs:
        return
    started = time.perf_counter()
    with ProgressLine("lexical caches", workflows.warm_total(dirs), quiet=quiet) as bar:
        workflows.warm_indexes(dirs, warm_line(bar))
    if not quiet:
        click.echo(f"lexical caches ready for {len(dirs)} index(es) in "
                   f"{time.perf_counter() - started:.1f}s", err=True)
    if embed:
        from codegold.retrieve.config import load_config
        from codegold.retrieve.embedpass import embed_indexes

        settings = load_config().signals.dense
        with ProgressLine("embedding texts", quiet=quiet) as bar:
            summary = embed_indexes(list(dirs), settings.embedder,
                                    max_tokens=settings.max_tokens,
                                    batch_size=settings.batch_size,
                                    store=Path(settings.store) if settings.store else None,
                                    progress=embed_line(bar))
        if not quiet:
            click.echo(_safe(f"embedded {summary.embedded} texts for {summary.chunks} chunks "
                             f"({summary.reused} already in the store or repeated) with "
                             f"{summary.embedder}; vectors in {summary.store}"), err=True)


@click.command("build")
@click.argument("repo", type=click.Path(file_okay=False, path_type=Path))
@click.option("--revision", "-r", help="Branch, tag or sha to index.")
@click.option("--revisions", "revisions_spec", metavar="FILE|REV,REV,...",
              help="Index many revisions into -o DIR/<commit>: a file with one revision per "
                   "line, or a comma-separated list.")
@click.option("--cases", "cases_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Index every revision these cases pin into -o DIR/<commit>; with REPO a "
                   "folder of clones (owner+name/), each case's revision from its "
                   "repository's clone.")
@click.option("--output", "-o", "output", required=True, type=click.Path(path_type=Path),
              help="Index directory to write: absent, empty, or a codegold index (then "
                   "replaced atomically); never the repository itself. With --revisions or "
                   "--cases: the folder that holds one index per revision.")
@click.option("--store", type=click.Path(path_type=Path),
              help="Chunk store folder shared by builds of this repository: files chunked "
                   "for any earlier revision are not parsed again (default with --revisions "
                   "or --cases: DIR/.chunkstore; a single build uses none unless given).")
@click.option("--no-store", is_flag=True, help="With --revisions or --cases: build each "
                                               "revision from scratch, no chunk store.")
@click.option("--policy", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Path policy file (include/exclude globs, max_bytes).")
@click.option("--reuse", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Previous index whose unchanged files are copied, not re-parsed "
                   "(default: the index already at -o, if any).")
@click.option("--repository", help="Repository name for the manifest (default: from the "
                                   "origin remote, else the directory name).")
@click.option("--embed", is_flag=True,
              help="Also embed every chunk for dense retrieval now (needs codegold[dense]; "
                   "as `codegold index embed`), so a run with --dense embeds nothing.")
@executor_option()
@quiet_option("No progress on stderr.")
@handle_errors
def build_command(repo: Path, revision: str | None, revisions_spec: str | None,
                  cases_file: Path | None, output: Path, store: Path | None, no_store: bool,
                  policy: Path | None, reuse: Path | None, repository: str | None,
                  embed: bool, executor: str, quiet: bool) -> None:
    """Index REPO at REVISION into OUTPUT (manifest.json + index.sqlite), or at many
    revisions (--revisions, --cases) into OUTPUT/<commit>, one index each.

    \b
    Example:
      codegold index build ~/src/shop --revision v2.3.1 -o idx/ --policy policy.yaml
      codegold index ~/src/shop --revision main -o idx/ --reuse old-idx/ --quiet
      codegold index ~/src/shop --revisions revisions.txt -o indexes/
      codegold index ~/src/shop --cases cases.yaml -o indexes/ --store ~/.cache/shop-chunks
      codegold index clones/ --cases swebench.yaml -o indexes/   # clones/owner+name/
      codegold index ~/src/shop --revisions revisions.txt -o indexes/ --executor ray
    """
    given = [name for name, value in (("--revision", revision), ("--revisions", revisions_spec),
                                      ("--cases", cases_file)) if value is not None]
    if len(given) != 1:
        raise InputError(f"index needs exactly one of --revision, --revisions or --cases "
                         f"(got {', '.join(given) or 'none'})")
    if store is not None and no_store:
        raise InputError("--store and --no-store contradict each other; give one")
    where = parse_executor(executor)
    if revision is not None and where.kind != "local":
        raise InputError(f"--executor {where} applies to many-revision builds (--revisions "
                         "or --cases); a single --revision builds here")
    inputs = (str(policy) if policy else None, str(cases_file) if cases_file else None)
    guard(str(output), *inputs, directory=True)
    if store is not None:
        guard(str(store), *inputs, option="--store", directory=True)
    loaded = load_policy(policy) if policy is not None else None
    if revision is not None:
        manifest = workflows.index(
            workflows.IndexRequest(repo=repo, revision=revision, output=output, policy=loaded,
                                   reuse=reuse, repository=repository, store=store),
            progress=build_printer(quiet))
        prepare_caches([output], quiet=quiet, embed=embed)
        click.echo(_written(output, manifest))
        return
    if reuse is not None:
        raise InputError("--reuse applies to a single --revision build; many-revision "
                         "builds share the chunk store instead")
    if output.resolve() == repo.resolve():
        raise InputError("-o is the repository being indexed; a folder of indexes goes "
                         "beside it or below it (say .codegold/indexes), never the "
                         "repository itself", path=str(output))
    sources = (workflows.case_revision_sources(repo, load_cases(str(cases_file)).cases)
               if cases_file is not None else workflows.revision_sources(repo, revisions_spec or ""))
    bar = RevisionsBar(quiet)
    try:
        result = workflows.index_many(
            workflows.IndexManyRequest(sources=sources, output=output, store=store,
                                       use_store=not no_store, policy=loaded,
                                       repository=repository),
            executor=start_executor(where), progress=bar)
    finally:
        bar.stop()
    prepare_caches([output / str(m.revision) for m in result.built], quiet=quiet, embed=embed)
    for manifest in result.built:
        click.echo(_written(output / str(manifest.revision), manifest))
    store_note = f", chunk store {result.store}" if result.store else ""
    click.echo(_safe(f"{len(result.built)} indexes built, {len(result.skipped)} already there "
                     f"in {output}; parsed {result.parsed} files, reused {result.reused}"
                     f"{store_note}"))


def _written(folder: Path, manifest: Manifest) -> str:
    return _safe(f"index written to {folder}: {manifest.repository}@{manifest.revision} "
                 f"build {manifest.index_build_id}, {manifest.files} files, "
                 f"{manifest.chunks} chunks")


def _chunk_line(chunk: IndexedChunk) -> str:
    symbol = chunk.symbol or "-"
    extra = [s for s in chunk.symbols if s != chunk.symbol]
    more = f" (+{', '.join(extra)})" if extra else ""
    flags = "" if chunk.has_signature else " [no signature]"
    return _safe(f"  L{chunk.start_line}-{chunk.end_line}  {chunk.kind:<9} {chunk.role:<11} "
                 f"{symbol}{more}  id={chunk.id}{flags}")


def _entry_line(entry: InventoryEntry) -> str:
    reason = f" ({entry.reason})" if entry.reason else ""
    return _safe(f"{entry.path}: {entry.fate}{reason}; category {entry.category}, language "
                 f"{entry.language or '-'}, chunker {entry.chunker or '-'}, {entry.chunks} chunks")


@click.command("inspect")
@click.argument("index", type=click.Path(file_okay=False, path_type=Path))
@click.option("--file", "file_path", help="Show the inventory entry and chunks of this path.")
@click.option("--symbol", help="Show definitions (short, qualified or suffix) and their chunks.")
@click.option("--text", is_flag=True, help="Also print each chunk's text.")
@handle_errors
def inspect_command(index: Path, file_path: str | None, symbol: str | None, text: bool) -> None:
    """Print an index's manifest and inventory summary, or chunks of a file or symbol.

    \b
    Example:
      codegold index inspect idx/
      codegold index inspect idx/ --file src/auth/session-service.ts
      codegold index inspect idx/ --symbol SessionService.createSession --text
    """
    with IndexReader.open(index) as reader:
        manifest = reader.manifest
        click.echo(_safe(f"{manifest.repository}@{manifest.revision} build "
                         f"{manifest.index_build_id} chunker "
                         f"{manifest.chunker.name if manifest.chunker else '-'}"
                         f"/{manifest.chunker.version if manifest.chunker else '-'}: "
                         f"{manifest.files} files, {manifest.chunks} chunks"))
        if file_path is None and symbol is None:
            _print_summary(reader)
            return
        if file_path is not None:
            _print_file(reader, file_path, text)
        if symbol is not None:
            _print_symbol(reader, symbol, text)


def _print_summary(reader: IndexReader) -> None:
    counts: dict[tuple[str, str], int] = {}
    for entry in reader.iter_inventory():
        key = (entry.fate, entry.category)
        counts[key] = counts.get(key, 0) + 1
    for (fate, category), count in sorted(counts.items()):
        click.echo(_safe(f"  {fate:<9} {category:<10} {count}"))


def _print_file(reader: IndexReader, file_path: str, text: bool) -> None:
    entry = reader.inventory(file_path)
    if entry is None:
        click.echo(f"{_safe(file_path)}: not in the revision's tree")
    else:
        click.echo(_entry_line(entry))
        for chunk in reader.chunks_in_file(file_path):
            click.echo(_chunk_line(chunk))
            if text:
                click.echo(_indent(chunk.text))


def _print_symbol(reader: IndexReader, symbol: str, text: bool) -> None:
    definitions = reader.definitions(symbol)
    if not definitions:
        click.echo(f"{_safe(symbol)}: no definition in this index")
    for definition in definitions:
        click.echo(_safe(f"{definition.qualified} ({definition.kind}, {definition.role}) "
                         f"{definition.file}:{definition.start_line}-{definition.end_line}"))
        chunk = reader.get(definition.chunk_id)
        if chunk is not None:
            click.echo(_chunk_line(chunk))
            if text:
                click.echo(_indent(chunk.text))


def _indent(text: str) -> str:
    """Chunk text under its chunk line, controls and escape sequences made visible."""
    return "\n".join("      | " + line for line in _safe(text, multiline=True).split("\n"))


@click.command("parse")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--path", "repo_path", help="Repository path to chunk it as (default: FILE as "
                                          "given); decides language and category.")
@click.option("--text", is_flag=True, help="Also print each chunk's text.")
@json_option("Print FileChunks as JSON.")
@handle_errors
def parse_command(file: Path, repo_path: str | None, text: bool, as_json: bool) -> None:
    """Chunk one file outside any index and print its chunks, symbols and references.

    \b
    Example:
      codegold index parse src/auth/session-service.ts
      codegold index parse fixture.py --path tests/test_auth.py --json
    """
    # Bounded (a device such as /dev/zero, or a huge file, is refused, never read whole
    # into memory); larger than an index build's default max_bytes, since this is where
    # one looks at how an outsized file chunks.
    data = read_bytes(file, "source", limit=MAX_LINE_BYTES)
    # chunked as an index build would: secret values redacted first
    result = chunk_file(repo_path or file.as_posix(),
                        redact_blob(repo_path or file.as_posix(), data)[0])
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(result), indent=2))
        return
    click.echo(_entry_line(result.entry))
    for chunk in result.chunks:
        click.echo(_chunk_line(chunk))
        if text:
            click.echo(_indent(chunk.text))
    for definition in result.definitions:
        click.echo(_safe(f"  def {definition.qualified} ({definition.kind}, {definition.role}) "
                         f"L{definition.start_line}-{definition.end_line}"))
    for reference in result.references:
        click.echo(_safe(f"  call {reference.name} L{reference.line}"))


@click.command("gc")
@click.argument("store", type=click.Path(file_okay=False, path_type=Path))
@click.option("--indexes", "index_folders", multiple=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Index directory or folder of them whose entries are kept (repeatable; "
                   "default: the folder that holds STORE).")
@click.option("--keep-revisions", "keep_spec", metavar="FILE|SHA,SHA,...",
              help="Keep only the indexes of these commits (full sha or unique prefix; a "
                   "file with one per line, or a comma-separated list).")
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
@handle_errors
def gc_command(store: Path, index_folders: tuple[Path, ...], keep_spec: str | None,
               dry_run: bool) -> None:
    """Remove chunk store entries that no kept index uses.

    \b
    Example:
      codegold index gc indexes/.chunkstore
      codegold index gc ~/.cache/shop-chunks --indexes indexes/ --keep-revisions 3f2a9c1,77b0e4d
    """
    chunks = ChunkStore.open_existing(store)
    folders = list(index_folders) or [store.resolve().parent]
    keep = read_revisions(keep_spec) if keep_spec is not None else None
    kept, removed, freed = collect_garbage(chunks, folders, keep, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    click.echo(_safe(f"{verb} {removed} entries ({freed / 1e6:.1f} MB) from {store}; kept "
                     f"what {len(kept)} indexes use"))


@click.command("embed")
@click.argument("index", type=click.Path(file_okay=False, path_type=Path))
@config_option()
@click.option("--embedder", default=None,
              help="Embedder (default: the config's signals.dense.embedder, minilm-int8): "
                   "minilm-int8 | dir:PATH | openai:URL#MODEL.")
@click.option("--store", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Vector store folder (default: the config's signals.dense.store, else "
                   "where runs look: beside a folder of indexes, or inside the index).")
@executor_option()
@click.option("--gpus", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="GPUs per embedding job (with --executor ray on a cluster that has "
                   "them; the ONNX embedders then run on CUDA).")
@quiet_option("No progress on stderr.")
@handle_errors
def embed_command(index: Path, config_path: str | None, embedder: str | None,
                  store: Path | None, executor: str, gpus: float, quiet: bool) -> None:
    """Embed every chunk of INDEX (an index or a folder of them) for dense retrieval.

    Runs the full dense pass ahead of time: vectors go to the content-addressed vector
    store (texts it already holds, from any revision, are not embedded again) and each
    index gets the vector cache that `dense.mode: full` loads, so a later `run` or
    `search` with dense embeds nothing. Batches are jobs: here, or Ray tasks with
    --executor ray (on GPUs with --gpus 1). Needs codegold[dense].

    \b
    Example:
      codegold index embed idx/
      codegold index embed indexes/ --executor ray://head:10001 --gpus 1
      codegold index embed indexes/ --config retriever.yaml --store ~/.cache/vectors
    """
    request = workflows.EmbedRequest(index=index, config=config_path, embedder=embedder,
                                     store=store, executor=executor, gpus=gpus)
    targets = workflows.embed_targets(request)
    if targets.store is not None:
        guard(str(targets.store), *(str(d) for d in targets.dirs), option="--store",
              directory=True)
    with ProgressLine("embedding texts", quiet=quiet) as bar:
        summary = workflows.embed(request, targets, executor=start_executor(targets.where),
                                  progress=embed_line(bar))
    click.echo(_safe(f"embedded {summary.embedded} texts for {summary.chunks} chunks of "
                     f"{summary.indexes} indexes ({summary.reused} already in the store or "
                     f"repeated) with {summary.embedder}; vectors in {summary.store}"))


for _sub in (build_command, inspect_command, parse_command, gc_command, embed_command):
    command.add_command(_sub)
