"""One path-pattern type: each mode, each use's rule, normalization, hostile globs, and
agreement with reference matchers (fnmatch per segment, pathspec's gitignore)."""

from __future__ import annotations

import time
import warnings
from fnmatch import fnmatchcase
from functools import cache

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.errors import InputError
from codegold.evaluate.match import GroupMatcher, file_matches
from codegold.index.policy import PathPolicy
from codegold.index.store import IndexedChunk
from codegold.model import Chunk, Target
from codegold.model.paths import PathPattern, PatternMode, is_glob, normalize_path
from codegold.retrieve.filters import Filters
from codegold.retrieve.globs import GlobSet


def _indexed(file: str) -> IndexedChunk:
    return IndexedChunk(id="c", file=file, start_line=1, end_line=2, symbol=None, symbols=(),
                        kind="function", role="definition", language="python", revision="r",
                        blob_sha="b", parent_id=None, prev_id=None, next_id=None,
                        has_signature=True, text="x")

# --- normalize_path --------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "expected"), [
    ("src/a.py", "src/a.py"),
    ("./src/a.py", "src/a.py"),
    ("././src/a.py", "src/a.py"),
    (".eslintrc.js", ".eslintrc.js"),          # a dotfile keeps its dot
    ("./.eslintrc.js", ".eslintrc.js"),
    ("../src/a.py", "../src/a.py"),            # only whole ./ segments go
    (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
    ("src\\auth\\login.ts", "src/auth/login.ts"),
    (".\\src\\a.py", "src/a.py"),
    ("...hidden", "...hidden"),
])
def test_normalize_path(raw: str, expected: str) -> None:
    assert normalize_path(raw) == expected


# --- each mode ---------------------------------------------------------------------------


def test_exact_mode() -> None:
    pattern = PathPattern.target("src/auth/login.ts")
    assert pattern.mode is PatternMode.EXACT
    assert pattern.matches("src/auth/login.ts")
    assert pattern.matches("./src/auth/login.ts")
    assert pattern.matches("src\\auth\\login.ts")
    assert not pattern.matches("src/auth/login.tsx")
    assert not pattern.matches("x/src/auth/login.ts")


def test_prefix_mode_is_a_literal_string_prefix() -> None:
    pattern = PathPattern.forbidden("src/legacy")
    assert pattern.mode is PatternMode.PREFIX
    assert pattern.matches("src/legacy/a.py")
    assert pattern.matches("src/legacy_old.py")
    assert pattern.matches("./src/legacy_old.py")
    assert not pattern.matches("lib/src/legacy/a.py")
    folder = PathPattern.forbidden("src/legacy/")
    assert folder.matches("src/legacy/a.py")
    assert not folder.matches("src/legacy_old.py")


