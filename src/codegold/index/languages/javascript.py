"""JavaScript, TypeScript and TSX: one family (TS/TSX use JavaScript's call-site query
and add their own tags to the shared ``ecmascript`` ones)."""

from __future__ import annotations

import re

from codegold.index.languages.spec import LanguageSpec

# TypeScript without semicolons: a generic call signature on its own line (`<T>(x: T): T`
# after `(x: number): [B]` in an interface or type literal) is read by the grammar as type
# arguments of the member before it, and the rest of the file becomes one syntax error.
# The blank before its `<` becomes the `;` the compiler infers, when the code line above
# ends a type (a name, `)`, `]`, `>` or `}`; not `=>`). TSX is left alone (JSX lines
# start with `<`).
_LINE_OPENING_ANGLE = re.compile(rb"(?m)^[ \t]*[ \t]<(?=[\w\s])")
_ENDS_A_TYPE = re.compile(rb"(?:[\w)\]}]|(?<!=)>)$")


def _prepare_typescript(data: bytes) -> bytes:
    if b"\n" not in data or not _LINE_OPENING_ANGLE.search(data):
        return data
    out = bytearray(data)
    for match in _LINE_OPENING_ANGLE.finditer(data):
        end = match.start()  # the start of the `<` line: look above it
        while end > 0:
            start = data.rfind(b"\n", 0, end - 1) + 1
            line = data[start:end - 1].strip()
            if line and not line.startswith((b"//", b"/*", b"*")):
                if _ENDS_A_TYPE.search(line):
                    out[match.end() - 2] = ord(";")
                break
            end = start
    return bytes(out)



# `assignment_expression`: a chained assignment (`req.get = req.header = function ...`)
# defines what its inner assignment defines.

_JS_WRAPPERS = frozenset({"export_statement", "expression_statement", "ambient_declaration",
                          "assignment_expression"})
_JS_ATTACHED = frozenset({"comment", "decorator", "html_comment"})
_JS_TESTS = r"^(test|it|describe)"
_JS_FLATTEN = frozenset({"statement_block", "else_clause", "catch_clause", "finally_clause"})

SPECS = (
    LanguageSpec(name="javascript", module="tree_sitter_javascript", loader="language",
                 family="javascript", tags=("ecmascript", "javascript"), wrappers=_JS_WRAPPERS,
                 attached=_JS_ATTACHED, test_names=_JS_TESTS, flatten=_JS_FLATTEN),
    LanguageSpec(name="typescript", module="tree_sitter_typescript", loader="language_typescript",
                 family="javascript", tags=("ecmascript", "typescript"), wrappers=_JS_WRAPPERS,
                 attached=_JS_ATTACHED, test_names=_JS_TESTS, flatten=_JS_FLATTEN,
                 prepare=_prepare_typescript),
    LanguageSpec(name="tsx", module="tree_sitter_typescript", loader="language_tsx",
                 family="javascript", tags=("ecmascript", "typescript"), wrappers=_JS_WRAPPERS,
                 attached=_JS_ATTACHED, test_names=_JS_TESTS, flatten=_JS_FLATTEN),
)
