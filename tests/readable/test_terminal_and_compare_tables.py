"""A terminal gets text, files get Markdown; several systems read as a column per
system; the two-run comparison shows pass rate as the several-system one does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.plumbing.text import markdown_for_terminal, md_text
from goldkit import attempt, case, chunk, write_attempts, write_cases


def _results(tmp_path: Path, hits: dict[str, int]) -> list[Path]:
    cases = write_cases(tmp_path, [
        case(f"c{n}", [{"file": f"src/f{n}.py"}], tags={"area": f"a{n % 4}", "risk": f"r{n % 3}"})
        for n in range(12)])
    out = []
    for name, count in hits.items():
        attempts = write_attempts(tmp_path, [
            attempt(f"c{n}-{name}", f"c{n}", [chunk("x", f"src/f{n}.py" if n < count else "z.py")])
            for n in range(12)], name=f"{name}.jsonl")
        path = tmp_path / f"{name}.json"
        done = CliRunner().invoke(cli, ["eval", str(cases), str(attempts), "-o", str(path),
                                        "--quiet"])
        assert done.exit_code == 0, done.output
        out.append(path)
    return out


def test_several_systems_are_columns_and_two_show_pass_rate(tmp_path: Path) -> None:
    a, b, c = _results(tmp_path, {"a": 12, "b": 9, "c": 6})
    three = CliRunner().invoke(cli, ["compare", str(a), str(b), str(c)])
    assert three.exit_code == 0, three.output
    tables = [line for line in three.output.splitlines() if line.startswith("| slice |")]
    assert tables and all(line.count("|") == 5 for line in tables)  # slice + 3 systems
    two = CliRunner().invoke(cli, ["compare", str(a), str(b)])
    assert "| pass rate | 1.000 | 0.750 | -0.250 |" in two.output


def test_markdown_reads_as_text_on_a_terminal() -> None:
    md = ("## Diagnosis\n\n| case | summary |\n|---|---|\n"
          f"| {md_text('a_b')} | {md_text('ranking (10 chunks) < 5')} |\n")
    text = markdown_for_terminal(md)
    assert "\\(" not in text and "&lt;" not in text and "|" not in text
    assert "ranking (10 chunks) < 5" in text and "a_b" in text
    assert text.splitlines()[0] == "Diagnosis"
    # what Markdown escaped stays safe: a control character remains an escape
    assert "\\x1b" in markdown_for_terminal(f"| x |\n|---|\n| {md_text(chr(27) + '[31m')} |\n")
