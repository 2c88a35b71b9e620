"""Query analysis: identifiers, qualified names, paths, stack frames, intent."""

from __future__ import annotations

import pytest

from codegold.model.languages import LANGUAGE_BY_EXTENSION
from codegold.retrieve.query import analyze_query, detect_asks, detect_intent

# The extensions a query's file names were told by before they came from the language
# table: every one must still be (a dropped one fails here).
RECOGNISED_BEFORE = ("py", "pyi", "pyx", "js", "jsx", "mjs", "cjs", "ts", "tsx", "go", "java",
                     "kt", "rs", "rb", "c", "h", "cc", "cpp", "hpp", "cs", "scala", "php",
                     "swift", "md", "rst", "txt", "yaml", "yml", "toml", "json", "cfg", "ini",
                     "sql", "sh", "html", "css")


def test_identifiers_and_terms() -> None:
    a = analyze_query("How does createSession handle an expired refresh token?")
    assert a.identifiers == ("createSession",)
    assert a.terms[:3] == ("create", "session", "createsession")
    assert "how" not in a.terms and "does" not in a.terms
    assert a.rewritten().startswith("createSession |")


def test_qualified_names_and_backticks() -> None:
    a = analyze_query("Calling `SessionService.create` then refresh_token() fails in astropy.io.fits")
    assert "SessionService.create" in a.qualified
    assert "refresh_token" in a.identifiers
    assert "astropy.io.fits" in a.qualified


def test_python_traceback_frames() -> None:
    a = analyze_query('Traceback (most recent call last):\n'
                      '  File "/usr/lib/site-packages/pkg/core.py", line 77, in _check_columns\n'
                      '  File "pkg/util.py", line 3, in <module>\n')
    assert [(f.file, f.line, f.function) for f in a.frames] == [
        ("/usr/lib/site-packages/pkg/core.py", 77, "_check_columns"), ("pkg/util.py", 3, None)]
    assert a.identifiers[0] == "_check_columns"
    assert "core.py" not in a.identifiers  # file names are paths, not symbols


def test_js_and_java_frames() -> None:
    a = analyze_query("TypeError\n    at handleRequest (src/server/app.ts:12:3)\n"
                      "    at com.acme.shop.Cart.total(Cart.java:40)\n")
    functions = {f.function for f in a.frames}
    assert {"handleRequest", "Cart.total"} <= functions
    assert "src/server/app.ts" in {f.file for f in a.frames}


def _frames_of(text: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.file, f.line, f.function) for f in analyze_query(text).frames]


def test_ruby_frames_old_and_new_quoting() -> None:
    frames = _frames_of(
        "Rack::Multipart::MultipartPartLimitError: Maximum file multiparts\n"
        "/gems/rack-3.2.0/lib/rack/multipart/parser.rb:241:in "
        "'Rack::Multipart::Parser::Collector#check_file_part_limit'\n"
        "/gems/rack-3.2.0/lib/rack/lint.rb:750:in `block in check_headers'\n"
        "app.rb:3:in `<main>'\n")
    assert frames == [
        ("/gems/rack-3.2.0/lib/rack/multipart/parser.rb", 241,
         "Rack::Multipart::Parser::Collector.check_file_part_limit"),
        ("/gems/rack-3.2.0/lib/rack/lint.rb", 750, "check_headers"),
        ("app.rb", 3, None)]


def test_php_frames_and_the_throw_site() -> None:
    frames = _frames_of(
        "PHP Fatal error:  Uncaught GuzzleHttp\\Exception\\ConnectException: cURL error 7 in "
        "/app/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php:210\n"
        "#0 /app/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php(158): "
        "GuzzleHttp\\Handler\\CurlFactory::createRejection(Object(EasyHandle), Array)\n"
        "#1 /app/src/Client.php(40): GuzzleHttp\\Client->request('GET', '/x')\n")
    assert frames == [
        ("/app/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php", 210, None),
        ("/app/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php", 158,
         "GuzzleHttp.Handler.CurlFactory::createRejection"),
        ("/app/src/Client.php", 40, "GuzzleHttp.Client.request")]


def test_dotnet_frames_drop_generic_arguments_and_async_state_machines() -> None:
    frames = _frames_of(
        "System.ArgumentOutOfRangeException: no scheme\n"
        "   at RestSharp.BuildUriExtensions.DoBuildUriValidations(IRestClient client, "
        "RestRequest request) in /_/src/RestSharp/BuildUriExtensions.cs:line 93\n"
        "   at RestSharp.RestClientExtensions.ExecuteAsync[T](IRestClient client) in "
        "/_/src/RestSharp/RestClient.Extensions.cs:line 47\n"
        "   at RestSharp.RestClient.<ExecuteAsync>d__10.MoveNext() in "
        "C:\\src\\RestSharp\\RestClient.Async.cs:line 27\n")
    assert [(line, function) for _, line, function in frames] == [
        (93, "RestSharp.BuildUriExtensions.DoBuildUriValidations"),
        (47, "RestSharp.RestClientExtensions.ExecuteAsync"),
        (27, "RestSharp.RestClient.ExecuteAsync")]