@pytest.mark.parametrize(("glob", "path", "expected"), [
    ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/sub/a.py", False),        # * stays in one segment
    ("src/?.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False),
    ("test/**/x.ts", "test/x.ts", True),        # ** spans zero or more segments
    ("test/**/x.ts", "test/a/b/x.ts", True),
    ("test/**", "test/a/b.ts", True),
    ("test/**", "test", False),                 # a trailing ** needs a segment below
    ("**/x.ts", "x.ts", True),
    ("**/x.ts", "a/b/x.ts", True),
    ("**", "a/b/c", True),
    ("src/**.py", "src/a.py", True),            # ** inside a segment is *
    ("src/**.py", "src/a/b.py", False),
    ("*.py", "a.py", True),
    ("*.py", "pkg/a.py", False),                # a glob matches the whole path
    ("src/[ab].py", "src/a.py", True),
    ("src/[ab].py", "src/c.py", False),
    ("src/[!ab].py", "src/c.py", True),
    ("src/[^ab].py", "src/a.py", False),
    ("src/[a-c].py", "src/b.py", True),
    ("src/[]].py", "src/].py", True),           # ] first in a class is a member
    ("src/[[].py", "src/[.py", True),           # how to write a literal [
    ("src/[*].py", "src/*.py", True),
    ("src/[*].py", "src/a.py", False),
    ("src/[x.py", "src/[x.py", True),           # an unclosed [ is literal
    ("a[/]b", "a/b", False),                    # a class never matches /
    ("pages/[id].tsx", "pages/[id].tsx", True), # the path spelled like the glob
    ("pages/[id].tsx", "pages/i.tsx", True),
    ("*", ".eslintrc.js", True),                # * matches a leading dot
    ("src/*", "src/a\nb", True),
    ("src/legacy*/", "src/legacy-v1/a.py", True),  # a glob ending in / names folders
    ("src/legacy*/", "src/legacy_old.py", False),
    ("src/*/", "src/a", False),
    ("src/**/", "src/a/b", True),
])
def test_glob_mode(glob: str, path: str, expected: bool) -> None:
    pattern = PathPattern.target(glob)
    assert pattern.mode is PatternMode.GLOB
    assert pattern.matches(path) is expected
    assert file_matches(glob, path) is expected


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("src/legacy", "src/legacy", True),
    ("src/legacy", "src/legacy/x.py", True),
    ("src/legacy", "src/legacy_old.py", False),
    ("src/legacy/", "src/legacy/x.py", True),
    ("src/legacy/", "src/legacy", False),       # a trailing / is what lies under the folder
    ("/src/legacy", "src/legacy/x.py", True),   # a leading / anchors
    ("/legacy", "src/legacy/x.py", False),
    ("legacy", "src/legacy/x.py", True),        # no / : any depth
    ("legacy", "src/legacy_old.py", False),
    ("*.lock", "a/b/yarn.lock", True),
    ("node_modules/", "web/node_modules/x/y.js", True),
    ("docs/**/*.md", "docs/a/b.md", True),
    ("docs/**/*.md", "x/docs/a.md", False),     # a / in the middle anchors
    ("**/tests/**", "tests/t.py", True),
    ("**/tests/**", "a/tests/t.py", True),
    ("pkg/*.py", "pkg/sub/x.py", False),
    ("pkg/*.py", "pkg/x.py", True),
    ("**", "anything/at/all", True),
    (".eslintrc.js", "web/.eslintrc.js", True),
])
def test_gitignore_mode(pattern: str, path: str, expected: bool) -> None:
    compiled = PathPattern.path_filter(pattern)
    assert compiled.mode is PatternMode.GITIGNORE
    assert compiled.matches(path) is expected
    assert GlobSet([pattern]).matches(path) is expected


def test_rules_per_use() -> None:
    assert PathPattern.target("a/b").mode is PatternMode.EXACT
    assert PathPattern.target("a/*").mode is PatternMode.GLOB
    assert PathPattern.forbidden("a/b").mode is PatternMode.PREFIX
    assert PathPattern.forbidden("a/[b]").mode is PatternMode.GLOB
    assert PathPattern.path_filter("a/b").mode is PatternMode.GITIGNORE
    assert is_glob("a?") and not is_glob("a/b.c")


def test_value_semantics() -> None:
    assert PathPattern("./a/b", PatternMode.EXACT) == PathPattern("a/b", PatternMode.EXACT)
    assert str(PathPattern.forbidden("src\\legacy")) == "src/legacy"
    assert len({PathPattern.of("a", PatternMode.PREFIX), PathPattern.of("a", PatternMode.PREFIX)}) == 1
    with pytest.raises(AttributeError):
        PathPattern.target("a").text = "b"  # type: ignore[misc]


# --- the same string under each use ---------------------------------------------------

LEGACY_TABLE = [
    # pattern,       path,                  scorer (forbidden), retriever exclude, policy
    ("src/legacy",   "src/legacy/a.py",     True,  True,  True),
    ("src/legacy",   "src/legacy_old.py",   True,  False, False),
    ("src/legacy/",  "src/legacy/a.py",     True,  True,  True),
    ("src/legacy/",  "src/legacy_old.py",   False, False, False),
    ("src/legacy*",  "src/legacy_old.py",   True,  True,  True),
    ("legacy",       "src/legacy/a.py",     False, True,  True),
    ("*.py",         "src/a.py",            False, True,  True),
    ("*.py",         "a.py",                True,  True,  True),
]


@pytest.mark.parametrize(("pattern", "path", "scorer", "retriever", "policy"), LEGACY_TABLE)
def test_one_string_three_uses(pattern: str, path: str, scorer: bool, retriever: bool,
                               policy: bool) -> None:
    assert PathPattern.forbidden(pattern).matches(path) is scorer
    assert Filters(exclude=(pattern,)).accepts(_indexed(path)) is (not retriever)
    excluded = PathPolicy(include=("**",), exclude=(pattern,)).exclusion(path, 1)
    assert (excluded is not None) is policy


