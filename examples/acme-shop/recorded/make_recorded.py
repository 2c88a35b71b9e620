#!/usr/bin/env python3
"""Write the recorded example run: the spec's three worked examples, replayable offline.

    .venv/bin/python examples/acme-shop/recorded/make_recorded.py

writes, beside this script,

- ``cases.yaml``: the worked-example cases copied from ``../cases.yaml`` (same ids,
  queries, groups and revisions), so that every case has an attempt;
- ``attempts.jsonl``: one attempt per case, as a retriever without role awareness or
  path context would rank them at v2, with a complete manifest.

The rankings are written out by hand below (they are the *story* of each example); only
line spans and excerpts are read from the example's source tree, so they stay true to
it. Output is deterministic: running it again gives identical bytes, and
``tests/example/test_recorded.py`` checks exactly that.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

from codegold.model import (
    Attempt,
    Chunk,
    ChunkerInfo,
    Manifest,
    PathPolicyInfo,
    Query,
    encode_attempt,
)

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent
V2_SHA = "64cf94f743b6c391bbdfd61ebebeda5d06377c57"
RUN_ID = "recorded-example"

MANIFEST = Manifest(
    repository="acme/shop",
    revision=V2_SHA,
    index_build_id="recorded-example-v2",
    chunker=ChunkerInfo(name="recorded-example", version="1"),
    path_policy=PathPolicyInfo(include=["**"], exclude=[], hash=None),
    files=85,
    chunks=212,
    created_at="2026-06-15T17:00:00Z",
    complete=True,
    codegold_version=None,
)

# (file, symbol or None for the whole file, role, symbols the chunk carries)
Pick = tuple[str, str | None, str, tuple[str, ...]]
# Chunks that span their whole file although they name a symbol: the legacy shim's chunk
# carries its long comment, which is what makes it win on words.
WHOLE_FILE = {"src/legacy/session.ts"}

RANKINGS: dict[str, list[Pick]] = {
    # Example 1: the legacy shim's long comment wins on words; the current service is 3rd,
    # the validator 4th. Both required groups are inside k=5, but a forbidden chunk is at
    # rank 1, so the case fails and the record names the forbidden chunk.
    "session-expiry": [
        ("src/legacy/session.ts", "createSession", "definition", ("createSession",)),
        ("test/auth/session-service.spec.ts", None, "test", ("createSession",)),
        ("src/auth/session-service.ts", "SessionService.createSession", "definition",
         ("SessionService.createSession",)),
        ("src/auth/refresh.ts", "validateRefreshToken", "definition", ("validateRefreshToken",)),
        ("src/generated/api-client.ts", "ShopApiClient.createSession", "generated",
         ("ShopApiClient.createSession",)),
    ],
    # Example 2 without path context: every parse matches lexically and the well-documented
    # JSON fixture parser ranks first; the webhook parser is 7th, past k=5.
    "webhook-parse-signature": [
        ("test/fixtures/json.ts", "parse", "test", ("parse",)),
        ("src/dates/parse.ts", "parse", "definition", ("parse",)),
        ("vendor/qs-lite/index.js", "parse", "vendored", ("parse",)),
        ("src/cli/args.ts", "parse", "definition", ("parse",)),
        ("docs/webhooks.md", None, "docs", ()),
        ("src/webhooks/signature.ts", "verifySignature", "definition", ("verifySignature",)),
        ("src/webhooks/parse.ts", "parse", "definition", ("parse",)),
    ],
    # Example 2 with the open file as reliable context: the webhook module wins.
    "webhook-parse-signature-open-file": [
        ("src/webhooks/parse.ts", "parse", "definition", ("parse",)),
        ("src/webhooks/signature.ts", "verifySignature", "definition", ("verifySignature",)),
        ("src/webhooks/handlers.ts", "handleWebhook", "definition", ("handleWebhook",)),
        ("test/webhooks/parse.spec.ts", None, "test", ("parse",)),
        ("docs/webhooks.md", None, "docs", ()),
    ],
    # Example 3: five test files that instantiate RetryPolicy fill k=5; the definition is
    # 6th. Every visible chunk carries the name, so identifier hit rate would look perfect.
    "retry-policy-definition": [
        ("test/retry/policy.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/retry/with-retry.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/payments/payment-client.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/orders/order-service.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/webhooks/delivery.spec.ts", None, "test", ("RetryPolicy",)),
        ("src/retry/policy.ts", "RetryPolicy", "definition", ("RetryPolicy",)),
    ],
    # The same ranking is right for an example request.
    "retry-policy-examples": [
        ("test/retry/policy.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/retry/with-retry.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/payments/payment-client.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/orders/order-service.spec.ts", None, "test", ("RetryPolicy",)),
        ("test/webhooks/delivery.spec.ts", None, "test", ("RetryPolicy",)),
        ("src/retry/policy.ts", "RetryPolicy", "definition", ("RetryPolicy",)),
    ],
    # Two evidence groups: the contract is found, the per-environment configuration is not
    # (group recall 0.5, missing "configuration").
    "retry-policy-configuration": [
        ("test/retry/policy.spec.ts", None, "test", ("RetryPolicy",)),
        ("src/retry/policy.ts", "RetryPolicy", "definition", ("RetryPolicy",)),
        ("docs/retries.md", None, "docs", ()),
        ("src/retry/with-retry.ts", "withRetry", "definition", ("withRetry",)),
        ("vendor/tiny-retry/index.js", "RetryPolicy", "vendored", ("RetryPolicy",)),
    ],
}


def source_at_v2(path: str) -> list[str]:
    for tree in ("tree-v2", "tree-v1"):
        candidate = EXAMPLE / tree / path
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8").splitlines()
    raise SystemExit(f"error: {path} is not in the example tree")


def span(lines: list[str], symbol: str | None) -> tuple[int, int]:
    """1-based inclusive lines of the symbol's definition, or of the whole file."""
    if symbol is None:
        return 1, len(lines)
    name = symbol.rsplit(".", 1)[-1]
    decl = re.compile(rf"^(\s*)(export\s+)?(async\s+)?(function\s+|class\s+|def\s+)?{re.escape(name)}\b")
    for number, line in enumerate(lines):
        found = decl.match(line)
        if found is None or not (found.group(4) or "(" in line):
            continue
        indent = found.group(1)
        for end in range(number + 1, len(lines)):
            text = lines[end]
            if text.startswith(indent + "}") or (text.strip() and len(text) - len(text.lstrip()) <= len(indent)
                                                 and not text.lstrip().startswith((")", "}"))):
                closing = text.startswith(indent + "}")
                return number + 1, end + 1 if closing else end
        return number + 1, len(lines)
    raise SystemExit(f"error: no definition of {symbol} found")


