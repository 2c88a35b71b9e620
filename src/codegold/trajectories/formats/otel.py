"""OpenTelemetry traces as the collector's file exporter writes them (OTLP JSON).

A file holds one ``{"resourceSpans": [...]}`` export request, or one a line. Spans are
grouped by ``traceId`` (one trajectory per trace) and ordered by ``startTimeUnixNano``.
Read are GenAI ``execute_tool`` spans (``gen_ai.operation.name``; ``gen_ai.tool.name``,
``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``), interpreted by the tool's
name like any other agent's tools, and OpenInference retriever spans
(``openinference.span.kind`` ``RETRIEVER``) with ``retrieval.documents.N.document.*``
(``id``, ``content``, ``metadata`` naming the file and lines): search hits; OpenInference
``TOOL`` spans (``tool.name``, ``input.value``, ``output.value``) are tool calls too. A step is
the number of model calls (``chat``/``text_completion``/``generate_content`` spans)
started before the span, else the span's rank among the tool spans. The case id is the
first of ``codegold.case_id``, ``case_id``, ``instance_id``, ``swe.instance_id`` found on
a span or its resource.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codegold.errors import SchemaError
from codegold.plumbing.numbers import number
from codegold.plumbing.text import json_loads
from codegold.trajectories.formats._common import (
    as_args,
    document_from_id,
    documents_in,
    generic_call,
    read_document,
    stem,
)
from codegold.trajectories.records import ToolCall, Trajectory

NAME = "otel"
SUFFIXES = (".json", ".jsonl")
CASE_KEYS = ("codegold.case_id", "case_id", "instance_id", "swe.instance_id")
_INT64_DIGITS = 20
_MODEL_CALLS = {"chat", "text_completion", "generate_content"}
_DOCUMENT = re.compile(r"retrieval\.documents\.(\d+)\.document\.(id|content|metadata|score)$")


def _value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as plain JSON."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, str):  # OTLP JSON writes 64-bit integers as strings
            found = number(raw, signed=True, digits=_INT64_DIGITS)
            return raw if found is None else found
        return raw
    if "arrayValue" in value:
        items = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else []
        return [_value(v) for v in _list(items)]
    if "kvlistValue" in value:
        pairs = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) \
            else []
        return _attributes(pairs)
    return None


def _attributes(items: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            found[item["key"]] = _value(item.get("value"))
    return found


def _nanos(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return max(value, 0)
    return (number(value, digits=_INT64_DIGITS) or 0) if isinstance(value, str) else 0


def _documents(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    by_number: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = _DOCUMENT.match(key)
        position = number(match.group(1)) if match else None
        if match and position is not None:
            by_number.setdefault(position, {})[match.group(2)] = value
    documents = []
    for place in sorted(by_number):
        parts = by_number[place]
        metadata = parts.get("metadata")
        if isinstance(metadata, str):
            try:
                metadata = json_loads(metadata)
            except (ValueError, RecursionError):
                metadata = None
        content = parts.get("content") if isinstance(parts.get("content"), str) else ""
        found = documents_in(metadata) if isinstance(metadata, dict) else []
        if found:
            document = found[0]
            document["text"] = document["text"] or content
        elif isinstance(parts.get("id"), str) and document_from_id(parts["id"]) is not None:
            document = document_from_id(parts["id"]) or {}
            document["text"] = content
        elif isinstance(parts.get("id"), str):
            document = {"path": parts["id"], "start": None, "end": None, "text": content}
        else:
            continue
        documents.append(document)
    return documents


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _operation(attributes: dict[str, Any]) -> str | None:
    operation = attributes.get("gen_ai.operation.name")
    return operation if isinstance(operation, str) else None


def _spans(data: Any, path: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(span, resource attributes)`` of every span of every export request."""
    requests = data if isinstance(data, list) else [data]
    spans = []
    for request in requests:
        if not isinstance(request, dict) or not isinstance(request.get("resourceSpans"), list):
            continue
        for resource_spans in request["resourceSpans"]:
            if not isinstance(resource_spans, dict):
                continue
            resource = resource_spans.get("resource")
            attributes = _attributes(resource.get("attributes")) if isinstance(resource, dict) \
                else {}
            for scope in _list(resource_spans.get("scopeSpans")):
                if not isinstance(scope, dict):
                    continue
                for span in _list(scope.get("spans")):
                    if isinstance(span, dict):
                        spans.append((span, attributes))
    return spans


def read(path: str, raw: bytes, notes: list[str]) -> list[Trajectory]:
    data, found = read_document(raw, path)
    notes.extend(found)
    spans = _spans(data, path)
    if not spans:
        raise SchemaError("expected OTLP JSON: objects with 'resourceSpans' holding spans",
                          path=path)
    traces: dict[str, list[tuple[int, dict[str, Any], dict[str, Any]]]] = {}
    for span, resource in spans:
        trace = str(span["traceId"]) if isinstance(span.get("traceId"), str) else ""
        attributes = {**resource, **_attributes(span.get("attributes"))}
        traces.setdefault(trace, []).append((_nanos(span.get("startTimeUnixNano")), span,
                                             attributes))
    name = stem(path, SUFFIXES)
    trajectories = []
    for trace in sorted(traces):
        ordered = sorted(traces[trace], key=lambda item: (item[0], str(item[1].get("spanId"))))
        model_calls = any(_operation(a) in _MODEL_CALLS for _, _, a in ordered)
        case_id: str | None = None
        calls: list[ToolCall] = []
        turns = -1
        tools = -1
        for _, span, attributes in ordered:
            case_id = case_id or next((str(attributes[k]) for k in CASE_KEYS
                                       if isinstance(attributes.get(k), (str, int))), None)
            operation = _operation(attributes)
            span_name = str(span["name"]) if isinstance(span.get("name"), str) else ""
            if operation in _MODEL_CALLS:
                turns += 1
                continue
            kind = attributes.get("openinference.span.kind")
            documents = _documents(attributes)
            is_tool = operation == "execute_tool" or span_name.startswith("execute_tool") \
                or kind == "TOOL"
            if not (is_tool or documents or kind == "RETRIEVER"):
                continue
            tools += 1
            step = max(turns, 0) if model_calls else tools
            status = span.get("status")
            failed = isinstance(status, dict) and status.get("code") in (2, "STATUS_CODE_ERROR")
            if documents or kind == "RETRIEVER":
                calls.append(ToolCall(step=step, tool=span_name or "retrieval",
                                      handler="documents", args={"documents": documents}))
                continue
            tool = attributes.get("gen_ai.tool.name", attributes.get("tool.name"))
            tool = tool if isinstance(tool, str) else span_name.removeprefix("execute_tool ")
            result = attributes.get("gen_ai.tool.call.result", attributes.get("output.value"))
            arguments = attributes.get("gen_ai.tool.call.arguments",
                                       attributes.get("tool.parameters",
                                                      attributes.get("input.value")))
            calls.append(generic_call(step, tool, as_args(arguments),
                                      result if isinstance(result, str) else
                                      json.dumps(result) if result is not None else None,
                                      failed=failed))
        label = f"{name}#{trace[:16]}" if len(traces) > 1 else name
        trajectories.append(Trajectory(source=path, label=label, instance_id=case_id,
                                       calls=tuple(calls), record={"traceId": trace}))
    return trajectories
