"""Every structurally chunked language, one module each, and the one registry the
chunker reads.

A language module holds its :class:`LanguageSpec` (``SPECS``: the grammar wheel, the
query files, the node types the structural walker must know, its test conventions) and,
where its grammar cannot read a construct, the byte rewriting its spec's ``prepare``
names. Its query files sit in ``queries/`` beside them: ``<name>.tags.scm`` (definitions)
and ``<family>.scm`` (call sites). What a file's language is (extensions, whether its
text is program text, data or prose) is :mod:`codegold.model.languages`, shared with the
parts that never parse.

Adding a language: a grammar dependency in pyproject.toml, a module here listed in
``_MODULES``, its query files, and its extensions in :mod:`codegold.model.languages` when
they are new. ``tests/index/test_language_registry.py`` checks every registered language
is complete.
"""

from __future__ import annotations

import importlib

from codegold.index.languages.spec import LanguageSpec

# In registry order (the order languages are listed everywhere).
_MODULES = ("python", "javascript", "go", "java", "rust", "ruby", "csharp", "c", "php", "kotlin",
            "swift")


def _collect() -> dict[str, LanguageSpec]:
    found: dict[str, LanguageSpec] = {}
    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        for spec in module.SPECS:
            found[spec.name] = spec
    return found


LANGUAGES: dict[str, LanguageSpec] = _collect()
STRUCTURAL_LANGUAGES: frozenset[str] = frozenset(LANGUAGES)

__all__ = ["LANGUAGES", "STRUCTURAL_LANGUAGES", "LanguageSpec"]
