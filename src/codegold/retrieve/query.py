"""Query analysis: what in a query names code, and what the asker wants.

A query may be a short question ("how does createSession handle an expired token?") or a
whole issue report with code blocks and tracebacks. Analysis pulls out, in order of how
much they say about location: stack-trace frames, file paths (also dotted module names),
qualified names, identifiers; then prose terms. It also detects intent (definition,
examples, tests, config, general) and which normally down-weighted path categories the
asker explicitly wants (tests, legacy, generated, vendored, migrations).

Nothing here reads an index: the result is a plain record the signals consume.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter

import msgspec

from codegold.index.tokens import STOPWORDS, code_tokens
from codegold.model.identifiers import looks_like_code
from codegold.model.languages import FILE_NAME_EXTENSIONS
from codegold.model.paths import normalize_path

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_BACKTICK = re.compile(r"`([^`\n]{1,200})`")
_ONE_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_URL = re.compile(r"https?://\S+")
# A commit's trailers ("Signed-off-by: Jane Doe <jane@example.org>", "Co-authored-by:")
# and e-mail addresses name people: read as words they were searched as names
# (`jane.doe`, `example.org`) ahead of the question's own words.
_TRAILER = re.compile(r"^[ \t]*(?:[A-Za-z]+-)+by:[^\n]*$|^[ \t]*Change-Id:[^\n]*$",
                      re.MULTILINE | re.IGNORECASE)
# Bounded, and only from the start of a run (the look-behind): an unbounded local part
# tried again from every character of a long run without "@" is quadratic.
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+")
# An environment dump pasted into an issue report: `xr.show_versions()`, `pip list`,
# `pip freeze`, "- Python version: 3.7.3", `python -m requests.help`'s JSON. Its package
# and platform names (numpy, x86_64, LC_ALL, en_US.UTF-8) say where the reporter runs,
# not where the fault is. A line is a setting (``name: value``, ``name==value``) or a
# listed package (``name  1.2.3``); a value is a version (two numbers and a dot at least,
# not a number followed by a comma, as in a dict literal) or an unset one (None).
_ENV_SETTING = re.compile(
    r"^\s*(?:[-*>]\s*)?[\"']?[A-Za-z_][\w.+/ -]{0,40}?[\"']?\s*(?:==|=|:)\s*(\S.{0,120}?)\s*$")
_ENV_PACKAGE = re.compile(r"^\s*(?:[-*]\s*)?[A-Za-z_][\w.+-]{0,40}\s+v?\d+(?:\.\d+)+\S*\s*$")
_ENV_VERSION = re.compile(
    r"^(?:\"v?\d+(?:\.\d+)+[^\"]*\"|v?\d+(?:\.\d+)+(?![\d.]*,\s*$)\S*|\"\"|none|null|n/?a"
    r"|not installed|unknown)(?:\W.*)?$", re.IGNORECASE)
# The dump's caption, up to six short lines above it: "Output of xr.show_versions()",
# "**Environment**", "INSTALLED VERSIONS", "<details>".
_ENV_CAPTION = re.compile(r"version|environment|system|platform|details", re.IGNORECASE)
# A run of settings is a dump with at least this many versions, and no fewer versions
# than other settings.
_ENV_MIN_VERSIONS = 4
_BLOB_PATH = re.compile(r"/(?:blob|tree|raw)/[^/\s]+/([^\s#?)\]>'\"]+)")
_PY_FRAME = re.compile(r'File "(?P<file>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
_JAVA_FRAME = re.compile(r"\bat (?P<func>[\w$]+(?:\.[\w$<>]+)+)\((?P<file>[\w$]+\.(?:java|kt|scala)):(?P<line>\d+)\)")
_JS_FRAME = re.compile(
    r"\bat (?:(?P<func>[\w$.<>\[\]]+(?: \[as [\w$]+\])?) \()?(?P<file>[^\s()]+?\.(?:[cm]?[jt]sx?)):(?P<line>\d+)(?::\d+)?\)?")
# Blank space before the frame stays on its line: ``^\s*`` crossed newlines, and from
# every line start of a run of blank lines it ran to the run's end (quadratic).
_GO_FRAME = re.compile(r"^[^\S\n]*(?P<file>/?[\w./-]+\.go):(?P<line>\d+)", re.M)
_RUST_FRAME = re.compile(r"\bat (?P<file>[\w./-]+\.rs):(?P<line>\d+)(?::\d+)?")
# Ruby: ``lib/rack/parser.rb:241:in 'Rack::Parser#check'`` (3.4), or `` `check' `` before.
_RUBY_FRAME = re.compile(
    r"(?<![^\s:'\"`])(?P<file>[^\s:'\"`]+\.(?:rb|rake)):(?P<line>\d+):in [`'](?:(?:block|rescue|ensure)"
    r"(?: \(\d+ levels\))? in )?(?P<func>[^'`\s]+)'")
# PHP: ``#3 /app/vendor/x/src/Client.php(123): GuzzleHttp\Client->send()``.
_PHP_FRAME = re.compile(
    r"#\d+ (?P<file>[^\s()]+\.php)\((?P<line>\d+)\): (?P<func>[\w\\]+(?:->|::)\w+)\(")
# .NET: ``at RestSharp.RestClient.ExecuteAsync(RestRequest r) in /_/src/RestClient.cs:line 27``.
_DOTNET_FRAME = re.compile(
    r"\bat (?P<func>[\w.`<>\[\],+]+?)\((?:[^()\n]|\([^()\n]*\))*\) in "
    r"(?P<file>[^\n]+?\.(?:cs|fs|vb)):line (?P<line>\d+)")
# Native backtraces: gdb (``#7 0x55… in ns::cls::open (this=…) at /src/file-inl.h:62``),
# lldb (``frame #7: 0x55… lib`ns::cls::open(this=…) at file-inl.h:62:5``) and the
# sanitizers (``#3 0x4f2 in ns::cls::open(int) /src/file.cc:62:5``).
_NATIVE_FRAME = re.compile(
    r"^[ \t]*(?:#\d+[ \t]+(?:0x[0-9a-fA-F]+ in )?|(?:\*[ \t]*)?frame #\d+: 0x[0-9a-fA-F]+ [^`\s]*`)"
    r"(?P<func>[^\n]+?)(?: at |[ \t])(?P<file>[^\s:()]+\.[\w+]+):(?P<line>\d+)(?::\d+)?[ \t]*$",
    re.M)
# The extensions of the language table, longest first (``c++`` before ``c``: the match
# must take the whole extension, and ``+`` is no word character the lookahead would stop).
_FILE_EXT = "|".join(re.escape(ext.removeprefix("."))
                     for ext in sorted(FILE_NAME_EXTENSIONS, key=lambda ext: (-len(ext), ext)))
_PATH = re.compile(r"(?<![\w/.-])(/?(?:[\w.-]+/)*\.?[\w-]+(?:\.[\w-]+)*\.(?:" + _FILE_EXT + r"))(?![\w/])")
_EXT_END = re.compile(r"\.(?:" + _FILE_EXT + r")\Z")
_SLASH_PATH = re.compile(r"(?<![\w/.:-])((?:[\w-]+/){1,}[\w.-]+)")
# A file and its line in any other form: ``a.c:12``, ``a.php(12)``, ``a.cs:line 12``,
# ``a.php on line 12``, ``"a.py", line 12``.
_FILE_LINE = re.compile(
    r"(?<![\w/.@+-])(?P<file>(?:/|\.\.?/)?(?:[\w.@+-]+/)*[\w.@+-]*\w\.(?:" + _FILE_EXT + r"))"
    r"(?::(?P<colon>\d+)|\((?P<paren>\d+)\)|:line (?P<dotnet>\d+)|,? (?:on )?line (?P<words>\d+))"
    r"(?!\d)")
# A name and its qualifiers: ``a.b``, ``A::b``; a member written ``Class#method`` (Ruby,
# Javadoc, JSDoc) or ``$obj->method`` (PHP, C++); a PHP namespace ``Vendor\\Package``
# (capitalised on both sides, so ``\\n`` in pasted text is no separator).
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|#|->|(?<=[A-Za-z0-9_])\\(?=[A-Z]))"
                    r"[A-Za-z_][A-Za-z0-9_]*)*")
# A name written with empty call parentheses: ``retry()``; not ``fix(scope):``.
_CALLED = re.compile(r"(?<![\w.:#>$])([A-Za-z_][A-Za-z0-9_]*)\(\)")
# Member separators read as ``.``, as the index qualifies names.
_MEMBER_SEPARATOR = re.compile(r"#|->|\\")
_INITIALS = re.compile(r"(?:[a-z]\.)+[a-z]?")  # ``e.g``, ``i.e.``: prose, not a name

# Words that look like identifiers in code blocks but say nothing about location.
_CODE_NOISE = frozenset(["and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue", "def", "del", "elif", "else", "except", "export", "extends", "false", "finally", "for", "from", "function", "global", "if", "import", "in", "is", "lambda", "let", "new", "none", "nonlocal", "not", "null", "or", "pass", "print", "raise", "return", "self", "super", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield", "str", "int", "float", "bool", "list", "dict", "set", "tuple", "len", "range", "type", "object", "true", "false", "none", "nan", "inf", "error", "exception", "traceback", "warning", "most", "recent", "call", "last", "line", "file", "module"])

# English words that are never worth a search term.
_LETTERS = re.compile(r"[A-Za-z]+")
# English words that carry no search meaning (also what compounds skip).

_DEFINITION = re.compile(
    r"\b(what (?:is|are|does)|where (?:is|are) .{1,60}? (?:defined|declared|implemented)"
    r"|definition of|how (?:is|are) .{1,60}? (?:configured|implemented|defined|computed|calculated)"
    r"|how does .{1,80}? (?:handle|work|compute|decide|check|validate|parse|store|build)"
    r"|implementation of|signature of)\b")
_EXAMPLES = re.compile(
    r"\b(examples?|usages?|how (?:do i|to|can i|should i) (?:use|call)|how (?:is|are) .{1,60}? used"
    r"|who calls|callers? of|call sites?|where (?:is|are) .{1,60}? (?:called|used)|show me)\b")
# Asking for tests is a matter of phrasing ("tests for X", "which test covers X", "where is
# X tested"); these always count.
_TESTS = re.compile(
    r"^(?:the |a |an |any )?(?:unit |integration |regression )?tests? (?:for|of|that|which|covering"
    r"|checking|verifying|exercising|asserting)\b"
    r"|\b(?:which|what|any|find(?: the)?|show(?: me)?(?: the)?) (?:unit |integration |regression )?tests?\b"
    r"|\btests? (?:for|covering|cover|covers|check|checks|checking|verify|verifies|verifying"
    r"|exercis\w+|assert\w*)\b"
    r"|\b(?:is|are|was|were|gets?) .{0,60}?\btested\b|\btested (?:by|in|where)\b"
    r"|\bhow do(?:es)? (?:the )?tests?\b|\bin (?:the )?tests?\b|\bunit tests?\b"
    r"|\btest (?:cases?|files?|modules?) (?:for|of|that|covering)\b")
# Words of testing that ask for tests only where the repository's own code seldom uses them
# (in a test framework "fixture" names the product, not its tests): the retriever decides,
# see :meth:`QueryAnalysis.as_domain_vocabulary`.
_TEST_WORDS = re.compile(
    r"\b(tests?|spec|specs|fixtures?|mock(?:s|ed|ing)?|fake(?:s|d)?|stub(?:s|bed)?|conftest)\b")
_CONFIG = re.compile(
    r"\b(which setting|config(?:uration)? (?:file|key|option)s?|env(?:ironment)? var(?:iable)?s?"
    r"|settings? for|default value of|(?:test|lint|build|project|package) config(?:uration)?"
    r"|lint(?:er|ing)? (?:rules?|settings?|options?)|linters?|formatters?"
    r"|(?:optional |install(?:ed)? |runtime |dev(?:elopment)? )?dependenc(?:y|ies)"
    r"|licen[cs]es? (?:are |is )?allowed|which (?:command|script)s?(?: runs?)?)\b")
_ASKS = {
    # Naming a release line ("the v3 router", "1.x") asks for that line's copy too.
    "legacy": re.compile(r"\b(legacy|deprecated|(?:old|older|previous) (?:api|versions?|implementation|major)"
                         r"|v\d+(?:\.\d+)*|\d+\.x)\b"),
    "generated": re.compile(r"\b(generated|codegen|protobuf|pb2)\b"),
    "vendored": re.compile(r"\b(vendor(?:ed)?|third[- ]party)\b"),
    "migration": re.compile(r"\b(migrations?|schema change)\b"),
    "docs": re.compile(r"\b(docs?|documentation|readme|docstring|change ?logs?|release notes)\b"),
    "benchmark": re.compile(r"\b(bench(?:mark)?(?:s|ing|ed)?|perf(?:ormance)? (?:tests?|suites?))\b"),
    "translation": re.compile(r"\b(translat(?:ion|ions|ed|e)|locales?|i18n|l10n|gettext|catalogues?)\b"),
    "example": re.compile(r"\b(examples?|samples?|demos?)\b"),
}

# A task or a commit message opens with what to do to the code ("Fix the ...", "Add a
# timeout to ...", "fix(parser): ...", "Don't retry ..."): that verb, and a conventional
# prefix's type, say what is to change, not where; as search terms they match every
# `add`, `remove` and `handle` of the repository.
_OPENING = re.compile(r"^\s*(?:\[[^\]\n]{1,30}\]\s*)?(?:(?P<type>[A-Za-z]+)(?:\([^)\n]{0,40}\))?!?:\s*)?"
                      r"(?P<verb>[A-Za-z]+)\b")
TASK_VERBS = frozenset(["fix", "fixes", "fixed", "add", "adds", "added", "remove", "removes", "removed", "allow", "allows", "support", "supports", "make", "makes", "use", "handle", "handles", "avoid", "prevent", "ensure", "improve", "improves", "update", "updates", "change", "changes", "refactor", "rename", "implement", "implements", "correct", "clean", "cleanup", "replace", "move", "drop", "introduce", "enable", "disable", "expose", "deprecate", "simplify", "optimize", "optimise", "clarify", "tweak", "adjust", "revert", "restore", "don", "dont", "stop", "feat", "perf", "chore", "build"])


def task_words(text: str) -> tuple[str, ...]:
    """The words that open ``text`` as a task or commit message (a conventional prefix's
    type, then a verb of change), lower-cased; empty when it opens otherwise."""
    found = _OPENING.match(text)
    if found is None:
        return ()
    words = [w.lower() for w in (found.group("type"), found.group("verb")) if w]
    return tuple(w for w in words if w in TASK_VERBS)


# A short query states its intent anywhere; a long one (an issue report) in its title.
_SHORT_QUERY = 300
# How much of a query is analysed: far past any issue report (SWE-bench's run to tens
# of kB), so that a pasted log of megabytes costs a second or two, not minutes. ``raw``
# stays whole.
MAX_ANALYSED_CHARS = 256 * 1024


class Frame(msgspec.Struct, frozen=True, kw_only=True):
    """One stack-trace frame: the file as printed, its line, the function if given."""

    file: str
    line: int | None = None
    function: str | None = None


class QueryAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """What a query names and wants. ``identifiers`` are best first."""

    raw: str
    terms: tuple[str, ...]
    identifier_terms: tuple[str, ...]
    identifiers: tuple[str, ...]
    qualified: tuple[str, ...]
    paths: tuple[str, ...]
    frames: tuple[Frame, ...]
    intent: str
    asks_for: frozenset[str]
    # Words of testing ("fixture", "tests") that alone made ``intent`` / ``asks_for`` ask
    # for tests, and what those would be if the words were just the repository's own
    # vocabulary (see :meth:`as_domain_vocabulary`).
    test_words: tuple[str, ...] = ()
    # The question's words in order, lower-cased (for compounds: "host name" → hostname).
    words: tuple[str, ...] = ()
    # A code-like name followed by another name, written apart ("AsPropertyTypeDeserializer
    # deserializeTypedFromObject"): the member of that type, if the index defines it.
    member_pairs: tuple[str, ...] = ()
    plain_intent: str = "general"
    plain_asks: frozenset[str] = frozenset()
    # The opening verb of a task or commit message ("Fix ...", "add ...": task_words).
    task_words: tuple[str, ...] = ()
    # Names the query marks as code, alone in backticks (`use`, `find`) or with empty call
    # parentheses (retry()): a name however short or plain it looks.
    quoted: tuple[str, ...] = ()
    # The ``terms`` of the first line of a query of several lines: the title of an issue
    # report or a commit message, which states its subject; empty for one line.
    title_terms: tuple[str, ...] = ()

    def as_domain_vocabulary(self) -> QueryAnalysis:
        """The analysis with ``test_words`` read as plain vocabulary, not a wish for tests.

        In a repository whose own (non-test) code is about testing, "which fixture runs
        first" asks about the product's fixtures, not its test suite.
        """
        if not self.test_words:
            return self
        return msgspec.structs.replace(self, intent=self.plain_intent,
                                       asks_for=self.plain_asks, test_words=())

    def without_task_words(self) -> QueryAnalysis:
        """The analysis with the task's opening verb left out of the search terms (unless
        the query also names it as code)."""
        drop = set(self.task_words) - set(self.identifier_terms)
        if not drop:
            return self
        return msgspec.structs.replace(self, terms=tuple(t for t in self.terms if t not in drop))

    def rewritten(self) -> str:
        """The query as searched: names first (never dropped), then prose terms."""
        names = list(dict.fromkeys([*self.identifiers, *self.paths,
                                    *(f.function for f in self.frames if f.function)]))
        prose = [t for t in self.terms if t not in set(self.identifier_terms)]
        head = " ".join(names)
        return f"{head} | {' '.join(prose)}" if head else " ".join(prose)


def _code_spans(text: str) -> tuple[list[str], list[str]]:
    """Every code span of ``text`` (fenced blocks, backtick spans, indented lines), and
    the backtick spans among them."""
    spans = [m.group(0).strip("`") for m in _FENCE.finditer(text)]
    without_fences = _FENCE.sub(" ", text)
    backticked = [m.group(1) for m in _BACKTICK.finditer(without_fences)]
    spans.extend(backticked)
    # Indented blocks (4 spaces or a tab) are code in Markdown issue reports.
    spans.extend(line for line in without_fences.splitlines()
                 if line.startswith(("    ", "\t")) and line.strip())
    return spans, backticked


def _frames(text: str) -> list[Frame]:
    found: list[tuple[int, Frame]] = []
    taken: list[tuple[int, int]] = []
    for pattern in (_PY_FRAME, _JAVA_FRAME, _JS_FRAME, _GO_FRAME, _RUST_FRAME, _RUBY_FRAME,
                    _PHP_FRAME, _DOTNET_FRAME, _NATIVE_FRAME):
        for m in pattern.finditer(text):
            groups = m.groupdict()
            func = _frame_function(groups.get("func"), pattern)
            taken.append(m.span("file"))
            found.append((m.start(), Frame(file=groups["file"], line=_line_number(groups["line"]),
                                           function=func)))
    # Any other ``path:line`` (a compiler's ``src/a.c:12:5: error``, a Swift or Elixir
    # trace, a log line): the file and line, where no pattern above read a frame.
    taken.sort()
    starts = [t_start for t_start, _ in taken]
    reach = list(itertools.accumulate((t_end for _, t_end in taken), max))
    for m in _FILE_LINE.finditer(text):
        start, end = m.span("file")
        # read already: a taken span starts before this one ends and reaches past its start
        before = bisect.bisect_left(starts, end)
        if before and reach[before - 1] > start:
            continue
        line = next(g for g in m.group("colon", "paren", "dotnet", "words") if g)
        found.append((m.start(), Frame(file=m.group("file"), line=_line_number(line))))
    found.sort(key=lambda item: item[0])
    return list(dict.fromkeys(frame for _, frame in found))


def _line_number(digits: str) -> int | None:
    """A frame's line, or None for a number no file reaches (``a.py:`` and thousands of
    digits, which ``int`` refuses past 4,300 of them)."""
    return int(digits) if len(digits) <= 9 else None


_DOTNET_STATE_MACHINE = re.compile(r"\.<(\w+)>[\w$]*\.MoveNext\Z")  # an async method's frame
_TYPE_ARGUMENTS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]|`\d+")


def _frame_function(func: str | None, pattern: re.Pattern[str]) -> str | None:
    """The name a frame's function is defined under, as the index qualifies it (members
    joined by ``.``, no template or generic arguments, no parameter list); None for what
    names nothing (``<module>``, ``<main>``, ``??``)."""
    if not func:
        return None
    if pattern is _DOTNET_FRAME:
        func = _DOTNET_STATE_MACHINE.sub(r".\1", func)
    if pattern is _NATIVE_FRAME or pattern is _DOTNET_FRAME:
        for _ in range(8):  # nested arguments (``f<a<b>>``), innermost first
            stripped = _TYPE_ARGUMENTS.sub("", func)
            if stripped == func:
                break
            func = stripped
        if " in " in func:  # Swift's ``closure #1 (...) -> () in Module.Type.method(...)``
            func = func.rsplit(" in ", 1)[1]
        func = func.split("(", 1)[0].strip()
        if not re.fullmatch(r"[\w:.~$]+", func):
            return None
    if func.startswith("<"):  # <module>, <lambda>: no symbol to find
        return None
    if pattern is _JAVA_FRAME:
        return ".".join(func.split(".")[-2:])  # Class.method
    return _MEMBER_SEPARATOR.sub(".", func)


_NAME_PAIR = re.compile(r"(?<![\w.$])([A-Za-z_$][\w$]*)[ \t]+(?=([A-Za-z_$][\w$]*)(?![\w.$(]))")


def _member_pairs(text: str) -> tuple[str, ...]:
    """``Type member`` pairs written with a space, the type code-like (``Router`` alone is
    a word; ``AsPropertyTypeDeserializer`` or ``http_client`` is a name)."""
    pairs = [f"{m.group(1)}.{m.group(2)}" for m in _NAME_PAIR.finditer(text)
             if m.group(1)[:1].isupper() and len(m.group(2)) > 1 and looks_like_code(m.group(1))]
    return tuple(dict.fromkeys(pairs))


def _paths(text: str) -> list[str]:
    paths: list[str] = []
    for url in _URL.findall(text):
        blob = _BLOB_PATH.search(url)
        if blob:
            paths.append(blob.group(1).rstrip(".,;:"))
    plain = _URL.sub(" ", text)
    paths.extend(m.group(1) for m in _PATH.finditer(plain))
    paths.extend(m.group(1).rstrip(".") for m in _SLASH_PATH.finditer(plain)
                 if m.group(1).count("/") >= 1 and not m.group(1).startswith(("and/", "or/")))
    cleaned = []
    for path in paths:
        # Only whole ``./`` segments go: a dotfile keeps its dot (``./.eslintrc.js``).
        path = normalize_path(path).rstrip("./") if path.startswith("./") else path
        if len(path) >= 4 and not path.replace("/", "").isdigit():
            cleaned.append(path)
    return list(dict.fromkeys(cleaned))


def _title(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line
    return ""


def _lowered_head(text: str) -> str:
    return (text if len(text) <= _SHORT_QUERY else _title(text)).lower()


class _Head(msgspec.Struct, frozen=True):
    """What the head of a query (all of a short one, a long one's title) says of intent,
    each pattern searched once: a one-line query of 200 kB is a 200 kB title."""

    tests: bool  # phrased as asking for tests
    config: bool
    test_words: tuple[str, ...]
    other: str  # examples, definition or general
    asks: frozenset[str]  # the categories of _ASKS it names

    @classmethod
    def of(cls, text: str) -> _Head:
        lowered = _lowered_head(text)
        other = next((intent for intent, pattern in (("examples", _EXAMPLES),
                                                     ("definition", _DEFINITION))
                      if pattern.search(lowered)), "general")
        return cls(tests=bool(_TESTS.search(lowered)), config=bool(_CONFIG.search(lowered)),
                   test_words=tuple(dict.fromkeys(m.group(1)
                                                  for m in _TEST_WORDS.finditer(lowered))),
                   other=other,
                   asks=frozenset(name for name, pattern in _ASKS.items()
                                  if pattern.search(lowered)))

    def intent(self, test_words: bool) -> str:
        if self.tests:
            return "tests"
        # A question about settings that names testing ("the test configuration", "test
        # mode") asks for the setting, not for tests.
        if self.config:
            return "config"
        if test_words and self.test_words:
            return "tests"
        return self.other

    def asks_for(self, test_words: bool) -> frozenset[str]:
        asks = set(self.asks)
        if self.tests or (test_words and self.test_words and not self.config):
            asks.add("test")
        if self.intent(test_words) == "examples":
            asks.add("docs")
        return frozenset(asks)


def detect_intent(text: str, *, test_words: bool = True) -> str:
    """The query's intent. ``test_words=False``: words of testing alone ("fixture",
    "mock") do not make it ask for tests; only phrasing does ("tests for X")."""
    return _Head.of(text).intent(test_words)


def detect_asks(text: str, *, test_words: bool = True) -> frozenset[str]:
    """The normally down-weighted path categories the query asks for. Tests by phrasing
    (or, with ``test_words``, by a word of testing); docs also when it asks for examples
    or usage (documentation is where examples live)."""
    return _Head.of(text).asks_for(test_words)


def _env_line(line: str) -> str | None:
    """``version`` (a setting or package with a version), ``setting``, ``short`` (a line
    that may sit inside a dump: a heading, ``[GCC 7.3.0]``, blank) or None (prose, code)."""
    stripped = line.strip()
    if not stripped:
        return "short"
    if _ENV_PACKAGE.match(line):
        return "version"
    setting = _ENV_SETTING.match(line)
    if setting:
        value = setting.group(1)
        if value in ("{", "["):  # a JSON object opens: structure, not a setting
            return "short"
        return "version" if _ENV_VERSION.match(value) else "setting"
    if stripped.startswith("```") or len(stripped) > 24 or stripped[-1] in ".?!:":
        return None
    return "short"


def without_environment(text: str) -> str:
    """``text`` without the environment dumps pasted into it (and their captions)."""
    if text.count("\n") < _ENV_MIN_VERSIONS:
        return text
    lines = text.split("\n")
    kinds = [_env_line(line) for line in lines]
    drop: set[int] = set()
    start = 0
    while start < len(lines):
        if kinds[start] not in ("version", "setting"):
            start += 1
            continue
        end = start
        while end < len(lines) and kinds[end] is not None:
            end += 1
        versions = kinds[start:end].count("version")
        if versions >= max(_ENV_MIN_VERSIONS, kinds[start:end].count("setting")):
            drop.update(range(start, end))
            above = start - 1
            while above >= 0 and start - above <= 6 and (
                    kinds[above] == "short"
                    or (len(lines[above]) < 100 and _ENV_CAPTION.search(lines[above]))):
                drop.add(above)
                above -= 1
        start = end
    return "\n".join(line for number, line in enumerate(lines) if number not in drop)


def analyze_query(raw: str, *, max_terms: int = 64, max_identifiers: int = 40) -> QueryAnalysis:
    """Analyse ``raw`` (its first :data:`MAX_ANALYSED_CHARS`); deterministic, no index
    needed."""
    # Issue templates wrap their instructions in HTML comments: boilerplate, not the issue.
    text = _HTML_COMMENT.sub(" ", raw[:MAX_ANALYSED_CHARS].replace("\r\n", "\n"))
    text = _TRAILER.sub(" ", text)
    text = without_environment(text)
    if "@" in text:
        text = _EMAIL.sub(" ", text)
    frames = _frames(text)
    paths = _paths(text)
    spans, backticked = _code_spans(text)
    code_text = "\n".join(spans)
    path_set = set(paths)

    scored: Counter[str] = Counter()
    order: dict[str, int] = {}
    def add(name: str, weight: float) -> None:
        name = name.strip(".:")
        # A rule of underscores (pytest's "____ test_x ____") names nothing.
        if (not name.strip("_") or name.lower() in _CODE_NOISE or name in path_set
                or _EXT_END.search(name)):
            return
        order.setdefault(name, len(order))
        scored[name] += int(weight * 10)

    for frame in frames:
        if frame.function:
            add(frame.function, 5)
    prose = _FENCE.sub(" ", _URL.sub(" ", text))
    for m in _IDENT.finditer(prose):
        word = _MEMBER_SEPARATOR.sub(".", m.group(0))
        if looks_like_code(word) and not _INITIALS.fullmatch(word):
            followed_by_call = text[m.end():m.end() + 1] == "("
            add(word, 3 if followed_by_call else 2)
    # A backtick span that is one name is code by the writer's own mark, even when the
    # word alone would read as English (`use`, `sub`, `find`).
    # So is a word with empty call parentheses in prose: `retry()`, `remove()`.
    called = [m.group(1) for m in _CALLED.finditer(prose)]
    quoted = tuple(dict.fromkeys(
        span for span in [*(part.strip() for part in backticked), *called]
        if _ONE_NAME.fullmatch(span) and span.lower() not in _CODE_NOISE))
    for name in quoted:
        add(name, 2)
    for m in _IDENT.finditer(code_text):
        word = _MEMBER_SEPARATOR.sub(".", m.group(0))
        if looks_like_code(word):
            add(word, 2)
        elif len(word) >= 3 and (code_text[m.end():m.end() + 1] == "("
                                 or code_text[max(0, m.start() - 1):m.start()] == "."
                                 or word[:1].isupper()):
            add(word, 1)
    identifiers = sorted(scored, key=lambda name: (-scored[name], order[name]))[:max_identifiers]
    qualified = tuple(name for name in identifiers if "." in name or "::" in name)

    name_terms: list[str] = []
    for name in [*(f.function or "" for f in frames), *paths, *identifiers]:
        name_terms.extend(code_tokens(name))
    identifier_terms = tuple(dict.fromkeys(t for t in name_terms if len(t) > 1))

    # URLs name hosts and repositories, not code (blob paths were kept as paths above).
    words = _URL.sub(" ", text)
    counts = Counter(t for t in code_tokens(words) if len(t) > 1 and t not in STOPWORDS
                     and not t.isdigit())
    first_seen: dict[str, int] = {}
    for index, term in enumerate(code_tokens(words)):
        first_seen.setdefault(term, index)
    ranked_prose = sorted(counts, key=lambda t: (-counts[t], first_seen.get(t, 0)))
    terms = list(dict.fromkeys([*identifier_terms, *ranked_prose]))[:max_terms]
    lines = [line for line in text.strip().splitlines() if line.strip()]
    kept = set(terms)
    title_terms = (tuple(dict.fromkeys(t for t in code_tokens(lines[0]) if t in kept))
                   if len(lines) > 1 else ())
    head = _Head.of(text)
    return QueryAnalysis(
        raw=raw,
        member_pairs=_member_pairs(prose),
        words=tuple(w.lower() for w in _LETTERS.findall(words)),
        terms=tuple(terms),
        identifier_terms=identifier_terms,
        identifiers=tuple(identifiers),
        qualified=qualified,
        paths=tuple(paths),
        frames=tuple(frames),
        intent=head.intent(True),
        asks_for=head.asks_for(True),
        test_words=() if head.tests else head.test_words,
        plain_intent=head.intent(False),
        plain_asks=head.asks_for(False),
        task_words=task_words(text),
        quoted=quoted,
        title_terms=title_terms,
    )
