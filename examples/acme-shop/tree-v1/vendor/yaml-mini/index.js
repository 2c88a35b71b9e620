// yaml-mini 0.3.1 (MIT), vendored from upstream without changes.
// Parses the small YAML subset used by config files: nested maps, scalars, lists.
"use strict";

function parseScalar(text) {
  if (text === "true") return true;
  if (text === "false") return false;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text.replace(/^["']|["']$/g, "");
}

function parse(source) {
  const root = {};
  const stack = [{ indent: -1, node: root }];
  for (const rawLine of source.split("\n")) {
    if (!rawLine.trim() || rawLine.trim().startsWith("#")) continue;
    const indent = rawLine.length - rawLine.trimStart().length;
    const [key, ...rest] = rawLine.trim().split(":");
    while (stack[stack.length - 1].indent >= indent) stack.pop();
    const parent = stack[stack.length - 1].node;
    const value = rest.join(":").trim();
    if (value === "") {
      parent[key] = {};
      stack.push({ indent, node: parent[key] });
    } else {
      parent[key] = parseScalar(value);
    }
  }
  return root;
}

module.exports = { parse };