# --- malformed and hostile globs ----------------------------------------------------------


@pytest.mark.parametrize("build", [PathPattern.target, PathPattern.forbidden,
                                   PathPattern.path_filter])
def test_reversed_range_is_an_input_error_naming_the_pattern(build: object) -> None:
    assert callable(build)
    with pytest.raises(InputError) as caught:
        build("src/[z-a].py")
    assert "src/[z-a].py" in str(caught.value) and "reversed" in str(caught.value)


@pytest.mark.parametrize("glob", ["[", "src/[", "[!", "[]", "[!]", "a[b", "[[", "]", "[a-"])
def test_unclosed_classes_are_literal(glob: str) -> None:
    assert PathPattern.forbidden(glob).matches(glob)
    assert PathPattern.path_filter(glob).matches(glob)


def test_empty_and_rootless_patterns_are_input_errors() -> None:
    with pytest.raises(InputError):
        PathPattern.forbidden("")
    with pytest.raises(InputError):
        PathPattern.path_filter("/")
    with pytest.raises(InputError, match="at most"):
        PathPattern.path_filter("a" * 5000 + "*")


HOSTILE = [
    "**/" * 30 + "x",
    "/".join(["**", "a"] * 40) + "/x",
    "*a" * 60 + "b",
    "/".join(["*a*a*a*a*b"] * 20),
    "**/" + "/".join(["*a*"] * 30) + "/**/x",
    "a" + "*?" * 100 + "b",
]
PATHS = ["a/" * 2000 + "y", "a/" * 2000 + "x", "a" * 4000, "a" * 4000 + "b",
         "/".join(["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"] * 100), "a" * 300 + "/" + "a" * 300]


@pytest.mark.parametrize("glob", HOSTILE)
def test_hostile_globs_run_in_bounded_time(glob: str) -> None:
    patterns = [PathPattern.forbidden(glob), PathPattern.path_filter(glob)]
    started = time.perf_counter()
    for pattern in patterns:
        for path in PATHS:
            pattern.matches(path)
    assert time.perf_counter() - started < 2.0


def test_hostile_glob_still_matches_correctly() -> None:
    deep = PathPattern.forbidden("**/" * 30 + "x")
    assert deep.matches("a/" * 500 + "x")
    assert deep.matches("x")
    assert not deep.matches("a/" * 500 + "y")
    stars = PathPattern.forbidden("*a" * 60 + "b")
    assert stars.matches("a" * 60 + "b")
    assert not stars.matches("a" * 59 + "b")


# --- the scorer's fast path keeps working with patterns -----------------------------------


def test_group_matcher_uses_exact_and_glob_targets() -> None:
    matcher = GroupMatcher((("g1", True, (Target(file="./src/a.py"),)),
                            ("g2", True, (Target(file="test/**/*.spec.ts"),))))
    assert matcher.may_match("src/a.py")
    assert matcher.satisfied(Chunk(chunk_id="c", file="src/a.py")) == {0}
    assert matcher.satisfied(Chunk(chunk_id="c", file=".\\src\\a.py")) == {0}
    assert matcher.satisfied(Chunk(chunk_id="c", file="test/a/b.spec.ts")) == {1}
    assert matcher.satisfied(Chunk(chunk_id="c", file="src/b.py")) == set()


# --- agreement with reference matchers ----------------------------------------------------


def _reference_glob(pattern: str, path: str) -> bool:
    """Segment by segment with fnmatch; ``**`` segments by brute force."""
    while pattern.startswith("./"):  # a pattern keeps its own spelling but a leading ./
        pattern = pattern[2:]
    path = normalize_path(path)
    segments: list[str] = []
    for segment in pattern.split("/"):
        if not (segment == "**" and segments and segments[-1] == "**"):
            segments.append(segment)
    parts = path.split("/")

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(segments):
            return j == len(parts)
        if segments[i] == "**":
            if i == len(segments) - 1:
                return j < len(parts)
            return any(match(i + 1, k) for k in range(j, len(parts) + 1))
        single = segments[i]
        while "**" in single:
            single = single.replace("**", "*")
        return j < len(parts) and fnmatchcase(parts[j], single) and match(i + 1, j + 1)

    return path == pattern or match(0, 0)


