"""``codegold eval`` determinism and ``--json``, ``codegold schema``, ``codegold export trec``."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import ir_measures
import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from ir_measures import RR

from codegold.cli.main import cli
from codegold.model import load_results
from goldkit import SHA_B, attempt, case, chunk, write_attempts, write_cases

CUTOFFS = (1, 3, 5, 10)


def _codegold(*args: str, hashseed: str = "0") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    code = "from codegold.cli.main import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env,
                          check=False, timeout=60)


def _mixed_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """A small run touching every status, retries, warnings, slices and supporting groups."""
    groups = [{"id": "main", "any_of": [{"file": "src/a.py", "symbol": "f"}]},
              {"id": "cfg", "any_of": [{"file": "config/*.yaml"}]},
              {"id": "ex", "required": False, "any_of": [{"file": "test/**/test_*.py"}]}]
    cases = [
        case("pass", groups=groups, tags={"area": "auth", "risk": "high"},
             query_class="descriptive"),
        case("fail", [{"file": "src/b.ts", "roles": ["definition"]}], tags={"area": "pay"}),
        case("invalid", [{"file": "src/b.ts"}], query_class="exact_identifier"),
        case("missing", [{"file": "src/c.go"}], tags={"zone": "x", "area": "auth"}),
        case("retried", [{"file": "src/a.py"}], cutoff=1),
    ]
    attempts = [
        attempt("1", "pass", [chunk("t", "test/u/test_a.py"), chunk("a", "src/a.py", "m.f"),
                              chunk("c", "config/app.yaml")]),
        attempt("2", "fail", [chunk("l", "src/legacy/b.ts"), chunk("s", "src/x.ts", revision=SHA_B)]),
        attempt("3", "invalid", [chunk("b", "src/b.ts")], with_manifest=False),
        attempt("4", "retried", [chunk("z", "src/z.py")]),
        attempt("5", "retried", [chunk("a", "src/a.py")], retry_of="4"),
        attempt("6", "ghost", []),
    ]
    return (write_cases(tmp_path, cases, {"revision": "a" * 40, "cutoff": 3,
                                          "forbidden": ["src/legacy/"]}),
            write_attempts(tmp_path, attempts))


def test_eval_is_byte_identical_across_processes_and_json_equals_the_file(tmp_path: Path) -> None:
    cases, attempts = _mixed_inputs(tmp_path)
    outputs = []
    for seed, name in (("1", "a.json"), ("2", "b.json")):
        proc = _codegold("eval", str(cases), str(attempts), "-o", str(tmp_path / name), "-q",
                         hashseed=seed)
        assert proc.returncode == 0, proc.stderr.decode()
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]
    as_json = _codegold("eval", str(cases), str(attempts), "--json", hashseed="3")
    assert as_json.returncode == 0
    assert as_json.stdout == outputs[0]
    doc = json.loads(outputs[0])
    assert doc["format"] == 1 and doc["codegold_version"]
    assert len(doc["inputs"]["cases"]["sha256"]) == 64
    assert len(doc["inputs"]["attempts"]["sha256"]) == 64
    assert [c["status"] for c in doc["cases"]] == ["pass", "fail", "invalid", "missing", "pass"]
    assert doc["summary"]["cases"] == 5
    for field in ("case_id", "status", "cutoff", "first_relevant_rank", "reciprocal_rank", "hit",
                  "group_recall", "missing_groups", "supporting_found", "forbidden_chunk_ids",
                  "revision_mismatches", "unknown_revision", "invalid_reason", "attempt_id"):
        assert field in doc["cases"][0]
    for field in ("cases", "pass", "fail", "invalid", "missing", "hit_rate", "mean_group_recall",
                  "mrr", "forbidden_rate", "revision_mismatch_rate", "ndcg"):
        assert field in doc["summary"]
    assert all("cases" in s["metrics"] for s in doc["slices"])
    retried = doc["cases"][4]
    assert retried["attempt_id"] == "5" and retried["attempt_ids"] == ["4", "5"]
    assert any("ghost" in w for w in doc["warnings"])
    # the results file reads back
    assert load_results(str(tmp_path / "a.json")).summary.cases == 5


def test_eval_summary_names_failing_cases(tmp_path: Path) -> None:
    cases, attempts = _mixed_inputs(tmp_path)
    res = CliRunner().invoke(cli, ["eval", str(cases), str(attempts), "-o",
                                   str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    for word in ("fail", "invalid", "missing", "l", "query_class=descriptive", "tag:area=auth",
                 "ghost", "wrote"):
        assert word in res.output


def test_every_foundation_command_documents_an_example() -> None:
    for args in (["eval"], ["gate"], ["schema"], ["export", "trec"], ["export"]):
        res = CliRunner().invoke(cli, [*args, "--help"])
        assert res.exit_code == 0
        assert "Example:" in res.output, args


# --- schema -------------------------------------------------------------------------------


def _schema(name: str) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["schema", name])
    assert res.exit_code == 0, res.output
    schema: dict[str, Any] = json.loads(res.output)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def test_schemas_are_valid_and_accept_the_fixtures(spec_dir: Path, tmp_path: Path) -> None:
    cases_schema = _schema("cases")
    jsonschema.validate(yaml.safe_load((spec_dir / "cases.yaml").read_text()), cases_schema)
    attempts_schema = _schema("attempts")
    manifest_schema = _schema("manifest")
    for line in (spec_dir / "attempts.jsonl").read_text().splitlines():
        record = json.loads(line)
        jsonschema.validate(record, attempts_schema)
        jsonschema.validate(record["manifest"], manifest_schema)
    results_schema = _schema("results")
    cases, attempts = _mixed_inputs(tmp_path)
    out = tmp_path / "r.json"
    assert CliRunner().invoke(cli, ["eval", str(cases), str(attempts), "-o", str(out),
                                    "-q"]).exit_code == 0
    jsonschema.validate(json.loads(out.read_text()), results_schema)


def test_schema_rejects_a_typo(spec_dir: Path) -> None:
    doc = yaml.safe_load((spec_dir / "cases.yaml").read_text())
    doc["cases"][0]["acepted"] = doc["cases"][0].pop("accepted")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, _schema("cases"))


def test_unknown_schema_name_is_a_usage_error() -> None:
    res = CliRunner().invoke(cli, ["schema", "policy-x"])
    assert res.exit_code == 2
    assert "Traceback" not in res.output


# --- TREC export --------------------------------------------------------------------------


def _exact_path_run(tmp_path: Path, seed: int) -> tuple[Path, Path, list[dict[str, Any]]]:
    """Cases with exact-path targets only; each file appears at most once per ranking, so the
    file-level collapse keeps chunk ranks and RR at file level must equal codegold's."""
    rng = random.Random(seed)
    cases, attempts = [], []
    for i in range(120):
        n_req, n_sup = rng.randint(1, 2), rng.randint(0, 1)
        groups: list[dict[str, Any]] = []
        for j in range(n_req + n_sup):
            spec: dict[str, Any] = {"id": f"g{j}",
                                    "any_of": [{"file": f"src/q{i}/g{j}_{t}.py"}
                                               for t in range(rng.randint(1, 2))]}
            if j >= n_req:
                spec["required"] = False
            groups.append(spec)
        cases.append(case(f"q{i}", groups=groups, cutoff=rng.choice(CUTOFFS)))
        files = [t["file"] for g in groups for t in g["any_of"]]
        files += [f"src/noise/{i}_{d}.py" for d in range(rng.randint(1, 8))]
        ranked = [chunk(f"q{i}-{n}", f, symbol=f"S{n}")
                  for n, f in enumerate(rng.sample(files, rng.randint(1, len(files))))]
        attempts.append(attempt(f"a{i}", f"q{i}", ranked))
    return write_cases(tmp_path, cases), write_attempts(tmp_path, attempts), cases


