"""Gold case files: every validation error names file, line (YAML), case id and field,
and through ``codegold eval`` gives exit 2 with exactly one ``error:`` line, no traceback."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.errors import InputError, SchemaError
from codegold.model import load_cases, load_results
from goldkit import SHA_A, attempt, chunk, write_attempts, write_cases

HEADER = f"""\
format: 1
defaults: {{repository: acme/shop, revision: {SHA_A}, cutoff: 5}}
cases:
"""

GOOD_CASE = """\
  - id: good
    query: where is it
    accepted: [{file: src/a.py}]
"""


def _write(tmp_path: Path, text: str, name: str = "cases.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _attempts(tmp_path: Path) -> Path:
    return write_attempts(tmp_path, [attempt("a1", "good", [chunk("c1", "src/a.py")])])


def _cli_error(tmp_path: Path, cases_path: Path, attempts_path: Path | None = None) -> str:
    """Run ``codegold eval`` and return its single error line (asserting exit 2, no traceback)."""
    attempts_path = attempts_path or _attempts(tmp_path)
    runner = CliRunner()
    res = runner.invoke(cli, ["eval", str(cases_path), str(attempts_path), "-q"])
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    assert "Traceback" not in res.output
    return lines[0]


# (name, case-file text, expected line, case id, field, words in the message)
BAD_YAML = [
    ("duplicate_id", HEADER + GOOD_CASE + GOOD_CASE, 7, "good", "id", "duplicate case id"),
    ("empty_groups", HEADER + "  - id: x\n    query: q\n    groups: []\n", 6, "x", "groups",
     "empty"),
    ("empty_any_of", HEADER + "  - id: x\n    query: q\n    groups:\n"
     "      - {id: g, required: true, any_of: []}\n", 7, "x", "any_of", "empty"),
    ("cutoff_zero", HEADER + "  - id: x\n    query: q\n    cutoff: 0\n"
     "    accepted: [{file: a.py}]\n", 4, "x", "cutoff", "at least 1"),
    ("cutoff_negative", HEADER + "  - id: x\n    query: q\n    cutoff: -3\n"
     "    accepted: [{file: a.py}]\n", 4, "x", "cutoff", "at least 1"),
    ("unknown_role", HEADER + "  - id: x\n    query: q\n"
     "    accepted: [{file: a.py, roles: [definiton]}]\n", 6, "x", "roles", "unknown role"),
    ("short_revision", HEADER + "  - id: x\n    query: q\n    revision: abc123\n"
     "    accepted: [{file: a.py}]\n", 4, "x", "revision", "40"),
    ("non_hex_revision", HEADER + "  - id: x\n    query: q\n    revision: " + "g" * 40 + "\n"
     "    accepted: [{file: a.py}]\n", 4, "x", "revision", "hex"),
    ("group_without_flag_or_targets", HEADER + "  - id: x\n    query: q\n    groups:\n"
     "      - id: lonely\n", 7, "x", "groups", "no 'required' flag and no targets"),
    ("typo_accepted", HEADER + "  - id: x\n    query: q\n    acepted: [{file: a.py}]\n", 4, "x",
     "acepted", "unknown key"),
    ("typo_cutoff", HEADER + "  - id: x\n    query: q\n    cutof: 3\n"
     "    accepted: [{file: a.py}]\n", 4, "x", "cutof", "unknown key"),
    ("typo_in_group", HEADER + "  - id: x\n    query: q\n    groups:\n"
     "      - id: g\n        requird: true\n        any_of: [{file: a.py}]\n", 7, "x", "requird",
     "unknown key"),
    ("typo_in_target", HEADER + "  - id: x\n    query: q\n    groups:\n      - id: g\n"
     "        any_of:\n          - file: a.py\n            symbl: f\n", 9, "x", "symbl",
     "unknown key"),
    ("typo_in_accepted_target", HEADER + "  - id: x\n    query: q\n"
     "    accepted:\n      - {file: a.py, role: [test]}\n", 7, "x", "role", "unknown key"),
]


@pytest.mark.parametrize(("name", "text", "line", "case_id", "field", "words"), BAD_YAML,
                         ids=[b[0] for b in BAD_YAML])
def test_bad_yaml_case_file_names_file_line_case_and_field(
        tmp_path: Path, name: str, text: str, line: int, case_id: str, field: str,
        words: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    err = info.value
    assert err.path == str(path)
    assert err.line == line
    assert err.case_id == case_id
    assert err.field == field
    assert words in err.message
    message = _cli_error(tmp_path, path)
    assert f"{path}:{line}" in message
    assert repr(case_id) in message and repr(field) in message


def test_typo_in_defaults_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, f"format: 1\ndefaults:\n  revision: {SHA_A}\n  cutof: 5\n"
                  "cases:\n" + GOOD_CASE)
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.field == "cutof"
    assert info.value.line == 3
    assert "unknown key" in info.value.message
    assert "cutof" in _cli_error(tmp_path, path)


def test_typo_at_top_level_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER.replace("cases:", "defualts: {}\ncases:") + GOOD_CASE)
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.field == "defualts"


def test_missing_format(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER.replace("format: 1\n", "") + GOOD_CASE)
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert "format" in info.value.message
    assert "format" in _cli_error(tmp_path, path)


def test_unsupported_format(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER.replace("format: 1", "format: 7") + GOOD_CASE)
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.field == "format"
    _cli_error(tmp_path, path)


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "  - id: x\n    query: [unclosed\n    accepted: []\n")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.line is not None
    assert "invalid YAML" in info.value.message
    assert "invalid YAML" in _cli_error(tmp_path, path)


def test_duplicate_yaml_key_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "  - id: x\n    query: q\n    query: r\n"
                  "    accepted: [{file: a.py}]\n")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.line == 6
    _cli_error(tmp_path, path)


def test_wrong_type_names_the_field(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "  - id: x\n    query: q\n    cutoff: five\n"
                  "    accepted: [{file: a.py}]\n")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.field == "cutoff"
    assert info.value.case_id == "x"
    assert info.value.line == 4
    _cli_error(tmp_path, path)


def test_missing_case_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_cases(str(tmp_path / "nope.yaml"))
    assert "not found" in info.value.message
    assert "not found" in _cli_error(tmp_path, tmp_path / "nope.yaml")


def test_missing_attempts_file(tmp_path: Path) -> None:
    cases = _write(tmp_path, HEADER + GOOD_CASE)
    line = _cli_error(tmp_path, cases, tmp_path / "absent.jsonl")
    assert "absent.jsonl" in line and "not found" in line


def test_no_cases_at_all(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER.replace("cases:", "cases: []"))
    with pytest.raises(SchemaError):
        load_cases(str(path))
    _cli_error(tmp_path, path)


def test_top_level_not_a_mapping(tmp_path: Path) -> None:
    path = _write(tmp_path, "- just\n- a list\n")
    with pytest.raises(SchemaError):
        load_cases(str(path))
    _cli_error(tmp_path, path)


# --- JSON and JSONL ---------------------------------------------------------------------


def test_json_case_file_loads_and_validates(tmp_path: Path) -> None:
    good = {"id": "good", "query": "q", "accepted": [{"file": "src/a.py"}]}
    path = write_cases(tmp_path, [good], name="cases.json")
    assert [c.id for c in load_cases(str(path)).cases] == ["good"]
    bad = write_cases(tmp_path, [good, {**good, "id": "b", "cutoff": 0}], name="bad.json")
    with pytest.raises(SchemaError) as info:
        load_cases(str(bad))
    assert (info.value.case_id, info.value.field) == ("b", "cutoff")
    assert "'b'" in _cli_error(tmp_path, bad)


def test_json_unknown_key_names_case_and_field(tmp_path: Path) -> None:
    good = {"id": "good", "query": "q", "accepted": [{"file": "src/a.py"}]}
    bad = write_cases(tmp_path, [good, {"id": "b", "query": "q", "acepted": []}], name="c.json")
    with pytest.raises(SchemaError) as info:
        load_cases(str(bad))
    assert (info.value.case_id, info.value.field) == ("b", "acepted")
    _cli_error(tmp_path, bad)


def test_json_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"format": 1, "cases": [', encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert "invalid JSON" in info.value.message
    _cli_error(tmp_path, path)


def test_jsonl_case_file_with_header_line(tmp_path: Path) -> None:
    cases = [{"id": f"c{i}", "query": "q", "accepted": [{"file": "src/a.py"}]} for i in range(3)]
    cases[1]["cutoff"] = 2
    path = write_cases(tmp_path, cases, name="cases.jsonl")
    loaded = load_cases(str(path))
    assert [c.id for c in loaded.cases] == ["c0", "c1", "c2"]
    assert [c.cutoff for c in loaded.cases] == [5, 2, 5]  # header defaults apply
    assert all(c.revision == SHA_A for c in loaded.cases)
    assert loaded.cases[1].line == 3


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    cases = [{"id": f"c{i}", "query": "q", "accepted": [{"file": "src/a.py"}]} for i in range(3)]
    cases[2]["accepted"] = [{"file": "src/a.py", "roles": ["nope"]}]
    path = write_cases(tmp_path, cases, name="cases.jsonl")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert (info.value.line, info.value.case_id, info.value.field) == (4, "c2", "roles")
    assert f"{path}:4" in _cli_error(tmp_path, path)

    cases[2] = {"id": "c2", "query": "q", "cutof": 1, "accepted": [{"file": "a.py"}]}
    path = write_cases(tmp_path, cases, name="typo.jsonl")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert (info.value.line, info.value.case_id, info.value.field) == (4, "c2", "cutof")

    path.write_text(path.read_text().splitlines()[0] + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.line == 2


# --- attempts and results files -----------------------------------------------------------


@pytest.mark.parametrize(("bad_line", "words"), [
    ("{not json", "invalid JSON"),
    ('{"attempt_id": "z", "case_id": 3}', "case_id"),
    ('{"attempt_id": "z", "case_id": "good", "rankd": []}', "rankd"),
    ('{"attempt_id": "z", "case_id": "good", "ranked": [{"chunk_id": "x"}]}', "file"),
])
def test_malformed_attempts_line_is_reported_with_its_line(
        tmp_path: Path, bad_line: str, words: str) -> None:
    cases = _write(tmp_path, HEADER + GOOD_CASE)
    good = json.dumps(attempt("a1", "good", [chunk("c1", "src/a.py")]))
    attempts = tmp_path / "attempts.jsonl"
    attempts.write_text(f"{good}\n\n{good}\n{bad_line}\n", encoding="utf-8")
    line = _cli_error(tmp_path, cases, attempts)
    assert f"{attempts}:4" in line
    assert words in line


def test_gate_refuses_a_file_that_is_not_results(tmp_path: Path) -> None:
    cases = _write(tmp_path, HEADER + GOOD_CASE)
    policy = tmp_path / "policy.yaml"
    policy.write_text("format: 1\nrules: [{metric: hit_rate, min: 0.5}]\n", encoding="utf-8")
    with pytest.raises(SchemaError):
        load_results(str(cases))
    for not_results in (cases, _attempts(tmp_path)):
        res = CliRunner().invoke(cli, ["gate", str(not_results), "--policy", str(policy)])
        assert res.exit_code == 2, res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), res.output
        assert "Traceback" not in res.output


# --- defaults merge -----------------------------------------------------------------------


def test_defaults_merge(tmp_path: Path) -> None:
    other = "c" * 40
    path = _write(tmp_path, f"""\
        format: 1
        defaults:
          repository: acme/shop
          revision: {SHA_A}
          cutoff: 5
          query_class: descriptive
          forbidden: ["src/legacy/"]
          tags: {{area: auth, risk: low}}
        cases:
          - id: plain
            query: q
            accepted: [{{file: src/a.py, symbol: f}}, {{file: "src/b/*.py"}}]
          - id: custom
            query: q
            revision: {other}
            cutoff: 2
            query_class: exact_identifier
            forbidden: ["vendor/**"]
            tags: {{risk: high, owner: team-x}}
            groups:
              - id: main
                any_of: [{{file: src/a.py}}]
              - id: extra
                required: false
                any_of: [{{file: docs/a.md, roles: [docs]}}]
        """)
    plain, custom = load_cases(str(path)).cases
    assert plain.revision == SHA_A and plain.cutoff == 5 and plain.query_class == "descriptive"
    assert plain.forbidden == ("src/legacy/",)
    assert plain.tags == {"area": "auth", "risk": "low"}
    # accepted shorthand = one required group holding every target
    assert len(plain.groups) == 1 and plain.groups[0].required
    assert [t.file for t in plain.groups[0].any_of] == ["src/a.py", "src/b/*.py"]
    assert plain.groups[0].any_of[0].symbol == "f"

    assert custom.revision == other and custom.cutoff == 2
    assert custom.query_class == "exact_identifier"
    assert custom.forbidden == ("src/legacy/", "vendor/**")  # case list added to defaults
    assert custom.tags == {"area": "auth", "owner": "team-x", "risk": "high"}
    assert [(g.id, g.required) for g in custom.groups] == [("main", True), ("extra", False)]
    assert custom.groups[1].any_of[0].roles == ("docs",)
    assert custom.repository == "acme/shop"


def test_every_group_supporting_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "  - id: x\n    query: q\n    groups:\n"
                  "      - {id: g, required: false, any_of: [{file: a.py}]}\n")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert info.value.field == "groups"
    _cli_error(tmp_path, path)


def test_bad_tag_value_names_the_tags_field(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "  - id: x\n    query: q\n    accepted: [{file: a.py}]\n"
                  "    tags: {k: [1, 2]}\n")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert (info.value.case_id, info.value.field, info.value.line) == ("x", "tags", 7)
    _cli_error(tmp_path, path)


def test_case_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "  - just a string\n")
    with pytest.raises(SchemaError) as info:
        load_cases(str(path))
    assert (info.value.field, info.value.line) == ("cases", 4)
