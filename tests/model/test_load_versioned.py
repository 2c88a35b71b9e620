"""load_versioned: one reader for every versioned file (format check, located errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import msgspec
import pytest

from codegold.errors import SchemaError
from codegold.model import load_versioned
from codegold.model.io import MAX_ALIAS_NODES, MAX_DEPTH


class _Item(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    name: str
    size: Annotated[int, msgspec.Meta(ge=1, le=10)] = 1


class _Spec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: Literal[1, 2]
    items: list[_Item]


class _Optional(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    format: Literal[1] = 1
    name: str = "x"


class _Loose(msgspec.Struct, frozen=True, kw_only=True):
    format: Literal[1]
    a: object = None
    b: object = None
    x: object = None


def _load(tmp_path: Path, text: str, spec: type = _Spec, name: str = "f.yaml") -> object:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_versioned(path, spec, what="test").value


def test_reads_every_supported_version_and_names_them_when_unsupported(tmp_path: Path) -> None:
    assert _load(tmp_path, "format: 2\nitems: []\n") == _Spec(format=2, items=[])
    with pytest.raises(SchemaError, match="unsupported format 3; this codegold reads test "
                                          "format 1 or 2") as info:
        _load(tmp_path, "format: 3\nitems: []\n")
    assert info.value.field == "format" and info.value.line == 1
    with pytest.raises(SchemaError, match="missing 'format: 1 or 2'"):
        _load(tmp_path, "items: []\n")
    with pytest.raises(SchemaError, match="unsupported format True"):
        _load(tmp_path, "format: true\nitems: []\n")
    assert _load(tmp_path, "name: y\n", _Optional) == _Optional(name="y")


def test_errors_name_line_field_and_rule(tmp_path: Path) -> None:
    with pytest.raises(SchemaError) as info:
        _load(tmp_path, "format: 1\nitems:\n  - name: a\n  - name: b\n    size: 11\n")
    err = info.value
    assert (err.line, err.field) == (4, "size")
    assert "must be at most 10, found 11" in err.message
    with pytest.raises(SchemaError, match="unknown key 'nmae'") as info:
        _load(tmp_path, "format: 1\nitems:\n  - nmae: a\n")
    assert info.value.line == 3
    # The keys that mapping may hold, the nearest one first.
    assert "did you mean 'name'? the keys here: name, size" in info.value.message
    with pytest.raises(SchemaError) as info:
        _load(tmp_path, "format: 1\nitems: []\nwhatever: 1\n")
    assert "unknown key 'whatever' (a typo? the keys here: format, items" in info.value.message


def test_json_syntax_errors_get_a_line(tmp_path: Path) -> None:
    with pytest.raises(SchemaError) as info:
        _load(tmp_path, '{"format": 1,\n "items": [\n  {"name": "a",,}]}', name="f.json")
    assert info.value.line == 3


def test_jsonl_needs_an_assembler(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="not JSON lines"):
        _load(tmp_path, '{"format": 1}\n', name="f.jsonl")


@pytest.mark.parametrize("name", ["f.json", "f.yaml"])
def test_depth_limit_is_exactly_the_documented_maximum(tmp_path: Path, name: str) -> None:
    # MAX_DEPTH levels of lists and mappings (the top mapping is level 1) load; one more not.
    inner = "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)
    assert _load(tmp_path, f'{{"format": 1, "x": {inner}}}', name=name, spec=_Loose)
    deeper = "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH
    with pytest.raises(SchemaError, match=f"nested deeper than {MAX_DEPTH}"):
        _load(tmp_path, f'{{"format": 1, "x": {deeper}}}', name=name, spec=_Loose)


def test_alias_budget_counts_whole_subtrees(tmp_path: Path) -> None:
    anchor = "[" + ", ".join(["x"] * 99) + "]"  # 100 nodes with the list itself
    uses = MAX_ALIAS_NODES // 100
    ok = f"format: 1\na: &a {anchor}\nb: [" + ", ".join(["*a"] * uses) + "]\n"
    _load(tmp_path, ok, spec=_Loose)
    with pytest.raises(SchemaError, match="alias"):
        _load(tmp_path, ok.replace("]\n", ", *a]\n"), spec=_Loose)