def test_native_backtraces_gdb_lldb_and_sanitizers() -> None:
    frames = _frames_of(
        "#3  0x00007ffff7e4bb9e in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6\n"
        "#7  0x000055555558c4e2 in spdlog::details::file_helper::open (this=0x1, "
        "fname=\"/var/log/a.log\", truncate=false) at /usr/include/spdlog/details/file_helper-inl.h:62\n"
        "#8  0x0000555555591b07 in spdlog::sinks::basic_file_sink<std::mutex>::basic_file_sink "
        "(this=0x2) at /usr/include/spdlog/sinks/basic_file_sink-inl.h:20\n"
        "  * frame #1: 0x0000000100003f5c app`Parser::next(this=0x3) at parser.cpp:88:5\n"
        "    #2 0x4f2a1c in Lexer::scan(char const*) /src/lexer.cc:120:9\n")
    assert frames == [
        ("/usr/include/spdlog/details/file_helper-inl.h", 62, "spdlog::details::file_helper::open"),
        ("/usr/include/spdlog/sinks/basic_file_sink-inl.h", 20,
         "spdlog::sinks::basic_file_sink::basic_file_sink"),
        ("parser.cpp", 88, "Parser::next"),
        ("/src/lexer.cc", 120, "Lexer::scan")]


def test_any_path_with_a_line_is_a_frame_and_absolute_paths_are_paths() -> None:
    a = analyze_query("src/codec/huff.c:212:14: error: 'len' undeclared; also see "
                      "/home/dev/app/Sources/App/Router.swift:40 and /srv/app/lib/util.rb")
    assert [(f.file, f.line) for f in a.frames] == [
        ("src/codec/huff.c", 212), ("/home/dev/app/Sources/App/Router.swift", 40)]
    assert "/srv/app/lib/util.rb" in a.paths


def test_member_notations_read_as_qualified_names() -> None:
    a = analyze_query("Rack::Request#params differs from Builder#use; GuzzleHttp\\Client::send "
                      "calls $stack->resolve(), and a\\nb is an escape")
    assert {"Rack::Request.params", "Builder.use", "GuzzleHttp.Client::send"} <= set(a.qualified)
    assert not any("nb" in name for name in a.identifiers)


@pytest.mark.parametrize("extension", sorted({*RECOGNISED_BEFORE,
                                              *(e[1:] for e in LANGUAGE_BY_EXTENSION)}))
def test_a_bare_file_name_of_every_known_extension_is_a_path(extension: str) -> None:
    name = f"widget_io.{extension}"
    analysis = analyze_query(f"the crash is in {name} when saving")
    assert name in analysis.paths
    assert name not in analysis.identifiers and "widget_io" not in analysis.paths


def test_a_word_of_no_known_extension_is_no_file_name() -> None:
    analysis = analyze_query("the crash is in widget_io.xyz when saving, see setup.c++")
    assert "widget_io.xyz" not in analysis.paths
    assert "setup.c++" in analysis.paths  # the whole extension, not ``setup.c``


def test_paths_including_github_blob_urls() -> None:
    a = analyze_query("see src/auth/login.ts and "
                      "https://github.com/acme/shop/blob/main/lib/cart/total.py#L10 and setup.cfg")
    assert set(a.paths) >= {"src/auth/login.ts", "lib/cart/total.py", "setup.cfg"}


def test_intent_and_asks() -> None:
    assert detect_intent("what is the session timeout") == "definition"
    assert detect_intent("how is the retry policy configured") == "definition"
    assert detect_intent("show me examples of calling createSession") == "examples"
    assert detect_intent("how do tests fake the payment gateway") == "tests"
    assert detect_intent("crash when saving a file") == "general"
    assert detect_asks("how do tests fake the payment gateway") == {"test"}
    assert detect_asks("the legacy importer") == {"legacy"}
    # A long issue report states intent in its title only: 'test' deep in its body
    # (a pasted test function) does not make it a request for tests.
    body = "Saving fails.\n" + "words " * 80 + "\ndef test_save(): pass\n"
    assert detect_asks(body) == frozenset()


