"""``python:module:function``: call a Python function with the request as plain data.

By default the function runs inside codegold's own interpreter (its virtual environment,
its installed packages). With ``run --python PATH`` it runs in that interpreter instead
(:class:`ExternalPythonRetriever`): a child process per request, as ``command:`` runs a
program, so a retriever with its own virtual environment needs no codegold there.

The function receives the JSON form of the request (a dict) and returns a response dict,
a list of chunk dicts, or a :class:`RetrievalResponse`. Whatever it raises, ``SystemExit``
included, and whatever it returns that cannot be written as JSON (a lone surrogate in a
string) fails that one case; only ``KeyboardInterrupt`` stops the run, since the user's
Ctrl-C arrives the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import msgspec

from codegold.adapters.command import CommandRetriever
from codegold.adapters.protocol import RetrievalRequest, RetrievalResponse, response_from_builtins
from codegold.errors import InputError, RetrieverError
from codegold.plumbing.process import DEFAULT_MAX_OUTPUT

# Run in the other interpreter (``python -c``): no codegold there, the standard library
# only. The working folder is on sys.path, as for ``python -m``.
_BOOTSTRAP = """\
import importlib, json, sys
module_name, _, function_name = sys.argv[1].rpartition(":")
function = getattr(importlib.import_module(module_name), function_name)
json.dump(function(json.load(sys.stdin)), sys.stdout)
"""


class PythonRetriever:
    def __init__(self, target: str) -> None:
        module_name, _, function_name = target.rpartition(":")
        if not module_name or not function_name:
            raise InputError(f"python retriever must be python:module:function, found {target!r}")
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            raise InputError(f"cannot import retriever module {module_name!r}: {err}") from None
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # the module's own code failed while importing
            raise InputError(f"retriever module {module_name!r} raised {_describe(err)} while "
                             "being imported") from None
        function = getattr(module, function_name, None)
        if not callable(function):
            raise InputError(f"module {module_name!r} has no function {function_name!r}")
        self.target = target
        self.function: Callable[[dict[str, Any]], Any] = function

    def retrieve(self, request: RetrievalRequest) -> RetrievalResponse:
        source = f"python function {self.target}"
        try:
            answer = self.function(msgspec.to_builtins(request))
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # SystemExit and GeneratorExit too: one case fails
            raise RetrieverError(f"{source} raised {_describe(err)}") from None
        try:
            response = response_from_builtins(answer, source=source)
            msgspec.json.encode(response)
        except RetrieverError:
            raise
        except UnicodeEncodeError as err:
            raise RetrieverError(f"{source} returned a string that is not valid Unicode "
                                 f"({err.reason}: {err.object[err.start:err.end]!a})") from None
        except Exception as err:  # an answer object that breaks while being read
            raise RetrieverError(f"{source} returned something unreadable: "
                                 f"{_describe(err)}") from None
        return response


def _describe(err: BaseException) -> str:
    """``Type: message``, safe to write as UTF-8 whatever the exception carries."""
    try:
        message = str(err)
    except Exception:  # a __str__ that raises
        message = "<message could not be read>"
    text = f"{type(err).__name__}: {message}" if message else type(err).__name__
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class ExternalPythonRetriever(CommandRetriever):
    """``python:module:function`` called in another interpreter (``run --python PATH``),
    one child process per request with the command adapter's timeout and output bound.
    The function must return plain data (a response dict or a list of chunk dicts)."""

    def __init__(self, target: str, *, python: str, timeout: float = 30.0,
                 max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        import shutil
        from pathlib import Path

        module_name, _, function_name = target.rpartition(":")
        if not module_name or not function_name:
            raise InputError(f"python retriever must be python:module:function, found {target!r}")
        found = shutil.which(python) or (python if Path(python).is_file() else None)
        if found is None:
            raise InputError(f"{{python}} {python!r} is no interpreter on this machine; give the "
                             "path of your environment's python (e.g. ../svc/.venv/bin/python)",
                             settings=("python",))
        super().__init__("python", timeout=timeout, max_output=max_output)
        self.argv = [found, "-c", _BOOTSTRAP, target]
        self.command = f"{python} (python:{target})"
