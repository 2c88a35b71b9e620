"""Every documented file format has its JSON Schema (`codegold schema NAME`), and what
codegold writes in that format decodes with the struct the schema is made from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.model.schema import SCHEMAS, json_schema, spec_of
from goldkit import attempt, case, chunk, write_attempts, write_cases

ROOT = Path(__file__).resolve().parents[2]


def test_the_documented_list_is_the_registered_one() -> None:
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^codegold schema ([a-z-]+)", text, re.M))
    assert documented == set(SCHEMAS)
    for name in ("answers", "answer-results", "diagnoses", "bundle", "verdict", "comparison",
                 "comparison-multi"):
        schema = json_schema(name)
        assert schema["$schema"].endswith("2020-12/schema") and schema["$defs"]


def test_written_files_decode_as_their_schema_says(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, [case("c1", [{"file": "src/a.py", "symbol": "f"}]),
                                   case("c2", [{"file": "src/b.py"}])])
    attempts = write_attempts(tmp_path, [
        attempt("c1-a", "c1", [chunk("x", "src/z.py", start_line=1, end_line=4)]),
        attempt("c2-a", "c2", [chunk("y", "src/b.py")])])
    runner = CliRunner()
    results = tmp_path / "results.json"
    assert runner.invoke(cli, ["eval", str(cases), str(attempts), "-o", str(results),
                               "--quiet"]).exit_code == 0
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules:\n  - {metric: hit_rate, min: 0.9}\n")
    gate = runner.invoke(cli, ["gate", str(results), "--policy", str(policy), "--json"])
    msgspec.json.decode(gate.output.encode(), type=spec_of("verdict"))
    diag = tmp_path / "diag"
    assert runner.invoke(cli, ["diagnose", str(results), "-o", str(diag)]).exit_code == 0
    msgspec.json.decode((diag / "diagnoses.json").read_bytes(), type=spec_of("diagnoses"))
    for bundle in (diag / "bundles").glob("*.json"):
        msgspec.json.decode(bundle.read_bytes(), type=spec_of("bundle"))
    two, three = tmp_path / "two.json", tmp_path / "three.json"
    runner.invoke(cli, ["compare", str(results), str(results), "--json", str(two)])
    msgspec.json.decode(two.read_bytes(), type=spec_of("comparison"))
    copies = [tmp_path / f"system{n}.json" for n in range(3)]
    for copy in copies:
        copy.write_bytes(results.read_bytes())
    runner.invoke(cli, ["compare", *map(str, copies), "--json", str(three)])
    assert json.loads(three.read_text())["kind"] == "multi"
    msgspec.json.decode(three.read_bytes(), type=spec_of("comparison-multi"))