def make_chunk(pick: Pick) -> Chunk:
    file, symbol, role, symbols = pick
    lines = source_at_v2(file)
    start, end = span(lines, None if file in WHOLE_FILE else symbol)
    excerpt = "\n".join(lines[start - 1 : end])[:400]
    return Chunk(
        chunk_id=f"rec:{file}#L{start}-{end}",
        file=file,
        symbol=symbol,
        symbols=symbols,
        role=role,
        revision=V2_SHA,
        start_line=start,
        end_line=end,
        excerpt=excerpt,
    )


def main() -> int:
    source = yaml.safe_load((EXAMPLE / "cases.yaml").read_text(encoding="utf-8"))
    by_id = {case["id"]: case for case in source["cases"]}
    missing = [case_id for case_id in RANKINGS if case_id not in by_id]
    if missing:
        raise SystemExit(f"error: cases.yaml lacks {', '.join(missing)}")
    subset = {"format": 1, "defaults": source["defaults"],
              "cases": [by_id[case_id] for case_id in RANKINGS]}
    header = ("# Generated by make_recorded.py from ../cases.yaml: the spec's worked examples.\n"
              "# Edit ../cases.yaml and rerun the script; do not edit this file.\n")
    (HERE / "cases.yaml").write_text(
        header + yaml.safe_dump(subset, sort_keys=False, width=100, allow_unicode=True),
        encoding="utf-8")
    lines = []
    for number, (case_id, picks) in enumerate(RANKINGS.items(), start=1):
        ranked = [make_chunk(pick) for pick in picks]
        case = by_id[case_id]
        attempt = Attempt(
            attempt_id=f"{RUN_ID}-{number:03d}",
            case_id=case_id,
            run_id=RUN_ID,
            query=Query(raw=case["query"], rewritten=case["query"],
                        filters={"open_file": case["context"]["open_file"]} if "context" in case else {}),
            manifest=MANIFEST,
            candidates=ranked,
            ranked=ranked,
            context_ids=[chunk.chunk_id for chunk in ranked[:5]],
            timing_ms={"total": 0.0},
            retriever="recorded:lexical-baseline",
        )
        lines.append(encode_attempt(attempt).decode("utf-8"))
    (HERE / "attempts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} attempts and cases to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
