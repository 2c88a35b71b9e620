"""The compare workflow: two results files of the same gold cases (BASE NEW), or several
systems against a baseline, as Markdown and JSON. The caller has guarded every output
against overwriting an input."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.assemble import report_header
from codegold.compare import (
    compare_runs,
    compare_systems,
    dump_comparison,
    dump_multi_comparison,
    render_comparison_markdown,
    render_multi_comparison_markdown,
)
from codegold.errors import InputError
from codegold.model import load_results
from codegold.plumbing.outputs import write_bytes_atomic, write_text_atomic


@dataclass(frozen=True)
class CompareRequest:
    results: tuple[str, ...]  # results files; two: BASE NEW, more: several systems
    baseline: str | None = None  # the one every other is tested against (default: the first)
    markdown: str | None = None  # write the Markdown summary here
    json: str | None = None  # write the full comparison (format 1) here
    seed: int = 20261
    resamples: int = 9999  # sign flips of the randomization test
    bootstrap: int = 2000  # bootstrap resamples of the interval
    alpha: float = 0.05  # significance level after Holm
    min_slice: int = 10  # slices with fewer paired cases are reported, not tested


def compare(request: CompareRequest) -> str:
    """Compare the results files, write the files the request names; return the Markdown."""
    results = request.results
    if len(results) < 2:
        raise InputError(f"compare: found {len(results)} results file(s); expected at least 2 "
                         "(BASE NEW, or several systems with {baseline})", settings=("baseline",))
    chosen = results[0] if request.baseline is None else request.baseline
    if chosen not in results:
        raise InputError(f"{{baseline}} found {chosen!r}, which is not one of the results "
                         f"files given; expected one of: {', '.join(results)}",
                         field="baseline", settings=("baseline",))
    loaded = {name: load_results(name) for name in dict.fromkeys(results)}

    def facts(name: str) -> tuple[str, str, str]:
        header = report_header(loaded[name], name)
        return name, header.retriever, header.embedder

    r = request
    data: bytes
    if len(results) > 2:
        multi = compare_systems(
            [(name, loaded[name]) for name in results], baseline=chosen, seed=r.seed,
            n_resamples=r.resamples, n_bootstrap=r.bootstrap, alpha=r.alpha,
            min_slice_cases=r.min_slice)
        text = render_multi_comparison_markdown(multi, runs=[facts(n) for n in loaded])
        data = dump_multi_comparison(multi)
    else:
        base, new = results if chosen == results[0] else (results[1], results[0])
        comparison = compare_runs(
            loaded[base], loaded[new], base_name=base, new_name=new, seed=r.seed,
            n_resamples=r.resamples, n_bootstrap=r.bootstrap, alpha=r.alpha,
            min_slice_cases=r.min_slice)
        text = render_comparison_markdown(comparison, runs=[facts(base), facts(new)])
        data = dump_comparison(comparison)
    if request.json:
        write_bytes_atomic(request.json, data)
    if request.markdown:
        write_text_atomic(request.markdown, text)
    return text
