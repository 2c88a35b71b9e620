"""One label checker: ``codegold cases check`` and diagnosis's ``stale_label`` give the same
verdict on the same labels, and ``cases check`` catches each kind of label mistake with the
case, the target, what was found and a suggestion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.curate.check import check_cases
from codegold.diagnose.checks import CaseFacts, label_forbids_its_target, look_up, stale_label
from codegold.index import build_index
from codegold.index.catalog import IndexSet
from codegold.index.store import IndexReader
from codegold.labels import LABEL_FAULTS, RepoView
from codegold.model import Case, load_cases
from gitrepo import Repo, git
from runfactory import make_result

CORE = '''class Engine:
    def start(self):
        return compute_total(1)


def compute_total(x):
    return x + 1
'''
HELPERS = '''def helper(value):
    """Format a value for display."""
    return str(value).strip().lower()


def other_helper(value):
    return helper(value) * 2
'''
INIT = "from pkg.core import compute_total\n\n__all__ = ['compute_total']\n"
TEST = ("from pkg.core import compute_total\n\n\n"
        "def test_total():\n    assert compute_total(1) == 2\n")

# (case id, target, forbidden): the label mistakes and one clean label
LABELS: list[tuple[str, str, list[str]]] = [
    ("renamed-file", "{file: pkg/old_name.py, symbol: helper}", []),
    ("typo-symbol", "{file: pkg/core.py, symbol: compute_totl}", []),
    ("wrong-class", "{file: pkg/core.py, symbol: Motor.start}", []),
    ("re-export", "{file: pkg/__init__.py, symbol: compute_total}", []),
    ("test-file", "{file: tests/test_core.py, symbol: compute_total}", []),
    ("test-as-definition", "{file: tests/test_core.py, roles: [definition]}", []),
    ("glob-nothing", "{file: 'pkg/**/*.rs'}", []),
    ("forbids-itself", "{file: pkg/core.py, symbol: compute_total}", ["pkg/"]),
    ("clean", "{file: pkg/core.py, symbol: Engine.start, roles: [definition]}", []),
    ("clean-use", "{file: tests/test_core.py, symbol: compute_total, roles: [test]}", []),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    root = tmp_path_factory.mktemp("labels")
    repo = Repo(root / "repo")
    repo.commit({"pkg/core.py": CORE, "pkg/old_name.py": HELPERS, "pkg/__init__.py": INIT,
                 "tests/test_core.py": TEST}, "first")
    git(repo.path, "mv", "pkg/old_name.py", "pkg/helpers.py")
    sha = repo.commit({}, "rename old_name to helpers")
    git(repo.path, "tag", "v1.0")
    build_index(str(repo.path), sha, root / "idx" / sha, repository="acme/pkg")
    return repo.path, sha, root / "idx"


def _cases_file(tmp_path: Path, sha: str, labels: list[tuple[str, str, list[str]]]) -> Path:
    lines = ["format: 1", f"defaults: {{repository: acme/pkg, revision: '{sha}', cutoff: 5}}",
             "cases:"]
    for case_id, target, forbidden in labels:
        lines += [f"  - id: {case_id}", f"    query: question {case_id}",
                  f"    accepted: [{target}]"]
        if forbidden:
            lines.append(f"    forbidden: {json.dumps(forbidden)}")
    path = tmp_path / "cases.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _diagnosis_verdicts(cases: tuple[Case, ...], reader: IndexReader | None,
                        repo: RepoView | None) -> dict[str, str]:
    """stale_label (and its case-wide half) for every case, as diagnosis runs it."""
    out: dict[str, str] = {}
    for case in cases:
        facts = CaseFacts(result=make_result(case), attempt=None, index=reader, repo=repo)
        whole = label_forbids_its_target(facts)
        if whole is not None:
            out[case.id] = "forbidden_target"
            continue
        for target in case.groups[0].any_of:
            outcome = stale_label(facts, look_up(facts, target))
            if outcome is not None and hasattr(outcome, "summary"):
                out[case.id] = outcome.summary
    return out


def test_cases_check_and_stale_label_agree_on_the_same_labels(
        world: tuple[Path, str, Path], tmp_path: Path) -> None:
    repo_path, sha, idx = world
    cases = load_cases(str(_cases_file(tmp_path, sha, LABELS))).cases
    repo = RepoView(repo_path)
    report = check_cases(cases, IndexSet.from_path(idx), repo=repo)
    checked = {f.case_id: f for f in report.findings
               if f.code in (*LABEL_FAULTS, "forbidden_target")}
    with IndexReader.open(idx / sha) as reader:
        by_index = _diagnosis_verdicts(cases, reader, repo)
    # the same cases are wrong, for the same reason, in the same words
    assert set(checked) == set(by_index)
    for case_id, finding in checked.items():
        if finding.code == "forbidden_target":
            assert by_index[case_id] == "forbidden_target"
        else:
            assert finding.message.startswith(by_index[case_id]), (case_id, finding.message)
    assert {"clean", "clean-use"}.isdisjoint(checked)
    assert len(checked) == len(LABELS) - 2
    # and diagnosis without an index (the file parsed from git) flags the same labels
    by_parse = _diagnosis_verdicts(cases, None, repo)
    assert set(by_parse) == set(by_index)


def _check_json(tmp_path: Path, sha: str, idx: Path, repo: Path | None,
                labels: list[tuple[str, str, list[str]]]) -> dict[str, list[dict[str, object]]]:
    path = _cases_file(tmp_path, sha, labels)
    args = ["cases", "check", str(path), "--index", str(idx), "--json"]
    if repo is not None:
        args += ["--repo", str(repo)]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code in (0, 1), done.output
    by_case: dict[str, list[dict[str, object]]] = {}
    for f in json.loads(done.output)["findings"]:
        by_case.setdefault(str(f["case_id"]), []).append(f)
    return by_case


def test_a_renamed_file_is_followed_through_git_rename_detection(
        world: tuple[Path, str, Path], tmp_path: Path) -> None:
    repo, sha, idx = world
    found = _check_json(tmp_path, sha, idx, repo, LABELS[:1])["renamed-file"][0]
    assert found["code"] == "file_missing" and found["target"] == "pkg/old_name.py :: helper"
    assert found["suggestions"][0] == "pkg/helpers.py"  # type: ignore[index]
    assert "did you mean pkg/helpers.py" in str(found["message"])


def test_a_missing_symbol_suggests_close_names_in_the_file(
        world: tuple[Path, str, Path], tmp_path: Path) -> None:
    _, sha, idx = world
    by_case = _check_json(tmp_path, sha, idx, None, LABELS[1:3])
    typo, wrong_class = by_case["typo-symbol"][0], by_case["wrong-class"][0]
    assert typo["code"] == "symbol_missing"
    assert any("compute_total" in s for s in typo["suggestions"])  # type: ignore[attr-defined]
    assert "compute_totl is not defined in pkg/core.py" in str(typo["message"])
    assert wrong_class["code"] == "symbol_missing"
    assert any("Engine.start" in s for s in wrong_class["suggestions"])  # type: ignore[attr-defined]


def test_a_label_on_an_import_or_a_test_names_where_the_definition_lives(
        world: tuple[Path, str, Path], tmp_path: Path) -> None:
    _, sha, idx = world
    by_case = _check_json(tmp_path, sha, idx, None, LABELS[3:6])
    reexport, in_test = by_case["re-export"][0], by_case["test-file"][0]
    for found in (reexport, in_test):
        assert found["code"] == "defined_elsewhere"
        assert "its definition is in pkg/core.py:6" in str(found["message"])
    assert "(a test file)" in str(in_test["message"])
    assert by_case["test-as-definition"][0]["code"] == "role_mismatch"


def test_a_revision_the_repository_lacks_is_an_error(
        world: tuple[Path, str, Path], tmp_path: Path) -> None:
    repo, sha, idx = world
    other = "1" * 40
    path = _cases_file(tmp_path, sha, LABELS[-2:-1])
    path.write_text(path.read_text() + (
        f"  - id: elsewhere\n    query: q\n    revision: '{other}'\n"
        "    accepted: [{file: pkg/core.py}]\n"), encoding="utf-8")
    done = CliRunner().invoke(cli, ["cases", "check", str(path), "--index", str(idx),
                                    "--repo", str(repo), "--json"])
    assert done.exit_code == 1, done.output
    found = json.loads(done.output)["findings"]
    assert [(f["case_id"], f["code"]) for f in found] == [("elsewhere", "revision_unknown")]
    assert other in found[0]["message"] and str(repo) in found[0]["message"]
    # only unknown revisions: the build says so, in one line
    done = CliRunner().invoke(cli, ["cases", "check", str(_cases_file(tmp_path, other, LABELS[:1])),
                                    "--index", str(idx), "--repo", str(repo)])
    assert done.exit_code == 2 and other in done.output
    assert len([ln for ln in done.output.splitlines() if ln.startswith("error:")]) == 1


def test_a_tag_where_a_sha_belongs_names_the_commit(
        world: tuple[Path, str, Path], tmp_path: Path) -> None:
    repo, sha, idx = world
    path = _cases_file(tmp_path, "v1.0", LABELS[-2:-1])
    done = CliRunner().invoke(cli, ["cases", "check", str(path), "--index", str(idx),
                                    "--repo", str(repo)])
    assert done.exit_code == 2
    lines = [ln for ln in done.output.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and f"resolves to commit {sha}" in lines[0]
    assert "field 'revision'" in lines[0] and "'v1.0'" in lines[0]
    # without --repo the shape error alone, still one line
    done = CliRunner().invoke(cli, ["cases", "check", str(path), "--index", str(idx)])
    assert done.exit_code == 2 and "40-character" in done.output


def test_duplicate_case_ids_are_one_clean_error(world: tuple[Path, str, Path],
                                                tmp_path: Path) -> None:
    _, sha, idx = world
    path = _cases_file(tmp_path, sha, [LABELS[-2], LABELS[-2]])
    done = CliRunner().invoke(cli, ["cases", "check", str(path), "--index", str(idx)])
    assert done.exit_code == 2
    assert "duplicate case id" in done.output and "'clean'" in done.output


def test_a_case_forbidding_its_own_target_is_an_error(world: tuple[Path, str, Path],
                                                      tmp_path: Path) -> None:
    _, sha, idx = world
    found = _check_json(tmp_path, sha, idx, None, [LABELS[7]])["forbids-itself"]
    assert [f["code"] for f in found if f["severity"] == "error"] == ["forbidden_target"]


def test_a_label_on_a_test_double_or_docs_copy_is_warned_with_the_source_definition(
        tmp_path: Path) -> None:
    repo = Repo(tmp_path / "copies")
    sha = repo.commit({
        "pkg/session.py": "def create_session(user):\n    return {'user': user}\n",
        "tests/helpers.py": "def create_session(user):\n    return {'user': 'fake'}\n",
        "docs/example.py": "def create_session(user):\n    return None\n",
        "tests/only_here.py": "def make_fixture():\n    return 1\n",
    })
    build_index(str(repo.path), sha, tmp_path / "idx" / sha, repository="acme/pkg")
    labels = [
        ("test-double", "{file: tests/helpers.py, symbol: create_session}", []),
        ("docs-copy", "{file: docs/example.py, symbol: create_session}", []),
        # asking for a definition where the index gives role docs is an error already
        ("docs-as-definition",
         "{file: docs/example.py, symbol: create_session, roles: [definition]}", []),
        ("source", "{file: pkg/session.py, symbol: create_session}", []),
        ("asks-for-test", "{file: tests/helpers.py, symbol: create_session, roles: [test]}",
         []),
        ("only-copy", "{file: tests/only_here.py, symbol: make_fixture}", []),
    ]
    found = _check_json(tmp_path, sha, tmp_path / "idx", None, labels)
    warned = {case_id: f for case_id, fs in found.items() for f in fs
              if f["code"] == "label_points_at_copy"}
    assert set(warned) == {"test-double", "docs-copy"}
    assert warned["test-double"]["severity"] == "warning"
    assert warned["test-double"]["suggestions"] == ["pkg/session.py"]
    assert "pkg/session.py:1" in str(warned["docs-copy"]["message"])
    assert [f["code"] for f in found["docs-as-definition"]] == ["role_mismatch"]
    assert "source" not in found and "asks-for-test" not in found and "only-copy" not in found
