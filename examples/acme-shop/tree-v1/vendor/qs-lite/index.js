// qs-lite 1.0.4 (MIT), vendored. Query-string parse and stringify.
"use strict";

/** Parses a query string into an object; repeated keys become arrays. */
function parse(query) {
  const out = {};
  for (const pair of query.replace(/^\?/, "").split("&")) {
    if (!pair) continue;
    const [k, v = ""] = pair.split("=").map(decodeURIComponent);
    if (k in out) out[k] = [].concat(out[k], v);
    else out[k] = v;
  }
  return out;
}

function stringify(obj) {
  return Object.entries(obj)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
}

module.exports = { parse, stringify };
