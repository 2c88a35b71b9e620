"""JSON Schemas of the on-disk formats, generated from the very structs that read them.

Every format is registered here by the dotted path of its Spec struct, so this module
imports no other part of codegold: the struct is imported only when its schema is asked
for. Because the loaders (:func:`codegold.model.load_versioned`) decode into the same
structs, a document the schema accepts is one the loader accepts, cross-field rules
aside (unique ids, a revision given on the case or in defaults), which the schema
descriptions state. Register a new format with :func:`register_format`.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import msgspec


class FormatEntry(NamedTuple):
    module: str      # e.g. "codegold.model.cases"
    attribute: str   # the msgspec Struct the loader decodes into
    title: str
    # Objects whose unknown fields the reader keeps under their ``extra`` instead of
    # refusing them (a retriever's answer and its chunks).
    open_objects: tuple[str, ...] = ()


SCHEMAS: dict[str, FormatEntry] = {}
_OPEN = ("Any other field is accepted and kept, as it came, under this object's `extra` "
         "(said once per run, never judged).")


def register_format(name: str, module: str, attribute: str, title: str, *,
                    open_objects: tuple[str, ...] = ()) -> None:
    """Make ``codegold schema NAME`` print the JSON Schema of ``module.attribute``."""
    SCHEMAS[name] = FormatEntry(module, attribute, title, open_objects)


register_format("cases", "codegold.model.cases", "CaseFileSpec",
                "codegold gold cases (cases.yaml / .json; .jsonl holds one case a line)")
register_format("attempts", "codegold.model.attempts", "Attempt",
                "one line of attempts.jsonl: a retrieval attempt")
register_format("manifest", "codegold.model.manifest", "Manifest",
                "manifest.json of a codegold index")
register_format("results", "codegold.model.results", "RunResult",
                "results.json written by `codegold eval`")
register_format("owners", "codegold.diagnose.owners", "OwnersFile",
                "owners file of `codegold diagnose --owners`: failure cause -> team")
register_format("retriever-config", "codegold.retrieve.config", "RetrieverConfig",
                "reference retriever configuration (`--config`; every key optional)")
register_format("index-policy", "codegold.index.policy", "PolicyFileSpec",
                "path policy file of `codegold index --policy`")
register_format("gate-policy", "codegold.gate.policy", "Policy",
                "gate policy of `codegold gate --policy`: floors, ceilings, zero tolerance, baseline")
register_format("answers", "codegold.model.answers", "Answer",
                "one line of answers.jsonl: an answer and the attempt it used (`codegold link`)")
register_format("answer-results", "codegold.evaluate.answers", "AnswerResults",
                "answer-results.json written by `codegold link -o`")
register_format("diagnoses", "codegold.model.diagnoses", "DiagnosisSet",
                "diagnoses.json written by `codegold diagnose -o DIR`")
register_format("bundle", "codegold.model.diagnoses", "EvidenceBundle",
                "one evidence bundle, DIR/bundles/CASE.json of `codegold diagnose -o DIR`")
register_format("verdict", "codegold.model.verdict", "Verdict",
                "the gate's verdict, `codegold gate --json` (gate.json of the demo)")
register_format("comparison", "codegold.model.comparison", "Comparison",
                "`codegold compare A.json B.json --json FILE`: two runs")
register_format("comparison-multi", "codegold.compare.multi", "MultiComparison",
                "`codegold compare A.json B.json C.json --json FILE`: several systems (kind: multi)")
register_format("import-report", "codegold.trajectories.importer", "ImportReport",
                "report of `codegold import trajectories --report`: what each trajectory gave")
register_format("retrieval-request", "codegold.adapters.protocol", "RetrievalRequest",
                "what codegold sends a command or HTTP retriever")
register_format("retrieval-response", "codegold.adapters.protocol", "RetrievalResponse",
                "what a command or HTTP retriever answers (a bare list is taken as ranked)",
                open_objects=("RetrievalResponse", "Chunk"))


def spec_of(name: str) -> type[Any]:
    """The struct a format decodes into (imported on demand)."""
    entry = SCHEMAS[name]
    kind: type[Any] = getattr(importlib.import_module(entry.module), entry.attribute)
    return kind


def json_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = msgspec.json.schema(spec_of(name))
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = SCHEMAS[name].title
    for open_name in SCHEMAS[name].open_objects:
        definition = schema.get("$defs", {}).get(open_name)
        if definition is not None:
            definition["additionalProperties"] = True
            described = definition.get("description")
            definition["description"] = f"{described}\n\n{_OPEN}" if described else _OPEN
    return schema
