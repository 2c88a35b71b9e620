"""codegold: evaluate the retrieval stage of a code assistant against pinned gold cases.

Public surface is kept small on purpose; everything else lives in sub-packages whose
contracts are described in ``docs/architecture.md``.
"""

from codegold.errors import CodegoldError, InputError

__version__ = "0.1.0"

__all__ = ["CodegoldError", "InputError", "__version__"]
