"""ctags_measure's rewritten reading: syntax Universal Ctags 5.9's JavaScript
parser cannot read is rewritten on the same rows, never the name's place or what is
assigned; a definition codegold invents is not confirmed by it."""

from __future__ import annotations

import re
import runpy
import shutil
import sys
from pathlib import Path

import pytest

from codegold.index import SymbolDef, chunk_file
from codegold.index.grammars import parser as ts_parser
from ctags_measure import main
from ctags_measure.readings import plain_javascript, read_alone, without_type_parameters

SOURCE = b"""\
req.get =
req.header = function header(name) {
  return name;
};

app.set = function set(setting) {
  return setting;
};

axios.formToJSON = thing => toJSON(thing);

const serializers = {
  req: function asReqValue (req) {
    return req;
  },
};

jQuery.fn = jQuery.prototype = {
  toArray: function() {
    return 1;
  }
};

app.plain = function () {
  return 2;
};
"""


def _rewritten(qualified: str) -> tuple[list[str], str] | None:
    result = chunk_file("lib/app.js", SOURCE)
    definition = next(d for d in result.definitions if d.qualified == qualified)
    root = ts_parser("javascript").parse(SOURCE).root_node
    return plain_javascript(root, SOURCE, definition)


def test_rewrites_keep_rows_and_change_only_syntax() -> None:
    original = SOURCE.decode().splitlines()
    lines, wanted = _rewritten("req.header") or ([], "")
    assert len(lines) == len(original) and wanted == "header"
    assert lines[0].strip() == "" and lines[1] == "req.header = function (name) {"
    lines, wanted = _rewritten("app.set") or ([], "")
    assert wanted == "set_" and lines[5] == "app.set_ = function (setting) {"
    lines, _ = _rewritten("axios.formToJSON") or ([], "")
    assert lines[9] == "axios.formToJSON = function (thing) { toJSON(thing) };"
    lines, _ = _rewritten("serializers.req") or ([], "")
    assert lines[12] == "  req: function  (req) {"
    lines, _ = _rewritten("jQuery.toArray") or ([], "")
    assert lines[17].strip() == "jQuery.prototype = {" and lines[18] == original[18]
    # Nothing ctags cannot read: no rewritten reading at all.
    assert _rewritten("app.plain") is None
    assert len(lines) == len(original)


@pytest.mark.skipif(shutil.which("ctags") is None, reason="the benchmark needs Universal Ctags")
def test_the_measure_confirms_real_definitions_not_invented_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lib").mkdir()
    data = SOURCE + b"\nx.get = 5;\n"
    (tmp_path / "lib" / "app.js").write_bytes(data)
    assert main([str(tmp_path), "--language", "javascript", "--misses", "20"]) == 0
    out = capsys.readouterr().out
    assert "precision 100.0%" in out and "rewritten 6" in out and "unconfirmed" not in out
    # A definition codegold does not make, were it claimed (`x.get = 5` assigns a number):
    # the keyword rename applies, and ctags still tags nothing there.
    invented = SymbolDef(name="get", qualified="x.get", kind="method", role="definition",
                         file="lib/app.js", start_line=28, end_line=28, header_line=28,
                         chunk_id="c")
    root = ts_parser("javascript").parse(data).root_node
    plain = plain_javascript(root, data, invented)
    assert plain is not None and plain[1] == "get_"
    assert not read_alone(tmp_path / "lib" / "app.js", plain[0], invented, [invented],
                          tmp_path, wanted=plain[1])