def _file_mrr(prefix: Path, cases: list[dict[str, Any]]) -> dict[str, float]:
    qrels = list(ir_measures.read_trec_qrels(str(prefix) + ".file.qrels"))
    run = list(ir_measures.read_trec_run(str(prefix) + ".file.run"))
    by_k: dict[int, set[str]] = defaultdict(set)
    for c in cases:
        by_k[c["cutoff"]].add(c["id"])
    out: dict[str, float] = {}
    for k, ids in by_k.items():
        q = [x for x in qrels if x.query_id in ids]
        r = [x for x in run if x.query_id in ids]
        for m in ir_measures.iter_calc([RR(rel=2) @ k], q, r):
            out[m.query_id] = m.value
    return out


@pytest.mark.parametrize("source", ["results", "attempts"])
def test_trec_export_parses_and_file_mrr_agrees(tmp_path: Path, source: str) -> None:
    cases_path, attempts_path, cases = _exact_path_run(tmp_path, seed=5)
    results = tmp_path / "results.json"
    runner = CliRunner()
    assert runner.invoke(cli, ["eval", str(cases_path), str(attempts_path), "-o", str(results),
                               "-q"]).exit_code == 0
    prefix = tmp_path / "out" / "run"
    args = (["export", "trec", str(results), "-o", str(prefix)] if source == "results" else
            ["export", "trec", str(attempts_path), "--cases", str(cases_path), "-o", str(prefix)])
    res = runner.invoke(cli, args)
    assert res.exit_code == 0, res.output
    for gran in ("file", "symbol"):
        for kind in ("run", "qrels"):
            assert (tmp_path / "out" / f"run.{gran}.{kind}").exists()
    # both granularities parse with ir_measures
    for gran in ("file", "symbol"):
        run = list(ir_measures.read_trec_run(str(prefix) + f".{gran}.run"))
        qrels = list(ir_measures.read_trec_qrels(str(prefix) + f".{gran}.qrels"))
        assert run and qrels
        assert {q.relevance for q in qrels} <= {1, 2}
    symbol_docs = {d.doc_id for d in ir_measures.read_trec_run(str(prefix) + ".symbol.run")}
    assert all("::S" in d for d in symbol_docs)

    oracle = _file_mrr(prefix, cases)
    result = load_results(str(results))
    assert result.summary.scored == len(cases)
    for r in result.cases:
        assert r.reciprocal_rank == pytest.approx(oracle.get(r.case_id, 0.0), abs=1e-9), r.case_id
    assert result.summary.mrr == pytest.approx(sum(oracle.values()) / len(cases), abs=1e-9)
    assert 0.0 < result.summary.mrr < 1.0


