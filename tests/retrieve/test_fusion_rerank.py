"""Fusion arithmetic, globs, config loading, rerank multipliers, expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.errors import SchemaError
from codegold.index.records import IndexedChunk
from codegold.retrieve.config import load_config
from codegold.retrieve.fusion import rrf, weighted
from codegold.retrieve.globs import GlobSet
from codegold.retrieve.rerank import Scored, rerank, same_file_decay


def test_rrf_by_hand() -> None:
    fused = rrf({"a": [("x", 9.0), ("y", 1.0)], "b": [("y", 5.0)]}, {"a": 1.0, "b": 2.0}, k=10)
    scores = {f.chunk_id: f.score for f in fused}
    assert scores["x"] == pytest.approx(1 / 11)
    assert scores["y"] == pytest.approx(1 / 12 + 2 / 11)
    assert [f.chunk_id for f in fused] == ["y", "x"]
    assert fused[0].contributions == pytest.approx({"a": 1 / 12, "b": 2 / 11})


def test_weighted_normalises_each_signal() -> None:
    fused = weighted({"a": [("x", 10.0), ("y", 0.0)], "b": [("y", 3.0)]}, {"a": 1.0, "b": 0.5})
    scores = {f.chunk_id: f.score for f in fused}
    assert scores["x"] == pytest.approx(1.0)
    assert scores["y"] == pytest.approx(0.05 + 0.5)


def test_ties_break_on_chunk_id() -> None:
    fused = rrf({"a": [("b", 1.0)], "c": [("a", 1.0)]}, {}, k=60)
    assert [f.chunk_id for f in fused] == ["a", "b"]


def path_matches(path: str, pattern: str) -> bool:
    return GlobSet([pattern]).matches(path)


def test_globs() -> None:
    assert path_matches("src/legacy/x.py", "src/legacy/")
    assert path_matches("src/legacy/x.py", "src/legacy")
    assert not path_matches("src/legacyx.py", "src/legacy")
    assert path_matches("a/b/tests/t.py", "**/tests/**")
    assert path_matches("tests/t.py", "**/tests/**")
    assert path_matches("pkg/x_test.go", "**/*_test.go")
    assert not path_matches("pkg/sub/x.py", "pkg/*.py")


def test_config_override_and_errors(tmp_path: Path) -> None:
    default = load_config()
    assert default.fusion.method == "rrf" and 0 < default.rerank.category_penalty["test"] < 1
    override = tmp_path / "c.yaml"
    override.write_text("fusion: {method: weighted, weights: {lexical: 2.0}}\n")
    config = load_config(override)
    assert config.fusion.method == "weighted"
    assert config.fusion.weights["lexical"] == 2.0
    assert config.fusion.weights["symbol"] == default.fusion.weights["symbol"]  # merged
    bad = tmp_path / "bad.yaml"
    bad.write_text("fusion: {metod: rrf}\n")
    with pytest.raises(SchemaError, match="metod"):
        load_config(bad)
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("fusion: {method: borda}\n")
    with pytest.raises(SchemaError, match="unknown method 'borda'"):
        load_config(wrong)


def _chunk(cid: str, file: str, role: str = "definition", *, has_signature: bool = True,
           prev_id: str | None = None) -> IndexedChunk:
    return IndexedChunk(id=cid, file=file, start_line=1, end_line=2, symbol=None, symbols=(),
                        kind="function", role=role, language="python", revision="r", blob_sha="b",
                        parent_id=None, prev_id=prev_id, next_id=None, has_signature=has_signature,
                        text="x")


def test_rerank_penalises_tests_unless_asked_and_boosts_open_file() -> None:
    config = load_config().rerank
    items = [Scored(chunk=_chunk("t", "tests/test_a.py", "test"), score=1.0),
             Scored(chunk=_chunk("d", "src/a.py"), score=0.8)]
    out = rerank(items, config=config, intent="general", asks_for=frozenset(), open_file=None)
    assert [s.chunk.id for s in out] == ["d", "t"]
    assert out[1].factors == {"path:test": config.category_penalty["test"]}
    asked = rerank(items, config=config, intent="tests", asks_for=frozenset({"test"}), open_file=None)
    assert [s.chunk.id for s in asked] == ["t", "d"]
    near = rerank([Scored(chunk=_chunk("x", "lib/x.py"), score=1.0),
                   Scored(chunk=_chunk("y", "src/y.py"), score=0.9)],
                  config=config, intent="general", asks_for=frozenset(), open_file="src/z.py")
    assert [s.chunk.id for s in near] == ["y", "x"]
    assert near[0].factors["open_dir"] == config.open_file.same_dir
    assert "open_dir" not in near[1].factors


def test_a_question_that_states_no_intent_prefers_definitions() -> None:
    # "crash when the header is empty": the answer defines something; a module's loose
    # statements and call sites that repeat the words come after it.
    config = load_config().rerank
    items = [Scored(chunk=_chunk("m", "src/app.py", "call_site"), score=1.0),
             Scored(chunk=_chunk("r", "src/setup.py", "reference"), score=1.0),
             Scored(chunk=_chunk("d", "src/headers.py"), score=0.9)]
    out = rerank(items, config=config, intent="general", asks_for=frozenset(), open_file=None)
    assert out[0].chunk.id == "d"
    assert out[0].factors == {"role:definition": config.role_preference["general"]["definition"]}
    assert config.role_preference["general"]["definition"] > 1.0
    # "Which migration stores tokens hashed?": the role asked for is not overtaken.
    asked = rerank([Scored(chunk=_chunk("g", "db/002_hash.sql", "migration"), score=1.0),
                    Scored(chunk=_chunk("d", "src/tokens.py"), score=0.9)],
                   config=config, intent="general", asks_for=frozenset({"migration"}),
                   open_file=None)
    assert [s.chunk.id for s in asked] == ["g", "d"]
    assert "role:definition" not in asked[1].factors


def test_same_file_decay_spreads_files() -> None:
    items = [Scored(chunk=_chunk("a1", "a.py"), score=1.0), Scored(chunk=_chunk("a2", "a.py"), score=0.9),
             Scored(chunk=_chunk("b1", "b.py"), score=0.8)]
    out = same_file_decay(items, 0.5)
    assert [s.chunk.id for s in out] == ["a1", "b1", "a2"]
    assert out[2].score == pytest.approx(0.45)


class _Reader:
    def __init__(self, chunks: list[IndexedChunk]) -> None:
        self.chunks = {c.id: c for c in chunks}

    def get(self, chunk_id: str) -> IndexedChunk | None:
        return self.chunks.get(chunk_id)


def test_expansion_adds_missing_signature_after_its_part() -> None:
    from codegold.retrieve.expand import expand
    from codegold.retrieve.filters import Filters

    head = _chunk("head", "a.py")
    tail = _chunk("tail", "a.py", has_signature=False, prev_id="head")
    other = _chunk("o", "b.py")
    ranked = [Scored(chunk=tail, score=1.0), Scored(chunk=other, score=0.5)]
    # Off by default (it paid on no evaluation set); a consumer turns it on.
    assert not load_config().expansion.enabled
    config = load_config(overrides={"expansion": {"enabled": True}}).expansion
    out, added = expand(_Reader([head, tail, other]), ranked, k=3, config=config,  # type: ignore[arg-type]
                        filters=Filters())
    assert [s.chunk.id for s in out] == ["tail", "head", "o"]
    assert added == ["head"]
    out2, _ = expand(_Reader([head, tail, other]), ranked, k=2, config=config,  # type: ignore[arg-type]
                     filters=Filters())
    assert [s.chunk.id for s in out2] == ["tail", "head"]
    off, none = expand(_Reader([head, tail, other]), ranked, k=3,  # type: ignore[arg-type]
                       config=load_config().expansion, filters=Filters())
    assert [s.chunk.id for s in off] == ["tail", "o"] and none == []


def test_default_categories_mark_legacy_modules_and_code_under_docs() -> None:
    from codegold.retrieve.rerank import Categories

    categories = Categories(load_config().rerank.category_patterns)
    assert "legacy" in categories.of_path("src/pkg/legacypath.py")
    assert "legacy" in categories.of_path("lib/api_legacy.py")
    assert "docs" in categories.of_path("doc/en/example/nonpython/conftest.py")
    assert "docs" in categories.of_path("docs/examples/app.py")
    assert categories.of_path("src/pkg/docstrings.py") == frozenset()
    assert categories.of_path("src/pkg/session.py") == frozenset()


def test_short_queries_have_their_own_settings() -> None:
    short = load_config().short_query
    assert short.applies("where is the redirect limit enforced")
    assert not short.applies("Redirect limit ignored. " * 20)
    assert short.weights["file"] == 0.0 and short.stem


def test_a_same_name_forwarder_is_demoted_unless_named() -> None:
    from codegold.index.records import IndexedChunk
    from codegold.retrieve.config import load_config
    from codegold.retrieve.rerank import Categories, is_forwarder, multipliers

    def chunk(text: str, symbol: str, kind: str = "function") -> IndexedChunk:
        return IndexedChunk(id="x", file="f.go", start_line=1, end_line=3, symbol=symbol,
                            symbols=(symbol,), kind=kind, role="definition", language="go",
                            revision="r", blob_sha="b", parent_id=None, prev_id=None,
                            next_id=None, text=text, has_signature=True)

    facade = chunk("// GET is a shortcut.\nfunc GET(path string) IRoutes {\n"
                   "\treturn engine().GET(path)\n}\n", "GET")
    real = chunk("func (g *RouterGroup) GET(path string) IRoutes {\n"
                 "\treturn g.handle(http.MethodGet, path)\n}\n", "RouterGroup.GET", "method")
    assert is_forwarder(facade) and not is_forwarder(real)
    assert not is_forwarder(chunk("def get(url):\n    return request('get', url)\n", "get"))
    config = load_config().rerank
    kwargs = {"config": config, "intent": "general", "asks_for": frozenset(),
              "open_file": None, "categories": Categories({})}
    assert multipliers(facade, **kwargs)["forwarder"] == config.forwarder < 1.0
    assert "forwarder" not in multipliers(facade, named=True, **kwargs)
    assert "forwarder" not in multipliers(real, **kwargs)


def _defined(text: str, symbol: str, *, role: str = "definition", kind: str = "method"):
    from codegold.index.store import IndexedChunk

    return IndexedChunk(id="c1", file="src/x", start_line=1, end_line=9, symbol=symbol,
                        symbols=(symbol,), kind=kind, role=role, language=None, revision="r",
                        blob_sha="b", parent_id=None, prev_id=None, next_id=None,
                        has_signature=True, text=text)


def test_deprecated_definitions_are_recognised_in_each_languages_spelling() -> None:
    from codegold.retrieve.rerank import is_deprecated

    marked = [
        ("@Deprecated // since 2.9\npublic class Old extends Base\n{\n    public Date parse(String s) {",
         "Old.parse"),  # a member of a deprecated Java class: the header comes first
        ("/**\n * @deprecated use parseNew\n */\nexport function parse(s) {", "parse"),
        ("// Deprecated: use NewRouter.\nfunc OldRouter() *Router {", "OldRouter"),
        ("#[deprecated(note = \"use new\")]\npub fn old() {", "old"),
        ("[Obsolete(\"use New\")]\npublic void Old() {", "Old"),
        ('def session():\n    """Returns a Session.\n\n    .. deprecated:: 1.0.0\n    """',
         "session"),
        ("def old(self):\n    warnings.warn(\n        \"old() is deprecated\",\n"
         "        DeprecationWarning,\n    )", "old"),
    ]
    for text, symbol in marked:
        assert is_deprecated(_defined(text, symbol)), text
    unmarked = [
        # Code about deprecation warnings is not itself deprecated.
        ('def deprecated_call(func=None):\n    """Assert that code produces a DeprecationWarning."""\n'
         "    return warns((DeprecationWarning, PendingDeprecationWarning))", "deprecated_call"),
        ("def invoke(self, ctx):\n    if self.deprecated:\n"
         '        message = "DeprecationWarning: the command is deprecated."\n', "invoke"),
        # A later member's marker inside a class chunk says nothing about the class.
        ("public class Mapper {\n    public void read() {}\n\n    @Deprecated\n    public void old() {}",
         "Mapper"),
    ]
    for text, symbol in unmarked:
        assert not is_deprecated(_defined(text, symbol, kind="class")), text
    assert not is_deprecated(_defined("@Deprecated\nclass Old:", "Old", role="test"))


def test_a_deprecated_copy_is_demoted_unless_named_or_asked_for() -> None:
    from codegold.retrieve.config import load_config
    from codegold.retrieve.rerank import Categories, multipliers

    config = load_config().rerank
    old = _defined("@Deprecated\npublic class Old\n{\n    public void parse() {", "Old.parse")
    common = {"config": config, "intent": "definition", "open_file": None,
              "categories": Categories({})}
    assert multipliers(old, asks_for=frozenset(), **common)["deprecated"] == config.deprecated
    assert "deprecated" not in multipliers(old, asks_for=frozenset(), named=True, **common)
    assert "deprecated" not in multipliers(old, asks_for=frozenset({"legacy"}), **common)


def test_release_notes_and_changelogs_are_docs_unless_asked_for() -> None:
    from codegold.retrieve.config import load_config
    from codegold.retrieve.query import analyze_query
    from codegold.retrieve.rerank import Categories

    categories = Categories(load_config().rerank.category_patterns)
    for path in ("release-notes/VERSION-2.x", "release-notes/CREDITS-2.x", "CHANGELOG.md",
                 "CHANGES.rst", "HISTORY.md", "changelog/1234.bugfix.rst", "pkg/NEWS"):
        assert "docs" in categories.of_path(path), path
    for path in ("src/news_feed.py", "src/changes.py", "lib/history.js"):
        assert "docs" not in categories.of_path(path), path
    assert "docs" in analyze_query("what does the changelog say about 2.1").asks_for
    assert "docs" in analyze_query("which release notes mention the new flag").asks_for


def test_a_question_for_examples_does_not_push_tests_down() -> None:
    config = load_config().rerank
    test = Scored(chunk=_chunk("t", "tests/test_module.py", "test"), score=1.0)
    factors = [s.factors for s in rerank([test], config=config, intent="examples",
                                          asks_for=frozenset(), open_file=None)]
    assert "path:test" not in factors[0]
    assert factors[0]["role:test"] == config.role_preference["examples"]["test"]
    general = rerank([test], config=config, intent="general", asks_for=frozenset(),
                     open_file=None)
    assert general[0].factors["path:test"] == config.category_penalty["test"]


def test_example_programs_are_demoted_unless_asked_for() -> None:
    from codegold.retrieve.query import analyze_query
    from codegold.retrieve.rerank import Categories

    config = load_config().rerank
    categories = Categories(config.category_patterns)
    for path in ("examples/basic/main.go", "_examples/rest/routes.go", "samples/App.java",
                 "demo/index.js", "packages/core/examples/todo.ts"):
        assert "example" in categories.of_path(path), path
    for path in ("src/example_config.py", "lib/sampler.rb", "src/demographics.ts"):
        assert "example" not in categories.of_path(path), path
    assert "docs" in categories.of_path("www/versioned_docs/version-10.x/api.md")
    example = Scored(chunk=_chunk("e", "examples/basic/main.go", "definition"), score=1.0)
    plain = rerank([example], config=config, intent="general", asks_for=frozenset(),
                   open_file=None, categories=categories)
    assert plain[0].factors["path:example"] == config.category_penalty["example"] < 1.0
    for question in ("show me an example of registering a route",
                     "the demo app's route table"):
        analysis = analyze_query(question)
        asked = rerank([example], config=config, intent=analysis.intent,
                       asks_for=analysis.asks_for, open_file=None, categories=categories)
        assert "path:example" not in asked[0].factors, question


def test_path_categories_read_folder_names_whatever_their_case() -> None:
    # Swift and .NET projects write `Examples/`, `Demo/`, `Docs/`, `Benchmarks/`: the
    # folders hold what their lower-case spelling holds elsewhere. On 1,494 mined commits
    # of 29 repositories: 763 -> 765 (+4 / -2), no language lower.
    from codegold.retrieve.globs import GlobSet
    from codegold.retrieve.rerank import Categories

    categories = Categories(load_config().rerank.category_patterns)
    assert "example" in categories.of_path("Examples/math/Math.swift")
    assert "example" in categories.of_path("Demo/Demo/ViewController.swift")
    assert "docs" in categories.of_path("src/Snippets/Docs/Retry.cs")
    assert "benchmark" in categories.of_path("Benchmarks/Parse/Run.cs")
    assert "example" not in categories.of_path("Sources/Demographics/Census.swift")
    # A pattern with a capital keeps its case: `NEWS*` is a release-notes file, not news.py.
    assert "docs" not in categories.of_path("app/news.py")
    assert "docs" in categories.of_path("NEWS.rst")
    # A case's own path patterns stay exact.
    assert not GlobSet(["docs/**"]).matches("Docs/a.md")
    assert GlobSet(["docs/**"], smart_case=True).matches("Docs/a.md")
    assert not GlobSet(["NEWS*"], smart_case=True).matches("news.py")