def test_long_issue_is_capped_but_keeps_names() -> None:
    text = "Bug in `parse_header`\n" + " ".join(f"word{i} filler{i}" for i in range(300))
    a = analyze_query(text, max_terms=20)
    assert len(a.terms) == 20
    assert "parse_header" in a.identifiers
    assert {"parse", "header", "parseheader"} <= set(a.terms)


def test_tests_are_asked_for_by_phrasing_not_by_a_word_of_testing() -> None:
    # Phrasing asks for tests whatever the repository is about.
    for query in ("tests for blueprints registered inside other blueprints",
                  "which test checks that credentials are dropped on redirect",
                  "where is the retry policy tested",
                  "test that the dict keeps the original key case"):
        assert detect_intent(query, test_words=False) == "tests", query
        assert "test" in detect_asks(query, test_words=False), query
        assert analyze_query(query).test_words == (), query
    # A bare word of testing may be the repository's own vocabulary: recorded, and the
    # analysis says what the query wants without it.
    query = "where is the boolean expression given to select tests by marker parsed"
    analysis = analyze_query(query)
    assert analysis.test_words == ("tests",)
    assert analysis.intent == "tests" and "test" in analysis.asks_for
    plain = analysis.as_domain_vocabulary()
    assert plain.intent == "general" and "test" not in plain.asks_for
    assert plain.test_words == ()
    fixture = analyze_query("in what order are fixture finalizers run")
    assert fixture.test_words == ("fixture",)
    assert fixture.as_domain_vocabulary().intent == "general"


def test_examples_and_usage_ask_for_documentation() -> None:
    assert "docs" in detect_asks("example of mounting a custom transport adapter on a session")
    assert "docs" in detect_asks("how do I use the stash to keep data on an item")
    assert "docs" not in detect_asks("where is the maximum number of redirects enforced")


def test_a_settings_question_that_names_testing_asks_for_the_setting() -> None:
    for query in ("which warnings does the test configuration turn into errors",
                  "which environment variable selects debug, release or test mode",
                  "which command type-checks the specs and runs the test suite"):
        assert detect_intent(query) == "config", query
        assert "test" not in detect_asks(query), query
    # Phrasing that asks for tests still wins.
    assert detect_intent("which tests cover the test configuration loader") == "tests"


def test_naming_a_release_line_or_a_benchmark_asks_for_it() -> None:
    assert "legacy" in detect_asks("how did the v3 router match wildcards")
    assert "benchmark" in detect_asks("benchmark for creating a frozen class")
    assert "translation" in detect_asks("where is the French translation of this message")
    assert not {"legacy", "benchmark"} & detect_asks("how does the router match wildcards")


def test_a_code_like_type_and_a_name_after_it_make_a_member_pair() -> None:
    from codegold.retrieve.query import analyze_query

    assert analyze_query("SessionService createSession with expired tokens").member_pairs == (
        "SessionService.createSession",)
    # A plain word is not a type; a call or a qualified name is no pair.
    assert analyze_query("how does Router nest work").member_pairs == ()
    assert analyze_query("SessionService create() fails").member_pairs == ()
    assert analyze_query("SessionService auth.login").member_pairs == ()


def test_swift_lldb_frames_name_the_method_a_closure_runs_in() -> None:
    frames = _frames_of(
        "  * frame #1: 0x0000000104b2d1f0 Alamofire`closure #1 (inout Alamofire.Request.State)"
        " -> () in Alamofire.Request.redirect(using: Alamofire.RedirectHandler) -> Self at "
        "Request.swift:869:13\n"
        "    frame #2: 0x0000000104b0a6c4 Alamofire`Alamofire.Protected.write<A>((inout A) "
        "throws -> B) rethrows -> B at Protected.swift:115:13\n")
    assert frames == [("Request.swift", 869, "Alamofire.Request.redirect"),
                      ("Protected.swift", 115, "Alamofire.Protected.write")]


@pytest.mark.parametrize(("query", "opening"), [
    ("Fix null pointer crash when the list is empty", ("fix",)),
    ("fix(redirect): strip sensitive headers on scheme change", ("fix",)),
    ("feat(cli): add a --quiet flag", ("feat", "add")),
    ("[parser] Remove error variants that are never constructed", ("remove",)),
    ("Don't emit the XML namespace on plain elements", ("don",)),
    ("How does the client handle redirects?", ()),
    ("where is the retry limit enforced", ()),
    ("handler for expired sessions", ()),
])
def test_the_opening_verb_of_a_task_or_commit_message(query: str, opening: tuple[str, ...]) -> None:
    analysis = analyze_query(query)
    assert analysis.task_words == opening
    left = analysis.without_task_words().terms
    assert not set(opening) & set(left)
    assert set(analysis.terms) - set(opening) == set(left)


