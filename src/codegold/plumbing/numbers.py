"""Numbers read from untrusted text (what an agent's tools printed, what a retriever
answered): ASCII digits of a plausible size only. ``int()`` refuses a string of more than
4,300 digits and the superscripts ``str.isdigit`` takes (``'²'``), each with a ValueError;
so every line number, count and time read from such text goes through :func:`number` (or
:func:`as_int` for a JSON value) and is None when it is not one."""

from __future__ import annotations

from typing import Any

MAX_DIGITS = 9
"""Most digits read as a line number or a count (no file has a billion lines)."""


def number(text: str, *, signed: bool = False, digits: int = MAX_DIGITS) -> int | None:
    """``text`` as an int when it is ASCII digits (at most ``digits`` of them; a leading
    ``-`` too with ``signed``), else None."""
    unsigned = text[1:] if signed and text.startswith("-") else text
    if not unsigned or len(unsigned) > digits or not (unsigned.isascii() and unsigned.isdigit()):
        return None
    return int(text)


def as_int(value: Any, *, signed: bool = False) -> int | None:
    """A JSON value as an int: an integer, a float holding one, or digits in a string
    (:func:`number`, spaces around them allowed); else None (booleans too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        return number(value.strip(), signed=signed)
    return None
