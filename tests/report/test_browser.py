"""Open report.html in headless Chromium: visible content, URL-hash filters, escaping, screenshot.

Chromium comes from Debian (``apt-get install chromium``; .ci/run installs it). Missing
Chromium fails the test in CI (``CI=true``) and skips it only on a developer machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from sample import sample_report

from codegold.report import ReportInput, render_html
from runfactory import make_case, make_result, make_run

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).parent / "artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars"]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "headless Chromium not found: install it with `apt-get install -y chromium`"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message + " (required in CI)")
    pytest.skip(message)


def _run(url: str, *extra: str, budget_ms: int = 3000) -> str:
    binary = _chromium()
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}",
             f"--virtual-time-budget={budget_ms}", *extra, url],
            capture_output=True, text=True, timeout=120, check=False,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_html(sample_report()), encoding="utf-8")
    return path


def test_page_renders_cases_and_overview(page: Path) -> None:
    dom = _run(page.as_uri(), "--dump-dom")
    assert 'data-ready="1"' in dom, "report script did not finish"
    assert "6 of 6 cases" in dom
    for text in ("Gate failed", "refresh-below-cutoff", "legacy-leak", "below_cutoff",
                 "Hit rate by slice"):
        assert text in dom, text


def test_hash_filter_by_status(page: Path) -> None:
    dom = _run(page.as_uri() + "#status=fail", "--dump-dom")
    assert "3 of 6 cases" in dom
    rows = dom.split('id="case-body"')[1]
    assert 'data-case="legacy-leak"' in rows
    assert 'data-case="session-expiry"' not in rows


def test_hash_filter_by_cause_and_slice(page: Path) -> None:
    dom = _run(page.as_uri() + "#cause=below_cutoff", "--dump-dom")
    assert "1 of 6 cases" in dom
    dom = _run(page.as_uri() + "#slice=" + "tag%3Aarea%3Dauth", "--dump-dom")
    assert "3 of 6 cases" in dom


def test_script_in_query_shows_as_text(page: Path) -> None:
    # A search with one hit opens that case's detail, rendering its excerpts and diagnosis.
    dom = _run(page.as_uri() + "#q=xss", "--dump-dom")
    assert "1 of 6 cases" in dom
    assert "data-pwned" in dom, "the query text should be visible"
    assert 'data-pwned="1"' not in dom, "the query's script ran"
    assert "&lt;script&gt;document.body.setAttribute" in dom
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in dom  # excerpt as text
    assert "&lt;b&gt;not bold&lt;/b&gt;" in dom


def test_ten_thousand_cases_stay_usable(tmp_path: Path) -> None:
    results = []
    for i in range(10_000):
        case = make_case(f"case-{i:05d}", tags={"area": ("auth", "billing", "search")[i % 3]})
        results.append(make_result(case, rank=(i % 7) or None))
    page = tmp_path / "big.html"
    page.write_text(render_html(ReportInput(results=make_run(results))), encoding="utf-8")
    size_mb = page.stat().st_size / 1e6
    assert size_mb < 40, f"report is {size_mb:.1f} MB"
    dom = _run(page.as_uri() + "#status=fail&page=3", "--dump-dom", budget_ms=8000)
    assert "1429 of 10000 cases" in dom
    assert "page 3 of 29" in dom
    assert dom.count('class="case-row"') == 50


def test_screenshot(page: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    target = ARTIFACTS / "report.png"
    target.unlink(missing_ok=True)
    _run(page.as_uri() + "#status=notpass", f"--screenshot={target}", "--window-size=1400,1000")
    assert target.exists() and target.stat().st_size > 10_000


_PROBE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="r" src="{src}" style="position:absolute;left:0;top:0;width:1400px;height:900px;border:0"></iframe>
<pre id="probe">waiting</pre>
<script>
function measure() {{
  const doc = document.getElementById("r").contentDocument;
  if (!doc || !doc.getElementById("failing")) {{ setTimeout(measure, 50); return; }}
  const row = doc.querySelector("#failing tr:nth-child(2)");
  const box = row.getBoundingClientRect();
  const facts = Array.from(doc.querySelectorAll("#facts [data-fact]"))
    .map(e => e.dataset.fact + "=" + e.querySelector("dd").textContent);
  document.getElementById("probe").textContent = JSON.stringify({{
    first: row.textContent, top: box.top, bottom: box.bottom, height: doc.defaultView.innerHeight,
    visible: box.top >= 0 && box.bottom <= doc.defaultView.innerHeight, facts: facts}});
}}
window.addEventListener("load", measure);
</script></body></html>"""


