"""The reference retriever on a tiny real index: intent, roles, paths, frames, filters, depth."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from codegold.index.store import IndexReader
from codegold.retrieve.config import load_config
from codegold.retrieve.filters import Filters
from codegold.retrieve.reference import ReferenceRetriever


@pytest.fixture
def retriever(fixture_index: Path) -> Iterator[ReferenceRetriever]:
    with IndexReader.open(fixture_index) as reader:
        yield ReferenceRetriever(reader, load_config())


def _top(retriever: ReferenceRetriever, query: str, **kwargs: object) -> list[tuple[str, str | None]]:
    result = retriever.retrieve(query, **kwargs)  # type: ignore[arg-type]
    return [(s.chunk.file, s.chunk.symbol) for s in result.ranked]


def _holds(retriever: ReferenceRetriever, query: str, k: int) -> list[tuple[str, tuple[str, ...]]]:
    """(file, every symbol) per ranked chunk: robust to how the chunker groups members."""
    result = retriever.retrieve(query, k=k)
    return [(s.chunk.file, (*(s.chunk.symbols), s.chunk.symbol or "")) for s in result.ranked]


def test_definition_question_prefers_current_definition(retriever: ReferenceRetriever) -> None:
    top = _holds(retriever, "How does create_session handle an expired refresh token?", k=5)
    assert top[0][0] == "src/auth/session_service.py"
    assert "SessionService.create_session" in top[0][1]
    assert [file for file, _ in top].index("src/legacy/old_sessions.py") > 0


def test_legacy_is_not_penalised_when_asked_for(retriever: ReferenceRetriever) -> None:
    assert _top(retriever, "legacy create_session", k=3)[0] == ("src/legacy/old_sessions.py",
                                                                 "create_session")


def test_tests_intent_prefers_test_chunks(retriever: ReferenceRetriever) -> None:
    top = _top(retriever, "how do tests fake the session store", k=3)
    assert top[0][0] == "tests/test_sessions.py"
    # Asked without tests in mind, the same words rank source first.
    assert _top(retriever, "session store put", k=3)[0][0] != "tests/test_sessions.py"


def test_open_file_breaks_a_tie_between_folders(retriever: ReferenceRetriever) -> None:
    assert _top(retriever, "total", k=2, open_file="web/cart.ts")[0][0] == "web/cart.ts"
    assert _top(retriever, "total", k=2, open_file="src/billing/x.py")[0][0] == "src/billing/invoice.py"


def test_stack_trace_frame_finds_the_failing_function(retriever: ReferenceRetriever) -> None:
    query = ('Traceback (most recent call last):\n'
             '  File "/srv/app/src/auth/refresh.py", line 5, in validate_refresh_token\n'
             'AttributeError: expires_at\n')
    result = retriever.retrieve(query, k=3)
    assert result.ranked[0].chunk.symbol == "validate_refresh_token"
    assert {"symbol", "path"} <= set(result.ranked[0].contributions)


def test_qualified_name_lookup(retriever: ReferenceRetriever) -> None:
    top = _holds(retriever, "SessionService.end_session", k=3)
    assert top[0][0] == "src/auth/session_service.py"
    assert "SessionService.end_session" in top[0][1]


def test_filters(retriever: ReferenceRetriever) -> None:
    files = {f for f, _ in _top(retriever, "total items price", k=5,
                                filters=Filters(language="typescript"))}
    assert files == {"web/cart.ts"}
    files = {f for f, _ in _top(retriever, "session", k=10, filters=Filters(exclude=("src/**",)))}
    assert files and not any(f.startswith("src/") for f in files)


def test_ranking_is_as_deep_as_asked_and_deterministic(retriever: ReferenceRetriever,
                                                       fixture_index: Path) -> None:
    with IndexReader.open(fixture_index) as reader:
        total = reader.chunk_count()
    nonsense = retriever.retrieve("zzzz qqqq", k=12)
    assert len(nonsense.ranked) == min(12, total)
    first = [s.chunk.id for s in retriever.retrieve("session token", k=8).ranked]
    again = [s.chunk.id for s in retriever.retrieve("session token", k=8).ranked]
    assert first == again and len(first) == 8
    everything = retriever.retrieve("session", k=total + 10)
    assert len(everything.ranked) == total


def test_candidates_and_timing_are_recorded(retriever: ReferenceRetriever) -> None:
    result = retriever.retrieve("create_session", k=3)
    assert len(result.candidates) >= len(result.ranked)
    assert {"analyze", "lexical", "fusion", "rerank", "total"} <= set(result.timing_ms)
    assert "create_session" in result.rewritten


def _index_of(tmp_path: Path, files: dict[str, str]) -> Path:
    import subprocess

    from codegold.index import build_index

    repo = tmp_path / "repo"
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    for args in (["init", "-q"], ["-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A"],
                 ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "x"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    revision = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    out = tmp_path / "index"
    build_index(repo, revision, out, repository="acme/words")
    return out


def test_a_word_the_product_itself_uses_does_not_ask_for_tests(tmp_path: Path) -> None:
    # A test framework: "fixture" is in most of its own (non-test) files. A bare
    # "fixture" in a question is about the product, so its test files keep their penalty.
    files = {
        "src/fw/fixtures.py": 'def fixture_finalizers(fixture):\n    """Run each fixture finalizer in reverse order."""\n    return list(reversed(fixture.finalizers))\n',
        "src/fw/runner.py": 'def run(fixture):\n    return fixture.setup()\n',
        "src/fw/scope.py": 'def scope_of(fixture):\n    return fixture.scope\n',
        "tests/test_fixtures.py": 'def test_fixture_finalizers_order(fixture):\n    """fixture finalizer order reverse"""\n    assert fixture_finalizers(fixture) == []\n',
    }
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        result = retriever.retrieve("in what order does each fixture finalizer run", k=2)
        assert result.analysis.intent == "general"
        assert "test" not in result.analysis.asks_for
        assert result.ranked[0].chunk.file == "src/fw/fixtures.py"
        # Phrased as a question about tests, it still asks for them.
        asked = retriever.retrieve("which tests cover the fixture finalizer order", k=2)
        assert asked.ranked[0].chunk.file == "tests/test_fixtures.py"


def test_a_word_of_testing_still_asks_for_tests_where_the_product_seldom_uses_it(
        retriever: ReferenceRetriever) -> None:
    result = retriever.retrieve("the fake store the session fixture uses", k=3)
    assert result.analysis.intent == "tests" and "test" in result.analysis.asks_for
    assert result.ranked[0].chunk.file == "tests/test_sessions.py"


def test_whole_file_signal_runs_for_issue_reports_only(retriever: ReferenceRetriever) -> None:
    short = retriever.retrieve("how is an expired refresh token rejected", k=3)
    assert "file" not in short.signal_hits
    report = ("Creating a session with an expired refresh token is accepted. " * 5).strip()
    assert "file" in retriever.retrieve(report, k=3).signal_hits


def test_short_questions_are_searched_by_stems(retriever: ReferenceRetriever) -> None:
    # The code says "expired"; the question says "expiring".
    result = retriever.retrieve("expiring", k=3)
    assert result.signal_hits.get("lexical", 0) > 0
    assert "src/auth/refresh.py" in {s.chunk.file for s in result.ranked}


def test_learnt_ranker_sees_the_signals_it_was_trained_on(fixture_index: Path) -> None:
    # Forced onto short queries, the learnt ranker still gets the whole-file signal and
    # plain terms: the short-question settings are for the fused ranking only.
    import msgspec

    config = load_config()
    config = msgspec.structs.replace(config, ranker=msgspec.structs.replace(
        config.ranker, min_query_chars=0))
    with IndexReader.open(fixture_index) as reader:
        result = ReferenceRetriever(reader, config).retrieve("how is an expired token rejected",
                                                             k=3)
        assert "file" in result.signal_hits
        assert "ltr" in result.ranked[0].factors


def test_a_qualified_name_with_a_short_member_gets_the_symbol_signal(tmp_path: Path) -> None:
    # "sel" alone is too short to trust as a name; after "Dataset." it is a member name.
    files = {
        "pkg/dataset.py": 'class Dataset:\n    def sel(self, indexers):\n        """Select by label."""\n        return self._select(indexers)\n',
        "pkg/indexes.py": 'class Index:\n    def sel(self, labels):\n        """Index label selection: sel labels index."""\n        return labels\n',
    }
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        result = retriever.retrieve("Dataset.sel", k=2)
        assert result.ranked[0].chunk.file == "pkg/dataset.py"
        assert result.ranked[0].contributions.get("symbol", 0.0) > 0.0
        # A bare short lower-case word still gets no symbol signal.
        assert all("symbol" not in s.contributions for s in retriever.retrieve("sel", k=2).ranked)


# A stop word or a short plain word is not trusted as a name unless the writer marks it
# as code: alone in backticks ("Fix `use` with keyword arguments" asks for the method
# `use`), or with empty call parentheses ("retry()"). A conventional commit's scope
# ("fix(retry):") is no such mark.
@pytest.mark.parametrize(("files", "marked", "name", "unmarked"), [
    ({"lib/base.rb": "def use(middleware, *args)\n  @middleware << [middleware, args]\nend\n",
      "lib/options.rb": "def keyword_arguments(options)\n  options.to_h\nend\n"},
     "Fix `use` with keyword arguments", "use", "Fix use with keyword arguments"),
    ({"lib/api.py": "def retry(fn):\n    return fn\n",
      "lib/base.py": "class RetryBase:\n    def when(self):\n        return 'calling again'\n"},
     "Warn when calling retry() on a base", "retry", "fix(retry): warn when calling on a base"),
], ids=["backticks", "call-parentheses"])
def test_a_plain_name_marked_as_code_is_looked_up(tmp_path: Path, files: dict[str, str],
                                                 marked: str, name: str, unmarked: str) -> None:
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        found = retriever.retrieve(marked, k=2).ranked
        assert found[0].chunk.symbol == name
        assert found[0].contributions.get("symbol", 0.0) > 0.0
        plain = retriever.retrieve(unmarked, k=2).ranked
        assert all("symbol" not in s.contributions for s in plain)


def test_the_first_line_of_a_long_query_weighs_more(tmp_path: Path) -> None:
    # Each chunk holds two of the query's four words; the first line decides which wins.
    files = {
        "lib/cache.py": 'def evict(store):\n    """Drop the stale cache entry."""\n    return store\n',
        "lib/retry.py": 'def backoff(delay):\n    """Sleep before the next retry attempt."""\n    return delay\n',
    }
    about_cache = "Stale cache entry\n\nThe retry attempt misses it."
    about_retry = "Retry attempt too early\n\nA stale cache entry is read."
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        assert retriever.retrieve(about_cache, k=2).ranked[0].chunk.file == "lib/cache.py"
        assert retriever.retrieve(about_retry, k=2).ranked[0].chunk.file == "lib/retry.py"
        # Without the title's weight both queries are the same bag of words: one order.
        config = load_config()
        lexical = msgspec.structs.replace(config.signals.lexical, title_weight=0.0)
        flat = ReferenceRetriever(reader, msgspec.structs.replace(
            config, signals=msgspec.structs.replace(config.signals, lexical=lexical)))
        assert (flat.retrieve(about_cache, k=2).ranked[0].chunk.file
                == flat.retrieve(about_retry, k=2).ranked[0].chunk.file)


def test_the_whole_file_signal_weighs_a_long_querys_first_line(tmp_path: Path) -> None:
    from codegold.retrieve.signals import file_level

    files = {
        "lib/cache.py": 'def evict(store):\n    """Drop the stale cache entry."""\n    return store\n',
        "lib/retry.py": 'def backoff(delay):\n    """Sleep before the next retry attempt."""\n    return delay\n',
    }
    config = load_config()
    terms = ("stale", "cache", "retry", "attempt")
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        def first_file(title: tuple[str, ...]) -> str:
            hits = file_level(reader, terms, config.signals.lexical, config.signals.file, 5, title)
            top = reader.get_many([hits[0][0]])[0]
            return top.file

        assert first_file(("stale", "cache")) == "lib/cache.py"
        assert first_file(("retry", "attempt")) == "lib/retry.py"


def test_constructors_and_declarations_do_not_make_a_class_name_ambiguous(tmp_path: Path) -> None:
    # Five constructors defined in the source and declared in the header are one class,
    # not eleven definitions of "RegEx": the symbol signal still finds the class.
    ctors = "".join(f"  RegEx(int a{i});\n" for i in range(5))
    bodies = "".join(f"RegEx::RegEx(int a{i}) {{ m_{i} = a{i}; }}\n" for i in range(5))
    files = {
        "src/regex.h": f"class RegEx {{\n public:\n{ctors}  bool Matches(char ch) const;\n}};\n",
        "src/regex.cpp": f"#include \"regex.h\"\n{bodies}",
        "src/scanner.cpp": "int Scan(const char* text) { return text[0] == 'x'; }\n",
    }
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        assert len(reader.definitions("RegEx")) > load_config().signals.symbol.max_definitions
        ranked = ReferenceRetriever(reader, load_config()).retrieve(
            "Add an export decorator to the RegEx class", k=10).ranked
        found = {s.chunk.symbol: s for s in ranked if "symbol" in s.contributions}
        assert "RegEx" in found
        constructors = [s for s in ranked if s.chunk.symbol == "RegEx.RegEx"]
        assert constructors and all(
            s.contributions["symbol"] < found["RegEx"].contributions["symbol"]
            for s in constructors if "symbol" in s.contributions)


def test_a_previous_release_line_kept_in_the_tree_is_demoted_unless_named(tmp_path: Path) -> None:
    body = 'def parse_header(raw):\n    """Parse one header line into name and value."""\n    return raw.split(":", 1)\n'
    files = {"src/v3/headers.py": body, "src/v4/headers.py": body, "src/v4/other.py": "x = 1\n"}
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        top = retriever.retrieve("how is a header line parsed into name and value", k=2).ranked[0]
        assert top.chunk.file == "src/v4/headers.py"
        assert "path:legacy" not in top.factors
        named = retriever.retrieve("how did v3 parse a header line into name and value", k=2)
        assert named.ranked[0].chunk.file == "src/v3/headers.py"


def test_a_type_and_its_member_written_apart_find_that_member(tmp_path: Path) -> None:
    # "AsPropertyTypeDeserializer deserializeTypedFromObject": every type deserializer
    # defines the member; the one of the type named beside it is meant, not the type's
    # other methods that repeat its name.
    member = "    def deserializeTypedFromObject(self, parser):\n        return parser.read()\n"
    files = {f"pkg/{name.lower()}.py": f"class {name}:\n{member}"
             for name in ("AsArrayTypeDeserializer", "AsWrapperTypeDeserializer")}
    files["pkg/base.py"] = "class TypeDeserializer:\n" + member
    files["pkg/asproperty.py"] = (
        "class AsPropertyTypeDeserializer:\n"
        "    def __init__(self, other):\n"
        '        """Copy another AsPropertyTypeDeserializer (AsPropertyTypeDeserializer\n'
        '        settings: an AsPropertyTypeDeserializer for the same property)."""\n'
        "        self.other = other\n\n" + "\n".join(
            f"    def helper_{i}(self):\n        return {i}\n" for i in range(40)) + "\n" + member)
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        result = retriever.retrieve("AsPropertyTypeDeserializer deserializeTypedFromObject", k=1)
        assert result.analysis.member_pairs == (
            "AsPropertyTypeDeserializer.deserializeTypedFromObject",)
        assert ("AsPropertyTypeDeserializer.deserializeTypedFromObject"
                in result.ranked[0].chunk.symbols)


