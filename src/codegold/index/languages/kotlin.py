"""Kotlin: the constructs the grammar loses a class or a file over, rewritten without
moving a row or offset."""

from __future__ import annotations

import re

from codegold.index.languages._rewrite import blank as _blank
from codegold.index.languages.spec import LanguageSpec

# Kotlin Multiplatform's `actual`/`expect` before a primary constructor on its own line
# (`class ByteString\ninternal actual constructor(`) fails the grammar for the whole
# class; the modifier changes nothing codegold reads, so it becomes blanks.
_KOTLIN_PLATFORM_CONSTRUCTOR = re.compile(
    rb"^(?P<lead>[ \t]*(?:(?:public|protected|internal|private|@[\w.]+(?:\([^)\n]*\))?)"
    rb"[ \t]+)*)(?P<platform>actual|expect)"
    rb"(?=[ \t]+(?:(?:public|protected|internal|private)[ \t]+)*constructor\b)",
    re.MULTILINE)


# An annotation on a property accessor (`val size\n  @JvmName("size")\n  get() = ...`)
# fails the grammar when the property has no type; it names nothing, so it becomes blanks.
_KOTLIN_ACCESSOR_ANNOTATION = re.compile(
    rb"@[\w.:]++(?:\([^()\n]*+\))?+(?=\s*+(?:(?:public|protected|internal|private)\s++)?+"
    rb"(?:get|set)\s*+\()")


# Annotations on the line of a top-level class (`@Retention(RUNTIME) annotation class
# FromJson`, `@A @B(x) class C`) are read by the grammar as an annotated expression, so the
# class is lost; they name nothing, so they become blanks.
_KOTLIN_CLASS_LINE_ANNOTATIONS = re.compile(
    rb"(?m)^[ \t]*+(?P<annotations>(?:@[\w.:]++(?:\((?:[^()\n]|\([^()\n]*+\))*+\))?+[ \t]++)++)"
    rb"(?=(?:(?:public|protected|internal|private|abstract|open|final|sealed|data|inner|enum"
    rb"|annotation|value|expect|actual|fun)[ \t]++)*+(?:class|interface|object)\b)")


# A nested class whose primary constructor starts the next line (`class Options\n
# private constructor(`) ends at the line break in the grammar (the constructor becomes
# its container's, or an error that loses the whole file). The line break moves to just
# before the constructor's `(`: the class name and everything from the `(` on keep their
# rows and byte offsets.
_KOTLIN_CONSTRUCTOR_LINE = re.compile(
    rb"(?m)^(?P<head>[ \t]*(?:(?:public|protected|internal|private|open|abstract|final|sealed"
    rb"|data|inner|enum|value|expect|actual|@[\w.]+(?:\([^()\n]*\))?)[ \t]+)*class[ \t]+"
    rb"\w+[ \t]*(?:<(?:[^<>\n]|<[^<>\n]*>)*>)?)"
    rb"(?P<gap>[ \t]*\n[ \t]+)(?P<constructor>(?:(?:public|protected|internal|private|actual"
    rb"|expect|@[\w.]+(?:\([^()\n]*\))?)[ \t]+)*constructor)(?=[ \t]*\()")


# Kotlin 2.2's multi-dollar string prefix (`$$"{\"$foo\": 1}"`) is unknown to the grammar,
# which then loses the rest of the class; the prefix becomes blanks (a plain string).
_KOTLIN_MULTI_DOLLAR = re.compile(rb"\$\$++(?=\")")


# A call to a function named like a modifier at a statement's start (`{ open(place) }`),
# a lambda parameter so named (`{ override, b -> }`) and a local named `get` or `set` at a line's start (`set += x`, after `val set = ...`
# reads as the property's setter) fail the grammar; such a name is spelled as another
# identifier of the same length. A lambda's parameters are looked for in the next 200
# characters of the line (a scan to the line's end from each name was quadratic:
# `;open,` repeated, 15 s for 30 kB).
_KOTLIN_MODIFIER_CALL = re.compile(
    rb"(?m)(?:^|[{;]|->)[ \t]*+(open|override|abstract|final|sealed|internal|private|public"
    rb"|protected|inline|suspend|infix|lateinit|external|tailrec|vararg)(?=\(|[ \t]*+(?:,[^\n{};]{0,200}?)?->)")
_KOTLIN_ACCESSOR_NAMED_LOCAL = re.compile(
    rb"(?m)^[ \t]*+(get|set)(?=[ \t]*+(?:[-+*/%]?=(?!=)|\.|\?\.|\[|!!|\+\+|--))")
# A call of a function named `get` with arguments at a line's start (`val copy = ...` then
# `get(copy)`, ByteBuffer's bulk get) reads as that val's getter, which takes none: the
# rest of the file becomes one syntax error.
_KOTLIN_GET_CALL = re.compile(rb"(?m)^[ \t]*+(get)(?=\([ \t]*+[^)\s])")


def _respell(match: re.Match[bytes]) -> bytes:
    """``match`` with group 1 (a keyword) spelled as an identifier of the same length."""
    start, end = match.span(1)
    offset = match.start(0)
    text = match.group(0)
    return text[:start - offset] + match.group(1)[:-1] + b"_" + text[end - offset:]


# The `annotation` modifier (`@Qualifier\nannotation class Name`) makes the grammar read
# the annotations above it, and a class annotated at the top level around it, as an
# expression: the classes are lost. It changes nothing codegold reads, so it becomes blanks.
_KOTLIN_ANNOTATION_MODIFIER = re.compile(rb"\bannotation(?=[ \t]++class\b)")


def _constructor_on_class_line(match: re.Match[bytes]) -> bytes:
    gap = match.group("gap")
    return (match.group("head") + b" " + match.group("constructor") + b"\n"
            + b" " * (len(gap) - 2))


def _prepare_kotlin(data: bytes) -> bytes:
    source = _KOTLIN_PLATFORM_CONSTRUCTOR.sub(lambda m: _blank(m, "platform"), data)
    source = _KOTLIN_ANNOTATION_MODIFIER.sub(_blank, source)
    source = _KOTLIN_CLASS_LINE_ANNOTATIONS.sub(lambda m: _blank(m, 1), source)
    source = _KOTLIN_CONSTRUCTOR_LINE.sub(_constructor_on_class_line, source)
    source = _KOTLIN_MULTI_DOLLAR.sub(_blank, source)
    source = _KOTLIN_MODIFIER_CALL.sub(_respell, source)
    source = _KOTLIN_ACCESSOR_NAMED_LOCAL.sub(_respell, source)
    source = _KOTLIN_GET_CALL.sub(_respell, source)
    return _KOTLIN_ACCESSOR_ANNOTATION.sub(_blank, source)


SPECS = (
    LanguageSpec(name="kotlin", module="tree_sitter_kotlin", loader="language", family="kotlin",
                 tags=("kotlin",), wrappers=frozenset(),
                 # An annotation with arguments on its own line above a
                 # top-level function parses as an annotated expression.
                 attached=frozenset({"line_comment", "block_comment", "annotated_expression"}),
                 test_names=r"^test|Tests?$", prepare=_prepare_kotlin),
)
