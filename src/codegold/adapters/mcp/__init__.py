"""``mcp:`` retrievers: code-search tools behind the Model Context Protocol.

Importing this package does not import the MCP SDK (``codegold[mcp]``); building an
``mcp:`` retriever does, and names the extra when it is missing.
"""

from __future__ import annotations

from codegold.adapters.mcp.settings import McpSettings

__all__ = ["McpSettings"]