def test_a_tasks_opening_verb_does_not_pull_in_every_definition_named_by_it(
        tmp_path: Path) -> None:
    # "Add a timeout to the upload" asks about the upload, not about `add_*`.
    files = {
        "src/cart.py": "".join(f'def add_{name}(cart, item):\n    """Add an upload to the cart."""\n'
                               f'    cart.add(item)\n\n\n' for name in ("item", "line", "fee")),
        "src/upload.py": 'def send_file(client, path, timeout=None):\n    """Upload a file."""\n'
                         '    return client.post(path, timeout=timeout)\n',
    }
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        retriever = ReferenceRetriever(reader, load_config())
        result = retriever.retrieve("Add a timeout to the upload", k=3)
        assert result.analysis.task_words == ("add",)
        assert result.ranked[0].chunk.file == "src/upload.py"
        off = ReferenceRetriever(reader, load_config(
            overrides={"short_query": {"task_words": False}}))
        assert off.retrieve("Add a timeout to the upload", k=3).ranked[0].chunk.file == "src/cart.py"


def test_a_tasks_bare_test_word_does_not_ask_for_tests(tmp_path: Path) -> None:
    # "Fix backoff overflow in retry, add test" is work to do on the retry code (a
    # commit message's "* Add tests" bullet too), not a question about its tests.
    files = {
        "src/retry.py": 'def next_delay(attempt, base):\n    """Backoff delay of a retry."""\n'
                        '    return base * 2 ** attempt\n',
        "tests/test_retry.py": 'def test_next_delay_backoff_overflow():\n'
                               '    """Retry backoff delay does not overflow."""\n'
                               '    assert next_delay(2000, 1.0) > 0\n',
    }
    query = "Fix backoff overflow in retry delay, add test"
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        result = ReferenceRetriever(reader, load_config()).retrieve(query, k=2)
        assert result.analysis.intent != "tests"
        assert result.ranked[0].chunk.file == "src/retry.py"
        off = ReferenceRetriever(reader, load_config(
            overrides={"short_query": {"task_intent": False}}))
        kept = off.retrieve(query, k=2)
        assert kept.analysis.intent == "tests"
        assert kept.ranked[0].chunk.file == "tests/test_retry.py"
        # A question about tests still asks for them.
        asked = ReferenceRetriever(reader, load_config()).retrieve(
            "which test covers the retry backoff overflow", k=2)
        assert asked.analysis.intent == "tests"