_segment_token = st.sampled_from(["a", "b", ".", "*", "?", "[ab]", "[!a]", "[a-c]", "**", "["])
_segment = st.lists(_segment_token, min_size=1, max_size=4).map("".join)
_globs = st.lists(st.one_of(_segment, st.just("**")), min_size=1, max_size=5).map("/".join)
# Repository paths: git never records a ``.`` or ``..`` segment (other spellings are
# made canonical before matching, tested in tests/hostile/test_canonical_paths.py).
_path_segment = st.text(alphabet="ab.c[", min_size=1, max_size=5).filter(
    lambda s: s not in (".", ".."))
_paths = st.lists(_path_segment, min_size=1, max_size=6).map("/".join)


@settings(max_examples=400, deadline=None)
@given(_globs, _paths)
def test_glob_agrees_with_fnmatch_per_segment(glob: str, path: str) -> None:
    assert PathPattern.of(glob, PatternMode.GLOB).matches(path) is _reference_glob(glob, path)


# pathspec reads an unclosed "[" differently from git, lets "[!a]" match "/", and reads a
# trailing "**/" as "**"; those cases are left out of the comparison (tested above).
_filter_token = st.sampled_from(["a", "b", ".", "*", "?", "[ab]", "[a-c]", "**"])
_filter_segment = st.lists(_filter_token, min_size=1, max_size=4).map("".join)
_filters = st.tuples(
    st.sampled_from(["", "/"]),
    st.lists(st.one_of(_filter_segment, st.just("**")), min_size=1, max_size=5).map("/".join),
    st.sampled_from(["", "/"]),
).map("".join).filter(lambda g: not (g.endswith("**/") or g.startswith("./")))
_plain_paths = st.lists(st.text(alphabet="ab.c", min_size=1, max_size=5).filter(lambda s: s not in (".", "..")),
                        min_size=1, max_size=6).map("/".join)


@settings(max_examples=400, deadline=None)
@given(_filters, _plain_paths)
def test_gitignore_agrees_with_pathspec(glob: str, path: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pathspec's own regex warns about "[[" sets
        expected = pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path)
    assert PathPattern.path_filter(glob).matches(path) is expected, (glob, path)


@settings(max_examples=200, deadline=None)
@given(st.lists(_globs, min_size=1, max_size=5), _paths)
def test_globset_union_agrees_with_each_pattern(globs: list[str], path: str) -> None:
    expected = any(PathPattern.path_filter(g).matches(path) for g in globs)
    assert GlobSet(globs).matches(path) is expected


def test_retriever_filters_reject_a_malformed_exclude_when_built() -> None:
    with pytest.raises(InputError, match=r"\[z-a\]"):
        Filters(exclude=("docs/[z-a]",))
    with pytest.raises(InputError, match=r"\[z-a\]"):
        Filters.from_dict({"exclude": ["docs/[z-a]"]})


def test_policy_reports_the_exclude_that_matched() -> None:
    policy = PathPolicy(include=("src/**",), exclude=("*.lock", "src/legacy/"))
    assert policy.exclusion("src/legacy/a.py", 1) == "policy: exclude 'src/legacy/'"
    assert policy.exclusion("./src/x.lock", 1) == "policy: exclude '*.lock'"
    assert policy.exclusion("docs/a.md", 1) == "policy: not matched by include"
    assert policy.exclusion("src/legacy_old.py", 1) is None


# --- dotfiles named in a query resolve to indexed files -----------------------------------


@pytest.mark.parametrize("query", ["why does .eslintrc.js reject this import?",
                                   "see ./.eslintrc.js for the rule",
                                   "the rule in web\\.eslintrc.js"])
def test_a_dotfile_in_a_query_resolves(query: str) -> None:
    from codegold.retrieve.query import analyze_query
    from codegold.retrieve.signals import PathResolver

    resolver = PathResolver([".eslintrc.js", "web/.eslintrc.js", "eslintrc.js", "src/a.py"])
    analysis = analyze_query(query)
    found = {path for written in analysis.paths for path in resolver.resolve(written)}
    assert found and "eslintrc.js" not in found
    assert found <= {".eslintrc.js", "web/.eslintrc.js"}
