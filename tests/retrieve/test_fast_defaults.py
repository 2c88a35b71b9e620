"""Fast by default: dense off and said so, caches paid at index time and kept across a
re-index of the same build, progress lines in logs. Behaviour only: no timing is asserted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from codegold.cli.main import cli
from codegold.index import build_index
from codegold.index.policy import PathPolicy
from codegold.model import iter_attempts
from codegold.retrieve.config import load_config
from codegold.retrieve.warm import lexical_engines, warm_lexical


def _cases(path: Path, revision: str) -> Path:
    path.write_text(f"""format: 1
defaults: {{repository: acme/fixture, revision: {revision}, cutoff: 3}}
cases:
  - {{id: a, query: cart total, accepted: [{{file: web/cart.ts}}]}}
  - {{id: b, query: expired refresh token, accepted: [{{file: src/auth/refresh.py}}]}}
""")
    return path


def _cache_names(index: Path) -> set[str]:
    return {p.name for p in (index / "lexical").iterdir()} if (index / "lexical").is_dir() \
        else set()


def test_index_builds_the_lexical_caches_with_progress(fixture_repo: tuple[Path, str],
                                                       tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo, revision = fixture_repo
    out = tmp_path / "idx"
    monkeypatch.setenv("CODEGOLD_PROGRESS_SECONDS", "0")
    done = CliRunner().invoke(cli, ["index", str(repo), "--revision", revision, "-o", str(out)])
    assert done.exit_code == 0, done.output
    engines = lexical_engines(load_config())
    assert len(_cache_names(out)) == len(engines) == 3  # chunk, stemmed chunk, file
    assert f"lexical caches: 0/{len(engines)}" in done.output  # a start line in a log
    assert "lexical caches ready for 1 index(es)" in done.output
    # a first query finds them all: nothing is built, the folder is unchanged
    before = {p: p.stat().st_mtime_ns for p in (out / "lexical").rglob("*")}
    ran = CliRunner().invoke(cli, ["search", str(out), "create_session expired token"])
    assert ran.exit_code == 0, ran.output
    assert {p: p.stat().st_mtime_ns for p in (out / "lexical").rglob("*")} == before


def test_a_first_search_without_caches_says_so(fixture_index: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "index"
    shutil.copytree(fixture_index, copy, ignore=shutil.ignore_patterns("lexical"))
    first = CliRunner().invoke(cli, ["search", str(copy), "cart total", "--json"])
    assert first.exit_code == 0, first.output
    assert "building 3 BM25 cache(s) of this index" in first.stderr
    assert first.stdout.startswith("{")  # stdout stays the machine-readable answer
    again = CliRunner().invoke(cli, ["search", str(copy), "cart total", "--json"])
    assert again.exit_code == 0 and "BM25 cache" not in again.stderr
    assert again.stdout == first.stdout


def test_a_many_revision_build_logs_progress_and_builds_caches(
        fixture_repo: tuple[Path, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, revision = fixture_repo
    out = tmp_path / "indexes"
    monkeypatch.setenv("CODEGOLD_PROGRESS_SECONDS", "0")
    done = CliRunner().invoke(cli, ["index", str(repo), "--revisions", revision, "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "indexing revisions: 0" in done.stderr  # a plain line when it starts, in a log
    assert f"{revision[:12]} " in done.stderr and "lexical caches ready" in done.stderr
    assert len(_cache_names(out / revision)) == 3


def test_quiet_index_prints_no_progress(fixture_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, revision = fixture_repo
    done = CliRunner().invoke(cli, ["index", str(repo), "--revision", revision,
                                    "-o", str(tmp_path / "idx"), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "lexical caches" not in done.output


def test_reindexing_the_same_build_keeps_every_cache(fixture_repo: tuple[Path, str],
                                                     tmp_path: Path) -> None:
    repo, revision = fixture_repo
    out = tmp_path / "idx"
    build_index(repo, revision, out)
    warm_lexical(out)
    store = out / "dense" / "store"
    store.mkdir(parents=True)
    (store / "vectors.sqlite").write_bytes(b"stand-in")
    names = _cache_names(out)
    assert names
    build_index(repo, revision, out)  # unchanged revision, same -o
    assert _cache_names(out) == names
    assert (store / "vectors.sqlite").read_bytes() == b"stand-in"
    # another build into the same -o (another path policy): the BM25 caches belong to the
    # old build and go, the vector store (keyed by text) stays
    build_index(repo, revision, out, policy=PathPolicy(exclude=("docs/**",)))
    assert not (out / "lexical").exists()
    assert (store / "vectors.sqlite").read_bytes() == b"stand-in"


def test_a_planted_cache_link_is_never_carried(fixture_repo: tuple[Path, str],
                                               tmp_path: Path) -> None:
    from codegold.errors import InputError
    from codegold.index.build.reuse import carry_caches

    repo, revision = fixture_repo
    out = tmp_path / "idx"
    build_index(repo, revision, out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not a cache")
    (out / "lexical").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError, match="lexical in it is not a directory"):
        build_index(repo, revision, out)  # the output rule refuses the folder outright
    (out / "lexical").unlink()
    # a link one level down (dense/store) passes that rule: the carry step skips it
    (out / "dense").mkdir()
    (out / "dense" / "store").symlink_to(elsewhere, target_is_directory=True)
    built = tmp_path / "built"
    built.mkdir()
    assert carry_caches(out, built, "another build") == []
    assert not (built / "dense").exists() and (out / "dense" / "store").is_symlink()
    build_index(repo, revision, out)
    assert not (out / "dense" / "store").exists()  # gone with the old index, target kept
    assert (elsewhere / "keep.txt").read_text() == "not a cache"


def test_run_says_dense_is_off_and_logs_progress(fixture_index: Path,
                                                 fixture_repo: tuple[Path, str], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEGOLD_DENSE", raising=False)  # the default, as users get it
    monkeypatch.setenv("CODEGOLD_PROGRESS_SECONDS", "0")
    cases = _cases(tmp_path / "cases.yaml", fixture_repo[1])
    out = tmp_path / "attempts.jsonl"
    ran = CliRunner().invoke(cli, ["run", str(cases), "--index", str(fixture_index),
                                   "-o", str(out)])
    assert ran.exit_code == 0, ran.output
    assert ("reference retriever: signals lexical, identifier, symbol, path, file; "
            "dense off (--dense turns it on)") in ran.output
    # not a terminal: a line when it starts, one per case (every 0 s here), one at the end
    assert "running cases: 0/2" in ran.output and "running cases: 2/2" in ran.output
    assert all(a.manifest is not None and a.manifest.embedder is None
               for a in iter_attempts(str(out)))
    quiet = CliRunner().invoke(cli, ["run", str(cases), "--index", str(fixture_index),
                                     "-o", str(tmp_path / "q.jsonl"), "--quiet"])
    assert quiet.exit_code == 0 and "running cases" not in quiet.output


def test_the_report_header_and_compare_name_the_embedder(fixture_index: Path,
                                                         fixture_repo: tuple[Path, str],
                                                         tmp_path: Path) -> None:
    from codegold.assemble import report_header
    from codegold.model import load_results

    cases = _cases(tmp_path / "cases.yaml", fixture_repo[1])
    runner = CliRunner()
    for name in ("a", "b"):
        attempts = tmp_path / f"{name}.jsonl"
        assert runner.invoke(cli, ["run", str(cases), "--index", str(fixture_index), "-o",
                                   str(attempts), "--quiet"]).exit_code == 0
        assert runner.invoke(cli, ["eval", str(cases), str(attempts), "-o",
                                   str(tmp_path / f"{name}.json"), "--quiet"]).exit_code == 0
    results = tmp_path / "a.json"
    assert report_header(load_results(str(results)), results).embedder == "none (dense off)"
    compared = runner.invoke(cli, ["compare", str(tmp_path / "a.json"),
                                   str(tmp_path / "b.json")])
    assert compared.exit_code == 0, compared.output
    assert "| run | retriever | embedder |" in compared.output
    assert compared.output.count("| reference | none (dense off) |") == 2  # Markdown table
    assert "differ in dense retrieval" not in compared.output


def test_warm_lexical_holds_nothing_in_memory_unless_asked(fixture_index: Path,
                                                           tmp_path: Path) -> None:
    import shutil

    from codegold.retrieve import lexindex

    copy = tmp_path / "index"
    shutil.copytree(fixture_index, copy)
    key = str(copy.resolve())
    warm_lexical(copy)
    assert not any(k[0] == key for k in lexindex._LOADED)
    warm_lexical(copy, keep=True)
    assert any(k[0] == key for k in lexindex._LOADED)
    assert os.listdir(copy / "lexical")


def test_the_bundled_defaults_read_by_libyaml_are_the_python_loaders() -> None:
    """The default configuration is parsed by libyaml's safe loader when PyYAML has it:
    the same mapping, key order included, as the Python safe loader's."""
    import yaml

    from codegold.retrieve import config

    config._parsed_defaults.cache_clear()
    fast = config._parsed_defaults()
    slow = yaml.safe_load(config.default_config_text())
    assert fast == slow and repr(fast) == repr(slow)


def test_short_questions_read_an_engine_of_their_own_length_normalisation() -> None:
    config = load_config()
    assert config.short_query.b is not None and config.short_query.b != config.signals.lexical.b
    chunk = [e for e in lexical_engines(config) if e.unit == "chunk" and e.weights
             == config.signals.lexical.field_weights]
    assert {(e.b, e.stemmed) for e in chunk} == {
        (config.signals.lexical.b, False), (config.short_query.b, True)}
    same = load_config(overrides={"short_query": {"b": None}})
    assert {(e.b, e.stemmed) for e in lexical_engines(same)
            if e.unit == "chunk" and e.weights == same.signals.lexical.field_weights} == {
        (same.signals.lexical.b, False), (same.signals.lexical.b, True)}
