"""File extension → language name, shared by the index (which parser) and slicing."""

from __future__ import annotations

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".md": "markdown", ".markdown": "markdown", ".rst": "rest",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json",
    # Headers are C++ (as Universal Ctags reads them): the C++ grammar parses C headers too.
    ".c": "c", ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".h++": "cpp", ".inl": "cpp", ".ipp": "cpp",
    ".rb": "ruby", ".php": "php", ".phtml": "php", ".cs": "csharp", ".kt": "kotlin",
    ".kts": "kotlin", ".swift": "swift",
    ".sh": "shell", ".sql": "sql", ".txt": "text",
}


def language_of(path: str) -> str | None:
    """Language of a path or glob by its extension; None when unknown."""
    name = path.rpartition("/")[2]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    return LANGUAGE_BY_EXTENSION.get("." + ext.lower())