def test_an_opening_verb_the_query_names_as_code_stays_a_term() -> None:
    analysis = analyze_query("Fix `fix_path` for relative roots")
    assert analysis.task_words == ("fix",)
    assert "fix" in analysis.without_task_words().terms


def test_commit_trailers_and_email_addresses_are_not_searched_as_names() -> None:
    # `jane.doe` and `example.com` have the shape of qualified names; they name people.
    message = ("Fix retry delay overflow (#123)\n\n* compute the delay in seconds\n\n"
               "Co-authored-by: Jane Doe <jane.doe@example.com>\n"
               "Signed-off-by: John Smith <john@smith.org>\nReviewed-by: Bob\n"
               "Change-Id: I8d2a9c0f\n")
    analysis = analyze_query(message)
    assert analysis.identifiers == ()
    assert not {"jane", "doe", "example", "smith", "bob", "signed", "authored"} & set(analysis.terms)
    assert {"retry", "delay", "overflow"} <= set(analysis.terms)
    # A decorator, a scoped package and an at-sign in code stay.
    assert analyze_query("where does `@app.route` register a view").identifiers == ("app.route",)
    assert "ttl_seconds" in analyze_query("cache@v2 ignores ttl_seconds").identifiers


def test_the_title_of_a_query_of_several_lines_is_its_first_line() -> None:
    analysis = analyze_query("Stale cache entry\n\nThe retry attempt reads it.")
    assert analysis.title_terms == ("stale", "cache", "entry")
    assert "retry" in analysis.terms
    assert analyze_query("Stale cache entry when the retry attempt reads it").title_terms == ()


_SHOW_VERSIONS = """Naming a dimension "method" throws error when calling ".loc"

The `dims` are given to another method unsanitized.

#### Output of ``xr.show_versions()``

<details>

INSTALLED VERSIONS
------------------
commit: None
python: 3.6.8 |Anaconda, Inc.| (default, Dec 30 2018, 01:22:34)
[GCC 7.3.0]
python-bits: 64
OS: Linux
machine: x86_64
LC_ALL: None
LANG: en_US.UTF-8
libhdf5: 1.10.4

xarray: 0.12.0
pandas: 0.24.2
numpy: 1.16.2
netCDF4: 1.4.2
PseudonetCDF: None

</details>
"""


def test_an_environment_dump_in_an_issue_is_not_searched() -> None:
    analysis = analyze_query(_SHOW_VERSIONS)
    for noise in ("xr.show_versions", "x86_64", "LC_ALL", "netCDF4", "PseudonetCDF"):
        assert noise not in analysis.identifiers
    assert {"pandas", "numpy", "libhdf5", "linux"}.isdisjoint(analysis.terms)
    assert {"dimension", "method", "loc", "dims"} <= set(analysis.terms)


def test_package_lists_go_and_settings_that_are_code_stay() -> None:
    pip = ("pytest fails on a skipped class\n\n```\n$ pip list\nPackage    Version\n"
           "---------- -------\nattrs      21.4.0\npluggy     1.0.0\npytest     7.1.1\n"
           "py         1.11.0\n```\n")
    assert {"attrs", "pluggy", "pip"}.isdisjoint(analyze_query(pip).terms)
    freeze = "Upload retries\n\n" + "\n".join(
        f"{name}=={version}" for name, version in
        (("attrs", "19.3.0"), ("packaging", "20.3"), ("pluggy", "0.13.1"), ("six", "1.14.0")))
    assert "pluggy" not in analyze_query(freeze).terms
    # A dict literal of numbers and a config file are what the report is about.
    header = ("WCS slicing drops an axis\n\nwcs_header = {\n    'WCSAXES': 3,\n"
              "    'CRPIX1': 1.0,\n    'CDELT1': 0.5,\n    'CUNIT1': 2.5,\n    'PC1_1': 0.0,\n}\n")
    assert "wcsaxes" in analyze_query(header).terms
    config = ("Retries ignore the config\n\nretries: 3\ntimeout: 30\nbackoff: 1.5\n"
              "max_delay: 2.0\nhost: example\n")
    assert {"retries", "backoff"} <= set(analyze_query(config).terms)


def test_a_rule_of_underscores_in_pasted_output_is_no_name() -> None:
    report = ("Chained exceptions are lost\n\n"
              "___________________ test_chained_exception_with_from ___________________\n"
              "_____ test_two _____\n")
    identifiers = analyze_query(report).identifiers
    assert "test_chained_exception_with_from" in identifiers
    assert all(name.strip("_") for name in identifiers)
