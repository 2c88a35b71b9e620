"""Digits read from text a user or a tool wrote go through ASCII-only readers: the
superscripts ``str.isdigit`` takes (``'²'``) and numbers past ``int()``'s 4,300-digit
limit are not numbers there, never a ValueError traceback."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from codegold.curate.fromlog import _line
from codegold.execute.rayexec import _host_port
from codegold.plumbing.fieldpaths import dig
from codegold.report.html import _trend

_NOT_NUMBERS = ["²", "1²", "9" * 5000, "", "-"]


@pytest.mark.parametrize("text", _NOT_NUMBERS)
def test_a_field_path_step_that_is_no_number_leads_nowhere(text: str) -> None:
    assert dig({"a": [1, 2, 3]}, f"a.{text}") is None
    assert dig({"a": [1, 2, 3]}, "a.-1") == 3  # a plain index still reads


@pytest.mark.parametrize("text", _NOT_NUMBERS)
def test_a_ray_address_whose_port_is_no_number_has_none(text: str) -> None:
    assert _host_port(f"ray://head:{text}") == (None, 0)
    assert _host_port("ray://head:10001") == ("head", 10001)


@pytest.mark.parametrize("text", _NOT_NUMBERS)
def test_a_log_line_field_that_is_no_number_is_no_line(text: str) -> None:
    assert _line({"line": text}, ("line",)) is None
    assert _line({"line": "12"}, ("line",)) == 12


@pytest.mark.parametrize("text", _NOT_NUMBERS)
def test_a_trend_depth_that_is_no_number_is_left_out_of_the_report(text: str) -> None:
    trend: dict[str, Any] = {"hit_rate@1": 0.5, f"hit_rate@{text}": 0.7}
    report: Any = SimpleNamespace(results=SimpleNamespace(summary=SimpleNamespace(
        trend=trend, budget_trend=None)))
    html = _trend(report)
    assert "@1" in html and "0.500" in html and "0.700" not in html
