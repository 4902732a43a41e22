#!/usr/bin/env node
// Counts the lines of src/core that hold a hand-set number: a numeric literal other than 0 and 1 in code (comments
// and strings removed). Left out: accounts (prices, plans, quotas), text/limits.ts (the 500-character item limit) and
// contract.ts (the default cosine_threshold): product tables from the contract; the error table (HTTP statuses); and
// engineering rather than decisions: inference/ (batch sizes, tensor shapes), catalog/ (block and batch sizes of file
// jobs), ann.ts (the vector index's graph degree and search widths), metrics.ts (histogram buckets),
// vector-encoding.ts and number-format.ts (how a response writes numbers, time units). Positions are not decisions: an index into a row, a match or a word list
// (cells[2], m[1], words[i + 2]) is left out. What a fitted model reads from a JSON file is not counted: that is the
// point of fitting.
// A second count narrows that to weights and cut-offs: lines holding a fractional literal (0.85, .5, 1e-3), which
// leaves out the whole numbers of lengths, counts and caps (words.length < 2, a cap of 24 candidates) that the first
// count still holds.
//   node scripts/count-hand-weights.mjs [--by-file | --lines] [--fractional]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const skip = (rel) =>
  ['src/core/accounts/', 'src/core/inference/', 'src/core/catalog/'].some((dir) => rel.startsWith(dir)) || ['src/core/errors.ts', 'src/core/vector-encoding.ts', 'src/core/number-format.ts', 'src/core/ann.ts', 'src/core/metrics.ts', 'src/core/text/limits.ts', 'src/core/contract.ts'].includes(rel);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Source without comments and string or regex contents (a rough lexer: enough for counting). */
function codeOnly(src) {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/`(?:\\.|[^`\\])*`/g, (m) => `\`${m.replace(/[^\n]/g, '')}\``)
    .replace(/'(?:\\.|[^'\\\n])*'/g, "''")
    .replace(/"(?:\\.|[^"\\\n])*"/g, '""')
    .replace(/\/\/.*$/gm, '')
    .replace(/(?<=[=(,:!&|?]\s*)\/(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n])+\/[gimsuy]*/g, '/re/')
    // An element access (row.cells[2], m[1], words[i + 2]) names a position, not a decision; array literals stay.
    .replace(/(?<=[\w)\]!])\[[^[\]\n]*\]/g, '[]');
}

const NUMBER = /(?<![\w.$])(\d+\.\d*|\.\d+|\d+(?:e-?\d+)?)(?![\w.])/g;
const FRACTIONAL = (x) => !Number.isInteger(x);
const onlyFractional = process.argv.includes('--fractional');
const byFile = new Map();
let fractionalLines = 0;
for (const path of files(join(root, 'src', 'core'))) {
  const rel = relative(root, path);
  if (skip(rel)) continue;
  const source = readFileSync(path, 'utf8');
  const original = source.split('\n');
  const lines = codeOnly(source).split('\n');
  let n = 0;
  lines.forEach((line, i) => {
    const numbers = [...line.matchAll(NUMBER)].map((m) => Number(m[1])).filter((x) => x !== 0 && x !== 1);
    if (numbers.length === 0) return;
    n++;
    const fractional = numbers.some(FRACTIONAL);
    if (fractional) fractionalLines++;
    if (process.argv.includes('--lines') && (!onlyFractional || fractional)) console.log(`${rel}:${i + 1}: ${original[i].trim()}`);
  });
  if (n > 0) byFile.set(rel, n);
}
const total = [...byFile.values()].reduce((a, b) => a + b, 0);
if (process.argv.includes('--by-file')) for (const [f, n] of [...byFile].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(4)} ${f}`);
console.log(`${total} lines of src/core hold a hand-set number (accounts, errors and engineering aside)`);
console.log(`${fractionalLines} of them hold a fractional one (a weight or a cut-off rather than a length, count or cap)`);
