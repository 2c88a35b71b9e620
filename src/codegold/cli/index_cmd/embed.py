"""``codegold index embed``: the full dense pass over an index or a folder of them."""

from __future__ import annotations

from pathlib import Path

import click

from codegold import workflows
from codegold.cli._common import (
    ProgressLine,
    config_option,
    executor_option,
    guard,
    handle_errors,
    quiet_option,
    start_executor,
)
from codegold.cli._progress import embed_line
from codegold.plumbing.text import terminal_safe as _safe


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
