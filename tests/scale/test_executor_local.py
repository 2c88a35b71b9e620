"""The executor interface without Ray: ``--executor`` parsing, the in-process executor,
errors crossing it, and the code paths that hand jobs to an executor that runs
elsewhere (driven here by an in-process double that claims to be remote)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from scalekit import CASES, EPOCH, normalised_attempts

from codegold.adapters.registry import RetrieverOptions, make_retriever
from codegold.adapters.runner import run_cases
from codegold.adapters.sharded import ShardJob, run_shard, shard_dispatch
from codegold.cli._common import flag
from codegold.errors import (
    CodegoldError,
    CodeIndexError,
    InputError,
    MissingDependency,
    RetrieverError,
    SchemaError,
)
from codegold.execute import ExecutorSpec, LocalExecutor, open_executor, parse_executor
from codegold.execute.base import error_payload, rebuild_error
from codegold.index.catalog import IndexSet
from codegold.index.many import RevisionJob, build_many, build_revision, install_revision
from codegold.model import load_cases
from indexrows import index_rows

T = TypeVar("T")
R = TypeVar("R")


class RemoteDouble:
    """Claims not to run in this process, so callers take their executor path; runs the
    jobs here in reverse order (results arrive out of order, as from a cluster) and
    keeps every job it was given."""

    name = "double"
    in_process = False

    def __init__(self) -> None:
        self.jobs: list[Any] = []

    def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
        self.jobs.extend(jobs)
        for position in reversed(range(len(jobs))):
            yield position, fn(jobs[position])

    def close(self) -> None:
        return None


@pytest.mark.parametrize(("text", "expected"), [
    ("local", ExecutorSpec(kind="local")),
    ("ray", ExecutorSpec(kind="ray")),
    ("ray://head.example:10001", ExecutorSpec(kind="ray", host="head.example", port=10001)),
    ("ray://10.0.0.7", ExecutorSpec(kind="ray", host="10.0.0.7", port=10001)),
    ("ray://[::1]:4321", ExecutorSpec(kind="ray", host="::1", port=4321)),
])
def test_executor_values_parse(text: str, expected: ExecutorSpec) -> None:
    assert parse_executor(text) == expected


def test_a_cluster_spec_prints_as_its_address() -> None:
    assert str(parse_executor("ray://h:1")) == "ray://h:1"
    assert str(parse_executor("ray")) == "ray"


@pytest.mark.parametrize("text", ["", " ray ", "local\n", "Ray", "rays", "ray:", "ray://", "ray://host:0",
                                  "ray://host:65536", "ray://host:port", "ray://ho st:1",
                                  "ray://-host:1", "ray://host:1/path", "dask", "ray://h:1\n2",
                                  "x" * 10_000])
def test_bad_executor_values_are_refused_naming_what_is_accepted(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_executor(text)
    message = str(caught.value)
    # the library names the setting; the CLI's error line names its flag
    assert "'executor'" in message and len(message) < 400
    assert "ray://HOST:PORT" in message
    assert "--executor" in caught.value.worded(lambda setting: f"--{setting}")


def test_local_executor_yields_every_result_in_order() -> None:
    with open_executor("local") as executor:
        assert executor.in_process
        assert list(executor.map(abs, [-3, 1, -2])) == [(0, 3), (1, 1), (2, 2)]


@pytest.mark.parametrize("error", [InputError("bad case", path="c.yaml", line=3),
                                   SchemaError("bad field"), CodeIndexError("bad index"),
                                   RetrieverError("bad answer")])
def test_a_workers_error_comes_back_as_its_own_class_and_sentence(
        error: CodegoldError) -> None:
    again = rebuild_error(*error_payload(error))
    assert type(again) is type(error) and str(again) == str(error)


def test_a_workers_input_error_still_names_its_settings() -> None:
    error = InputError("put {index} on a shared filesystem", path="idx", field="index",
                       settings=("index",))
    again = rebuild_error(*error_payload(error))
    assert type(again) is InputError and str(again) == str(error)
    assert again.worded(flag) == "idx, field '--index': put --index on a shared filesystem"


def test_an_error_of_another_class_comes_back_as_a_codegold_error() -> None:
    error = MissingDependency("onnxruntime", "dense", "--dense")
    again = rebuild_error(*error_payload(error))
    assert isinstance(again, CodegoldError) and str(again) == str(error)


def test_ray_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(MissingDependency, match=r"codegold\[ray\]"), open_executor("ray"):
        pass


def _built_locally(repo: Path, shas: dict[str, str], folder: Path) -> None:
    build_many(repo, folder, sorted(set(shas.values())))


def test_index_many_on_a_remote_executor_installs_the_same_indexes(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    repo, shas = example_repo
    commits = sorted(set(shas.values()))
    _built_locally(repo, shas, tmp_path / "local")
    double = RemoteDouble()
    result = build_many(repo, tmp_path / "remote", commits, executor=double)
    assert sorted(job.commit for job in double.jobs) == commits
    assert all(Path(job.repo).is_absolute() and job.source_date_epoch == EPOCH
               for job in double.jobs)
    assert [m.revision for m in result.built] == [job.commit for job in double.jobs]
    assert result.parsed > 0 and result.store == tmp_path / "remote" / ".chunkstore"
    for commit in commits:
        assert (tmp_path / "remote" / commit / "manifest.json").read_bytes() == \
            (tmp_path / "local" / commit / "manifest.json").read_bytes(), commit
        assert index_rows(tmp_path / "remote" / commit) == index_rows(tmp_path / "local" / commit)
    # Nothing left behind but the indexes and the store.
    assert sorted(p.name for p in (tmp_path / "remote").iterdir()) == [".chunkstore", *commits]
    # Built again: everything is there, no job is sent.
    again = RemoteDouble()
    second = build_many(repo, tmp_path / "remote", commits, executor=again)
    assert again.jobs == [] and second.skipped == tuple(commits)


def test_installing_never_replaces_a_folder_that_is_not_an_index(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = example_repo
    commit = shas["v1"]
    built = build_revision(RevisionJob(str(repo), commit, None, None, None, None))
    target = tmp_path / "idx" / commit
    target.mkdir(parents=True)
    (target / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a codegold index"):
        install_revision(tmp_path / "idx", built, repo)
    assert (target / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (tmp_path / "idx").iterdir()) == [commit]


def test_a_revision_a_worker_cannot_build_stops_the_build_with_its_error(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, _ = example_repo
    with pytest.raises(InputError):
        build_many(repo, tmp_path / "idx", ["no-such-tag"], executor=RemoteDouble())


@pytest.fixture(scope="module")
def indexes(example_repo: tuple[Path, dict[str, str]],
            tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo, shas = example_repo
    folder = tmp_path_factory.mktemp("idx")
    _built_locally(repo, shas, folder)
    return folder


def _run(indexes: Path, out: Path, *, dispatch: Any = None, repeat: int = 1) -> None:
    cases = load_cases(str(CASES)).cases
    retriever = None if dispatch is not None else make_retriever("reference")
    run_cases(cases, retriever, IndexSet.from_path(indexes), out, label="reference",
              run_id="R", repeat=repeat, dispatch=dispatch)


def test_sharded_run_writes_what_a_local_run_writes(indexes: Path, tmp_path: Path) -> None:
    _run(indexes, tmp_path / "local.jsonl", repeat=2)
    double = RemoteDouble()
    dispatch = shard_dispatch(double, "reference", RetrieverOptions(),
                              IndexSet.from_path(indexes), resolve=None, label="reference",
                              default_k=10, require_index=True, repeat=2, shard_size=5)
    _run(indexes, tmp_path / "sharded.jsonl", dispatch=dispatch, repeat=2)
    local = normalised_attempts(tmp_path / "local.jsonl")
    assert local and normalised_attempts(tmp_path / "sharded.jsonl") == local
    jobs: list[ShardJob] = double.jobs
    cases = load_cases(str(CASES)).cases
    revisions = {case.revision for case in cases}
    assert len(revisions) == 2
    # One revision per shard, at most shard_size attempts each, every attempt once.
    assert all(len({case.revision for case, _ in job.items}) == 1 for job in jobs)
    assert all(len(job.items) <= 5 for job in jobs)
    assert sorted((case.id, n) for job in jobs for case, n in job.items) == \
        sorted((case.id, n) for case in cases for n in (1, 2))
    assert all(Path(p).is_absolute() for job in jobs for p in job.indexes.values())


def test_a_sharded_case_without_its_index_gets_the_same_error_attempt(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = example_repo
    only_v1 = tmp_path / "v1"
    build_many(repo, only_v1, [shas["v1"]])
    _run(only_v1, tmp_path / "local.jsonl")
    dispatch = shard_dispatch(RemoteDouble(), "reference", RetrieverOptions(),
                              IndexSet.from_path(only_v1), resolve=None, label="reference",
                              default_k=10, require_index=True, repeat=1)
    _run(only_v1, tmp_path / "sharded.jsonl", dispatch=dispatch)
    sharded = normalised_attempts(tmp_path / "sharded.jsonl")
    assert sharded == normalised_attempts(tmp_path / "local.jsonl")
    assert any('"error": "no index for revision' in line for line in sharded)


def test_a_shard_whose_retriever_spec_is_bad_fails_the_run(indexes: Path,
                                                           tmp_path: Path) -> None:
    dispatch = shard_dispatch(LocalExecutor(), "nonsense:x", RetrieverOptions(),
                              IndexSet.from_path(indexes), resolve=None, label="x",
                              default_k=10, require_index=True, repeat=1)
    with pytest.raises(InputError, match="unknown retriever"):
        _run(indexes, tmp_path / "a.jsonl", dispatch=dispatch)


def test_a_worker_that_cannot_see_the_index_stops_the_run_naming_it(
        indexes: Path, tmp_path: Path) -> None:
    cases = load_cases(str(CASES)).cases
    revision = cases[0].revision
    job = ShardJob(spec="reference", options=RetrieverOptions(),
                   indexes={revision: str(tmp_path / "elsewhere" / revision)}, resolve=None,
                   items=((cases[0], 1),), run_id="R", label="reference", default_k=10,
                   require_index=True, repeat=1)
    with pytest.raises(InputError, match="not there on the worker"):
        run_shard(job)


def test_a_worker_that_cannot_see_the_repository_says_so(tmp_path: Path) -> None:
    job = RevisionJob(str(tmp_path / "nowhere"), "a" * 40, None, None, None, None)
    with pytest.raises(InputError, match="not there on the worker"):
        build_revision(job)


def test_a_worker_that_cannot_see_the_store_builds_the_same_index_without_it(
        example_repo: tuple[Path, dict[str, str]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    repo, shas = example_repo
    unseen = tmp_path / "other-node" / ".chunkstore"
    built = build_revision(RevisionJob(str(repo), shas["v1"], None, None, str(unseen), EPOCH))
    plain = build_revision(RevisionJob(str(repo), shas["v1"], None, None, None, EPOCH))
    assert built.files == plain.files and built.reused == 0
    assert not (tmp_path / "other-node").exists()


def test_with_dense_retrieval_a_revision_is_never_split(indexes: Path) -> None:
    class Recorder(RemoteDouble):
        def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
            self.jobs.extend(jobs)  # runs nothing: only how the work was cut matters here
            return iter(())

    cases = load_cases(str(CASES)).cases
    for dense, expected in ((False, 6), (True, 2)):
        recorder = Recorder()
        dispatch = shard_dispatch(recorder, "reference", RetrieverOptions(dense=dense),
                                  IndexSet.from_path(indexes), resolve=None,
                                  label="reference", default_k=10, require_index=True,
                                  repeat=1, shard_size=5)
        assert list(dispatch([(case, 1) for case in cases], "R")) == []
        assert len(recorder.jobs) >= expected if not dense else len(recorder.jobs) == expected


def _fake_ray(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[str]:
    """A ``ray`` module whose ``init`` fails ``failures`` times as Ray does when its node
    does not come up in time on a loaded machine; returns the calls made."""
    import types

    calls: list[str] = []
    fake = types.ModuleType("ray")

    def init(**kwargs: Any) -> None:
        calls.append("init")
        if calls.count("init") <= failures:
            raise Exception("The current node timed out during startup.\nThis could...")

    fake.is_initialized = lambda: "init" in calls  # type: ignore[attr-defined]
    fake.init = init  # type: ignore[attr-defined]
    fake.shutdown = lambda: calls.append("shutdown")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", fake)
    return calls


def test_a_local_ray_that_fails_to_start_twice_is_one_sentence(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_ray(monkeypatch, failures=2)
    with pytest.raises(CodegoldError) as caught, open_executor("ray"):
        pass
    message = str(caught.value)
    assert message.startswith("cannot start a local Ray: The current node timed out")
    assert "\n" not in message
    assert calls == ["init", "shutdown", "init", "shutdown"]


def test_a_local_ray_that_misses_its_start_once_is_tried_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_ray(monkeypatch, failures=1)
    with open_executor("ray") as executor:
        assert not executor.in_process
    assert calls == ["init", "shutdown", "init", "shutdown"]  # the last: ours, on close
