"""JUnit XML: one test case per gold case, so CI systems list retrieval failures like tests.

``fail`` and ``missing`` become ``<failure>`` (message: cause and first relevant rank),
``invalid`` becomes ``<error>`` (the run could not decide), ``pass`` has no child.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from codegold.model import CaseResult
from codegold.model.metrics import shown_metrics
from codegold.report.model import ReportInput
from codegold.report.text import rank_text

# XML 1.0 forbids most control characters even when escaped; untrusted text may hold them.
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _ILLEGAL_XML.sub("\ufffd", text)


def _attr(text: str) -> str:
    return quoteattr(_clean(text))


def _body(report: ReportInput, case: CaseResult) -> str:
    lines = [f"query: {case.case.query}", f"cutoff: {case.cutoff}",
             f"first relevant rank: {rank_text(case)}"]
    if case.missing_groups:
        lines.append("missing groups: " + ", ".join(case.missing_groups))
    if case.forbidden_chunk_ids:
        lines.append("forbidden chunks: " + ", ".join(case.forbidden_chunk_ids))
    if case.revision_mismatches:
        lines.append("revision mismatches: " + ", ".join(case.revision_mismatches))
    if case.invalid_reason:
        lines.append(f"invalid: {case.invalid_reason}")
    diagnosis = report.diagnoses.get(case.case_id)
    if diagnosis is not None:
        lines.append(f"cause: {diagnosis.cause} (owner: {diagnosis.owner})")
        if diagnosis.summary:
            lines.append(diagnosis.summary)
        lines += [f"- {e}" for e in diagnosis.evidence]
    return escape(_clean("\n".join(lines)))


def render_junit(report: ReportInput) -> str:
    run = report.results
    failures = sum(c.status in ("fail", "missing") for c in run.cases)
    errors = sum(c.status == "invalid" for c in run.cases)
    name = _attr(f"codegold: {report.results_name}")
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name={name} tests="{len(run.cases)}" failures="{failures}" errors="{errors}">',
           f'  <testsuite name={name} tests="{len(run.cases)}" failures="{failures}" '
           f'errors="{errors}" skipped="0">']
    # The run's figures, one property per registry metric, so CI dashboards can chart them.
    out.append("    <properties>")
    # What was measured (unknown when nobody recorded it), then the run's figures.
    out += [f'      <property name={_attr(k.replace(" ", "_"))} value={_attr(v)}/>'
            for k, v in report.header_or_default().facts()]
    out.append(f'      <property name="scored" value="{run.summary.scored}"/>')
    out += [f'      <property name={_attr(m.name)} value={_attr(m.format(m.read(run.summary), 4))}/>'
            for m in shown_metrics(run.summary)]
    out.append("    </properties>")
    for case in run.cases:
        head = (f'    <testcase classname={_attr("codegold." + case.case.query_class)} '
                f'name={_attr(case.case_id)}')
        if case.status == "pass":
            out.append(head + "/>")
            continue
        cause = report.cause_of(case) or case.status
        if case.status == "invalid":
            message = f"invalid_run: {case.invalid_reason or 'run cannot be scored'}"
            tag = "error"
        elif case.status == "missing":
            message, tag = f"{cause}: no attempt for this case", "failure"
        else:
            message, tag = f"{cause}: first relevant rank {rank_text(case)}", "failure"
        out.append(head + ">")
        out.append(f"      <{tag} message={_attr(message)} type={_attr(cause)}>{_body(report, case)}</{tag}>")
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>", ""]
    return "\n".join(out)