@pytest.mark.skipif(shutil.which("ctags") is None, reason="the benchmark needs Universal Ctags")
def test_typescript_object_literal_members_are_read_by_the_javascript_parser(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ctags's TypeScript parser tags `db` as a constant and nothing inside the literal.
    (tmp_path / "src").mkdir()
    data = (b"export const db: Db = {\n  user: {\n    findById: async (id: string) => id,\n"
            b"    create: async (data: { name: string }) => {\n      return data;\n    },\n"
            b"  },\n};\n\n"
            # types ctags's JavaScript parser cannot read: erased for that reading
            b"const factories: Record<string, () => unknown> = {\n  string: () => 1,\n};\n"
            b"export const formatters = {\n  y<T>(date: Date, token: string): string {\n"
            b"    return token;\n  },\n};\n"
            # a function type in a constraint: ctags's TypeScript parser names it `Promise`
            b"export class Ky {\n  async #retry<T extends (...a: any) => Promise<any>>(f: T) {\n"
            b"    return f();\n  }\n}\n")
    (tmp_path / "src" / "db.ts").write_bytes(data)
    assert main([str(tmp_path), "--language", "typescript", "--misses", "20"]) == 0
    out = capsys.readouterr().out
    assert "precision 100.0%" in out and "unconfirmed" not in out
    assert "second reading src/db.ts:3 method db.user.findById" in out
    assert "second reading src/db.ts:11 method factories.string" in out
    assert "second reading src/db.ts:14 method formatters.y" in out
    assert "second reading src/db.ts:19 method Ky.#retry" in out
    # A name the literal does not hold is not confirmed by the JavaScript reading.
    invented = SymbolDef(name="remove", qualified="db.user.remove", kind="method",
                         role="definition", file="src/db.ts", start_line=3, end_line=3,
                         header_line=3, chunk_id="c")
    assert not read_alone(tmp_path / "src" / "db.ts", data.decode().splitlines(),
                          invented, [invented], tmp_path, parser="JavaScript")


@pytest.mark.skipif(shutil.which("ctags") is None, reason="the benchmark needs Universal Ctags")
def test_go_generic_types_are_read_without_their_type_parameters(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ctags 5.9 tags `type Entry[K comparable, V any] struct` as a type, without fields.
    data = (b"package lo\n\ntype Entry[K comparable, V any] struct {\n\tKey   K\n\tValue V\n}\n\n"
            b"type Clonable[T any] interface {\n\tClone() T\n}\n")
    (tmp_path / "types.go").write_bytes(data)
    assert main([str(tmp_path), "--language", "go", "--misses", "20"]) == 0
    out = capsys.readouterr().out
    assert "precision 100.0%" in out and "unconfirmed" not in out
    assert "second reading types.go:4 field Entry.Key" in out
    assert "second reading types.go:9 method Clonable.Clone" in out
    plain = without_type_parameters("go", data, data.decode().splitlines(),
                                    ts_parser("go").parse(data).root_node)
    original = data.decode().splitlines()
    assert plain[2] == "type Entry" + " " * 21 + " struct {"
    assert plain[7] == "type Clonable" + " " * 7 + " interface {"
    assert [n for n, line in enumerate(plain) if line != original[n]] == [2, 7]


@pytest.mark.skipif(shutil.which("ctags") is None, reason="the benchmark needs Universal Ctags")
def test_the_benchmark_script_prints_the_tools_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "app.js").write_bytes(SOURCE)
    assert main([str(tmp_path), "--language", "javascript"]) == 0
    direct = capsys.readouterr().out
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "languages.py"
    monkeypatch.setattr(sys, "argv", [str(script), str(tmp_path), "--language", "javascript"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(script), run_name="__main__")
    assert done.value.code == 0
    through_script = capsys.readouterr().out
    assert "javascript  files     1" in direct
    # the same figures (the timing aside) whichever way the tool is called
    assert re.sub(r"time +[\d.]+s", "", through_script) == re.sub(r"time +[\d.]+s", "", direct)


@pytest.mark.skipif(shutil.which("ctags") is None, reason="the benchmark needs Universal Ctags")
def test_python_classes_inside_methods_are_nested_in_a_function(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ctags's Python methods are `member`s: a class a test method defines (`class Meta:`
    # of its schema) is nested in a function body, not a definition to find.
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_schema.py").write_bytes(
        b"class TestSchema:\n    def test_dump(self):\n        class SelfSchema(Schema):\n"
        b"            class Meta:\n                ordered = True\n        return SelfSchema\n\n"
        b"    @property\n    def name(self):\n        return 1\n")
    assert main([str(tmp_path), "--language", "python", "--misses", "20"]) == 0
    out = capsys.readouterr().out
    # TestSchema; not SelfSchema (a local, file-scope to ctags) nor Meta
    assert re.search(r"ctags +1 ", out) and "recall 100.0%" in out and "missed" not in out
