"""Every attempt records a digest of the retriever configuration the run actually used,
and the report header shows it instead of "unknown"."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codegold.adapters.registry import RetrieverOptions, config_digest
from codegold.cli.main import cli
from codegold.retrieve.config import RetrieverConfig

FAKE = "python:fake_retrievers:answer"


def _run(cases_file: Path, out: Path, *extra: str) -> list[dict[str, object]]:
    done = CliRunner().invoke(cli, ["run", str(cases_file), "-o", str(out), "--retriever", FAKE,
                                    "--timeout", "5", *extra])
    assert done.exit_code == 0, done.output
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_attempts_carry_the_digest_of_the_configuration_used(cases_file: Path,
                                                             tmp_path: Path) -> None:
    first = _run(cases_file, tmp_path / "a.jsonl")
    again = _run(cases_file, tmp_path / "b.jsonl")
    other = _run(cases_file, tmp_path / "c.jsonl", "--timeout", "7")
    digests = {str(a["retriever_config"]) for a in first}
    assert len(digests) == 1 and next(iter(digests)).startswith("sha256:")
    assert {a["retriever_config"] for a in again} == digests  # same settings, same digest
    assert {a["retriever_config"] for a in other}.isdisjoint(digests)  # a setting changed


def test_the_digest_follows_every_setting_of_the_reference_configuration() -> None:
    base = RetrieverOptions(config=RetrieverConfig())
    assert config_digest("reference", base) == config_digest("reference", base)
    changed = RetrieverOptions(config=RetrieverConfig(), dense=True)
    assert config_digest("reference", changed) != config_digest("reference", base)
    assert config_digest("reference", base, resolving=True) != config_digest("reference", base)


def test_the_report_header_names_the_digest(cases_file: Path, tmp_path: Path) -> None:
    attempts = _run(cases_file, tmp_path / "a.jsonl")
    results, page = tmp_path / "results.json", tmp_path / "report.md"
    done = CliRunner().invoke(cli, ["eval", str(cases_file), str(tmp_path / "a.jsonl"), "-o",
                                    str(results)])
    assert done.exit_code in (0, 1), done.output
    done = CliRunner().invoke(cli, ["report", str(results), "--md", str(page)])
    assert done.exit_code == 0, done.output
    assert str(attempts[0]["retriever_config"]) in page.read_text(encoding="utf-8")
