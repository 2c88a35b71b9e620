"""The one exception tree every part of codegold raises from.

::

    CodegoldError                 base: anything codegold reports to a user
    ├── InputError                a file or argument is not what was expected
    │   ├── SchemaError           a file does not follow its documented format
    │   └── DuplicateIndexError   two indexes in one folder are built from one revision
    ├── CodeIndexError            an index cannot be built, read or trusted
    ├── RetrieverError            a retriever (reference or adapter) failed
    └── MissingDependency         an optional extra is not installed

The CLI turns each into one line (``error: ...``) and exit code 2. Library code never
prints and never calls ``sys.exit``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

# How much of a value an error line quotes: a case id or a query of megabytes would make
# the one line as long.
QUOTED_CHARS = 100


def quoted(value: object) -> str:
    """``repr(value)``, a long text cut to its first :data:`QUOTED_CHARS` characters and
    its length."""
    if isinstance(value, str) and len(value) > QUOTED_CHARS:
        return f"{value[:QUOTED_CHARS]!r}... ({len(value)} characters)"
    return repr(value)


class CodegoldError(Exception):
    """Base class; ``str(err)`` is a complete, user-facing sentence.

    ``settings`` names the settings of a request (``index``, ``wait_for_index``) the
    message refers to, each written in it as ``{index}``: ``str(err)`` quotes the setting's
    own name, and :meth:`worded` lets a front end call each one by its name there (the CLI
    by its flag, ``--index``). Library code names settings so, never a front end's flags.
    """

    def __init__(self, message: str, *, settings: Iterable[str] = ()) -> None:
        self.message = message
        self.settings = tuple(settings)
        super().__init__(self._render())

    def worded(self, name: Callable[[str], str]) -> str:
        """The message with each of its settings called ``name(setting)``."""
        return self._render(name)

    def _named(self, name: Callable[[str], str] | None) -> str:
        message = self.message
        for setting in self.settings:
            message = message.replace("{" + setting + "}",
                                      name(setting) if name else repr(setting))
        return message

    def _render(self, name: Callable[[str], str] | None = None) -> str:
        return self._named(name)


class InputError(CodegoldError):
    """Bad input: says what was found, what was expected and where.

    ``where`` is a short location such as ``cases.yaml:12`` and ``case_id``/``field``
    narrow it further; all are optional so the message stays honest about what is known.

    ``settings`` are named as :class:`CodegoldError` says; a ``field`` among them is named
    the same way.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        case_id: str | None = None,
        field: str | None = None,
        settings: Iterable[str] = (),
    ) -> None:
        self.path = path
        self.line = line
        self.case_id = case_id
        self.field = field
        super().__init__(message, settings=settings)

    def _render(self, name: Callable[[str], str] | None = None) -> str:
        message = self._named(name)
        field = self.field
        if field and name and field in self.settings:
            field = name(field)
        where = ""
        if self.path:
            where = self.path + (f":{self.line}" if self.line else "")
        parts = [p for p in (where, f"case {quoted(self.case_id)}" if self.case_id else "",
                             f"field {field!r}" if field else "") if p]
        prefix = ", ".join(parts)
        return f"{prefix}: {message}" if prefix else message


class SchemaError(InputError):
    """A file does not follow its documented, versioned format."""


class DuplicateIndexError(InputError):
    """Two indexes in a folder of indexes claim the same revision: which one a case means
    cannot be told (waiting for more indexes will not help)."""


class CodeIndexError(CodegoldError):
    """An index cannot be built, opened or trusted."""


class RetrieverError(CodegoldError):
    """A retriever failed to answer a request."""


class MissingDependency(CodegoldError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str, purpose: str, *,
                 install: str | None = None, settings: Iterable[str] = ()) -> None:
        command = install or f"pip install 'codegold[{extra}]'"
        super().__init__(
            f"{purpose} needs the optional package {package!r}; install it with: {command}",
            settings=settings)
