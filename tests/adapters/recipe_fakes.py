"""Shape-compatible fakes of LangChain and LlamaIndex retrievers (no framework installed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BILLING = ("def invoice_total(items):\n    return sum(i.price for i in items)\n\n\n"
           "def refund(invoice):\n    return -invoice_total(invoice.items)\n")
LOGIN = "def login(user, password):\n    return check(user, password)\n"


@dataclass
class Document:  # the shape of langchain_core.documents.Document
    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class TextNode:  # the shape of llama_index.core.schema.TextNode
    node_id: str
    text: str
    metadata: dict[str, Any]

    def get_content(self) -> str:
        return self.text


@dataclass
class NodeWithScore:
    node: TextNode
    score: float | None


# What each fake search finds: (file, start, end, text); invoice_total is lines 1-2.
HITS = [("src/login.py", 1, 2, LOGIN), ("src/billing.py", 1, 2, BILLING[:60]),
        ("src/billing.py", 5, 6, "def refund")]


class FakeLangChainRetriever:
    def __init__(self, root: str) -> None:
        self.root = root

    def invoke(self, query: str) -> list[Document]:
        return [Document(text, {"source": f"{self.root}/{f}", "start_line": s, "end_line": e})
                for f, s, e, text in HITS]


class FakeLlamaIndexRetriever:
    def retrieve(self, query: str) -> list[NodeWithScore]:
        return [NodeWithScore(TextNode(f"n{i}", text, {"file_path": f, "start_line": s,
                                                        "end_line": e}), 1.0 / (i + 1))
                for i, (f, s, e, text) in enumerate(HITS)]