def _probe(tmp_path: Path, report: ReportInput) -> dict[str, object]:
    import html
    import json

    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(_PROBE.format(src=page.name), encoding="utf-8")
    dom = _run(probe.as_uri(), "--dump-dom", "--window-size=1400,900",
               "--allow-file-access-from-files")
    text = dom.split('<pre id="probe">')[1].split("</pre>")[0]
    assert text != "waiting", dom[-2000:]
    result: dict[str, object] = json.loads(html.unescape(text))
    return result


def test_first_failing_case_in_first_viewport(tmp_path: Path) -> None:
    result = _probe(tmp_path, sample_report())
    assert "refresh-below-cutoff" in str(result["first"])
    assert result["visible"], result
    facts = result["facts"]
    assert isinstance(facts, list)
    assert "revision=aaaaaaaaaaaa" in facts and "index build=build-1" in facts, facts
    assert any(str(f).startswith("repository=") for f in facts)


def test_first_failing_case_visible_with_many_slices_and_failures(tmp_path: Path) -> None:
    # A large run with a long gate table must still show the first failure at once.
    results = [make_result(make_case(f"case-{i:04d}", tags={"area": f"a{i % 30}"}),
                           rank=None if i % 2 else 1) for i in range(400)]
    result = _probe(tmp_path, ReportInput(results=make_run(results)))
    assert "case-0001" in str(result["first"])
    assert result["visible"], result


def test_an_agent_case_opens_as_a_timeline(tmp_path: Path) -> None:
    from goldkit import attempt, case, chunk, run_eval

    def entry(chunk_id: str, file: str, step: int, kind: str) -> dict[str, object]:
        return chunk(chunk_id, file, start_line=1, end_line=20, step=step, kind=kind,
                     tool="grep" if kind == "search_hit" else "read_file")

    ranked = [entry("s", "src/auth/session.py", 0, "search_hit"),
              entry("l", "src/legacy/old.py", 1, "read"),
              entry("h", "src/auth/session.py", 2, "read"),
              entry("x", "src/other.py", 3, "read")]
    run = run_eval(tmp_path, [case("agent-one", [{"file": "src/auth/session.py",
                                                   "lines": [5, 9]}],
                                   forbidden=["src/legacy/"], budget={"lines": 60})],
                   [attempt("t", "agent-one", ranked)])
    page = tmp_path / "report.html"
    page.write_text(render_html(ReportInput(results=run)), encoding="utf-8")
    dom = _run(page.as_uri() + "#q=agent-one", "--dump-dom")
    assert 'data-ready="1"' in dom
    assert "Timeline (budget lines=60" in dom
    assert 'class="tl-entry forbidden"' in dom and "FORBIDDEN" in dom
    assert "budget reached" in dom and 'class="tl-entry past"' in dom
    assert "✓ accepted satisfied" in dom and "step 3" in dom


def test_an_agent_case_names_its_passed_over_steps_as_text(tmp_path: Path) -> None:
    from goldkit import attempt, case, chunk, run_eval

    passed = [{"step": 4, "reason": "unknown tool '<b>run_ipython</b>'"},
              {"step": 9, "reason": "failed edit: No replacement was performed"}]
    run = run_eval(tmp_path, [case("agent-two", [{"file": "src/auth/session.py"}])],
                   [attempt("t", "agent-two", [chunk("o", "src/other.py", start_line=1,
                                                     end_line=5, step=0, kind="read")],
                            passed_over=passed)])
    page = tmp_path / "report.html"
    page.write_text(render_html(ReportInput(results=run)), encoding="utf-8")
    dom = _run(page.as_uri() + "#q=agent-two", "--dump-dom")
    assert 'data-ready="1"' in dom
    assert ("passed over: </b><span>step 4 (unknown tool '&lt;b&gt;run_ipython&lt;/b&gt;'), "
            "step 9 (failed edit: No replacement was performed)</span>") in dom