def test_trec_export_from_attempts_uses_the_final_attempt(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [case("c", [{"file": "src/a.py"}])])
    attempts = write_attempts(tmp_path, [
        attempt("2", "c", [chunk("new", "src/new.py")], retry_of="1"),
        attempt("1", "c", [chunk("old", "src/old.py")]),
    ])
    prefix = tmp_path / "x"
    res = CliRunner().invoke(cli, ["export", "trec", str(attempts), "--cases", str(cases),
                                   "-o", str(prefix)])
    assert res.exit_code == 0, res.output
    docs = [d.doc_id for d in ir_measures.read_trec_run(str(prefix) + ".file.run")]
    assert docs == ["src/new.py"]
    qrels = [(q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(prefix) + ".file.qrels")]
    assert qrels == [("src/a.py", 2)]


def test_trec_export_of_attempts_without_cases_is_one_error_line(tmp_path: Path) -> None:
    attempts = write_attempts(tmp_path, [attempt("1", "c", [])])
    res = CliRunner().invoke(cli, ["export", "trec", str(attempts), "-o", str(tmp_path / "x")])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--cases" in lines[0]


def test_eval_as_its_own_process_ends_without_teardown_yet_loses_no_output(
        tmp_path: Path) -> None:
    """Run as the CLI's own process, eval keeps its results for the exit to drop (no
    object-by-object teardown): what it printed and wrote is whole, the exit code is its
    own, and a reader that goes away early costs no traceback. Under CliRunner nothing is
    held."""
    from codegold.cli import _common

    cases, attempts = _mixed_inputs(tmp_path)
    in_process = CliRunner().invoke(cli, ["eval", str(cases), str(attempts), "--json"])
    assert in_process.exit_code == 0 and _common._HELD is None
    # stdout to a pipe is block-buffered (unless PYTHONUNBUFFERED, which is dropped here)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    code = "from codegold.cli.main import main; main()"

    def codegold(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              env=env, check=False, timeout=60)

    done = codegold("eval", str(cases), str(attempts), "--json")
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert json.loads(done.stdout) == json.loads(in_process.stdout)  # every byte flushed
    written = codegold("eval", str(cases), str(attempts), "-o", str(tmp_path / "r.json"))
    assert written.returncode == 0 and written.stdout.rstrip().endswith(b"r.json")
    assert b"slice" in written.stdout  # the summary table, printed before it
    assert load_results(str(tmp_path / "r.json")).summary.cases == 5
    piped = subprocess.run(f"{sys.executable} -c '{code}' eval {cases} {attempts} --json"
                           " | head -c 10", shell=True, capture_output=True, timeout=60,
                           check=False, env=env)
    assert piped.stdout == done.stdout[:10] and b"Traceback" not in piped.stderr