def test_feedback_finds_the_answer_that_shares_words_with_the_first_hits(tmp_path: Path) -> None:
    # The question's words are in the caller; the answer uses the caller's other words
    # (drain, sentinel) and none of the question's.
    files = {
        "src/worker.py": ("def stop_worker_on_shutdown(pool):\n"
                          '    """Stop the worker at shutdown: drain its queue, then post the sentinel."""\n'
                          "    drain_queue(pool.queue)\n    post_sentinel(pool.queue)\n"),
        "src/drain.py": ("def drain_queue(queue):\n"
                         '    """Take every pending item until the sentinel arrives."""\n'
                         "    while (item := queue.get()) is not SENTINEL:\n        item.done()\n"),
        "src/colors.py": "def paint(canvas):\n    return canvas.fill('red')\n",
        "src/sizes.py": "def measure(box):\n    return box.width * box.height\n",
    }
    question = "why does the worker hang at shutdown"
    with IndexReader.open(_index_of(tmp_path, files)) as reader:
        config = load_config()
        off_config = msgspec.structs.replace(config, short_query=msgspec.structs.replace(
            config.short_query, feedback=msgspec.structs.replace(
                config.short_query.feedback, weight=0.0)))
        off = ReferenceRetriever(reader, off_config).retrieve(question, k=4)
        assert "src/drain.py" not in [s.chunk.file for s in off.ranked if s.score > 0]
        on_config = msgspec.structs.replace(config, short_query=msgspec.structs.replace(
            config.short_query, feedback=msgspec.structs.replace(
                config.short_query.feedback, weight=0.3)))
        on = ReferenceRetriever(reader, on_config).retrieve(question, k=4)
        files_on = [s.chunk.file for s in on.ranked]
        assert files_on[0] == "src/worker.py"
        assert files_on[1] == "src/drain.py"
        assert on.ranked[1].contributions.get("lexical", 0.0) > 0.0
        # A question that names code is anchored by the name: no words are borrowed.
        named = ReferenceRetriever(reader, on_config).retrieve(
            "why does stop_worker_on_shutdown hang", k=4)
        assert "src/drain.py" not in [s.chunk.file for s in named.ranked if s.score > 0]
