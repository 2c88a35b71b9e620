"""What a file's language is: the one table of languages by name, with their extensions
and what their text is, shared by the index (which parser, which category, how secrets
are read), slicing and query analysis (which words of a question name files). How a
structural language is parsed is :mod:`codegold.index.languages`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, kw_only=True)
class FileLanguage:
    """One language: ``kind`` says what its files hold (``code`` is program text: a
    ``source`` file outside docs; ``config`` is chunked by its keys; ``docs`` by its
    headings). ``data_text``: its text is data or prose, so a ``password: value`` there is
    a secret even unquoted (in program text only quoted literals count).
    ``package_declaration``: a ``package a.b`` / ``namespace A.B`` line names the library
    package; ``source_tree``: its module path is its folders under ``src/``."""

    name: str
    extensions: tuple[str, ...]
    kind: Literal["code", "config", "docs", "text"]
    data_text: bool = False
    package_declaration: bool = False
    source_tree: bool = False


LANGUAGES: tuple[FileLanguage, ...] = (
    FileLanguage(name="python", extensions=(".py", ".pyi"), kind="code", source_tree=True),
    FileLanguage(name="typescript", extensions=(".ts", ".mts", ".cts"), kind="code"),
    FileLanguage(name="tsx", extensions=(".tsx",), kind="code"),
    FileLanguage(name="javascript", extensions=(".js", ".mjs", ".cjs", ".jsx"), kind="code"),
    FileLanguage(name="go", extensions=(".go",), kind="code"),
    FileLanguage(name="java", extensions=(".java",), kind="code", package_declaration=True),
    FileLanguage(name="rust", extensions=(".rs",), kind="code", source_tree=True),
    FileLanguage(name="markdown", extensions=(".md", ".markdown"), kind="docs", data_text=True),
    FileLanguage(name="rest", extensions=(".rst",), kind="docs"),
    FileLanguage(name="yaml", extensions=(".yaml", ".yml"), kind="config", data_text=True),
    FileLanguage(name="toml", extensions=(".toml",), kind="config", data_text=True),
    FileLanguage(name="json", extensions=(".json",), kind="config", data_text=True),
    FileLanguage(name="c", extensions=(".c",), kind="code"),
    # Headers are C++ (as Universal Ctags reads them): the C++ grammar parses C headers too.
    FileLanguage(name="cpp", extensions=(".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh",
                                         ".hxx", ".h++", ".inl", ".ipp"), kind="code"),
    FileLanguage(name="ruby", extensions=(".rb",), kind="code"),
    FileLanguage(name="php", extensions=(".php", ".phtml"), kind="code",
                 package_declaration=True),
    FileLanguage(name="csharp", extensions=(".cs",), kind="code", package_declaration=True),
    FileLanguage(name="kotlin", extensions=(".kt", ".kts"), kind="code",
                 package_declaration=True),
    FileLanguage(name="swift", extensions=(".swift",), kind="code"),
    FileLanguage(name="shell", extensions=(".sh",), kind="code", data_text=True),
    FileLanguage(name="sql", extensions=(".sql",), kind="code"),
    FileLanguage(name="text", extensions=(".txt",), kind="text", data_text=True),
)

BY_NAME: dict[str, FileLanguage] = {language.name: language for language in LANGUAGES}
LANGUAGE_BY_EXTENSION: dict[str, str] = {
    extension: language.name for language in LANGUAGES for extension in language.extensions}
# Files a question may name though no language above reads them (the index keeps them as
# files of no language): a query's file names are told by these too.
OTHER_FILE_EXTENSIONS: tuple[str, ...] = (".pyx", ".scala", ".cfg", ".ini", ".html", ".css")
# Every extension that marks a word of a question as a file name (retrieve.query).
FILE_NAME_EXTENSIONS: tuple[str, ...] = tuple(dict.fromkeys([*LANGUAGE_BY_EXTENSION,
                                                            *OTHER_FILE_EXTENSIONS]))
# Program text in languages the table above does not know (no grammar, no chunker of
# their own): the index reads their secrets as code, so a ``token: String`` parameter is
# a declaration, and only a quoted literal after ``password =`` is a secret value.
CODE_EXTENSIONS_WITHOUT_LANGUAGE: frozenset[str] = frozenset({
    ".pony", ".zig", ".nim", ".scala", ".sc", ".ex", ".exs", ".erl", ".hrl", ".hs", ".lhs",
    ".ml", ".mli", ".fs", ".fsi", ".fsx", ".lua", ".dart", ".r", ".jl", ".pl", ".pm", ".t",
    ".groovy", ".gradle", ".clj", ".cljs", ".cljc", ".elm", ".cr", ".d", ".v", ".sv", ".vhd",
    ".vhdl", ".m", ".mm", ".f90", ".f95", ".f03", ".for", ".pas", ".pp", ".ada", ".adb",
    ".ads", ".cob", ".cbl", ".coffee", ".vue", ".svelte", ".sol", ".move", ".cairo", ".hx",
    ".odin", ".gleam", ".roc", ".purs", ".idr", ".agda", ".lean", ".rkt", ".scm", ".ss",
    ".lisp", ".el", ".tcl", ".vb", ".bas", ".ps1", ".psm1", ".awk", ".pyx", ".pxd", ".cu",
    ".cuh", ".metal", ".glsl", ".hlsl", ".wgsl", ".mojo", ".carbon", ".vala", ".re", ".res",
})
CODE_LANGUAGES: frozenset[str] = frozenset(x.name for x in LANGUAGES if x.kind == "code")
CONFIG_LANGUAGES: frozenset[str] = frozenset(x.name for x in LANGUAGES if x.kind == "config")
# None: a file of no known language is read as data too
DATA_TEXT_LANGUAGES: frozenset[str | None] = frozenset(
    {None, *(x.name for x in LANGUAGES if x.data_text)})
PACKAGE_LANGUAGES: frozenset[str] = frozenset(x.name for x in LANGUAGES if x.package_declaration)
SOURCE_TREE_LANGUAGES: frozenset[str] = frozenset(x.name for x in LANGUAGES if x.source_tree)


def is_code_without_language(path: str) -> bool:
    """Whether ``path`` names program text of a language the table does not know (see
    CODE_EXTENSIONS_WITHOUT_LANGUAGE)."""
    name = path.rpartition("/")[2]
    stem, dot, ext = name.rpartition(".")
    return bool(dot and stem) and "." + ext.lower() in CODE_EXTENSIONS_WITHOUT_LANGUAGE


def language_of(path: str) -> str | None:
    """Language of a path or glob by its extension; None when unknown."""
    name = path.rpartition("/")[2]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return LANGUAGE_BY_EXTENSION.get("." + ext.lower())
