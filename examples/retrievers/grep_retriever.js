#!/usr/bin/env node
// A complete codegold retriever in Node (no dependencies), speaking the command: protocol.
//
//   codegold run cases.yaml -o attempts.jsonl \
//       --retriever "command:node examples/retrievers/grep_retriever.js /path/to/checkout"
//
// codegold writes ONE JSON request to stdin and reads ONE JSON response from stdout
// (see docs/retrievers.md). This retriever splits every text file of a checkout into
// 30-line windows, scores each window by how often it contains the query's words, and
// answers the k best. It reports a manifest describing its own "index" (the checkout,
// which the operator vouches is at the requested revision), so codegold can score it.
'use strict';

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const WINDOW = 30;
const SKIP_DIRS = new Set(['.git', 'node_modules', '.venv', '__pycache__']);
const TEXT_EXT = /\.(py|js|ts|tsx|jsx|go|java|rs|rb|md|rst|txt|ya?ml|toml|json|cfg|ini|sh)$/;

function listFiles(root, dir = '', out = []) {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) listFiles(root, rel, out);
    } else if (entry.isFile() && TEXT_EXT.test(entry.name)) {
      out.push(rel);
    }
  }
  return out.sort();
}

function words(text) {
  // Identifiers split on underscores and camelCase humps, so invoice_total meets "invoice total".
  return (text.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().match(/[a-z0-9]{3,}/g) || []);
}

function main(input) {
  const request = JSON.parse(input);
  const root = process.argv[2] || process.env.GREP_RETRIEVER_ROOT;
  if (!root) throw new Error('usage: grep_retriever.js CHECKOUT_DIR');
  const queryWords = new Set(words(request.query));
  const files = listFiles(root);
  const windows = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    for (let start = 0; start < lines.length; start += WINDOW) {
      const text = lines.slice(start, start + WINDOW).join('\n');
      let score = 0;
      for (const w of words(text)) if (queryWords.has(w)) score += 1;
      if (file.toLowerCase().split(/[^a-z0-9_]+/).some((p) => queryWords.has(p))) score += 3;
      windows.push({ file, start: start + 1, end: Math.min(start + WINDOW, lines.length), text, score });
    }
  }
  windows.sort((a, b) => b.score - a.score || a.file.localeCompare(b.file) || a.start - b.start);
  const ranked = windows.slice(0, request.k).map((w) => ({
    chunk_id: `${w.file}#L${w.start}-L${w.end}`,
    file: w.file,
    revision: request.revision,
    score: w.score,
    start_line: w.start,
    end_line: w.end,
    excerpt: w.text.slice(0, 300),
  }));
  const buildId = crypto.createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16);
  return {
    format: 1,
    ranked,
    rewritten: [...queryWords].join(' '),
    manifest: {
      repository: request.repository || null,
      revision: request.revision,
      index_build_id: `grep-${buildId}`,
      chunker: { name: 'grep-window', version: '1' },
      files: files.length,
      chunks: windows.length,
      complete: true,
    },
  };
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (part) => { input += part; });
process.stdin.on('end', () => {
  try {
    process.stdout.write(JSON.stringify(main(input)));
  } catch (err) {
    process.stderr.write(`grep_retriever: ${err.message}\n`);
    process.exit(1);
  }
});
