#!/usr/bin/env node
// Validates the knowledge base (npm run check:knowledge; also run by test/knowledge.test.ts): loads every file
// through the compiled loaders, prints what it holds, and exits 1 on any problem, naming file:line.
// Usage: node scripts/check-knowledge.mjs [--dir <knowledge folder>] [--json]
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'src', 'core', 'knowledge', 'index.js');
const args = process.argv.slice(2);
const dirFlag = args.indexOf('--dir');
const dir = dirFlag >= 0 ? resolve(args[dirFlag + 1] ?? '') : join(root, 'knowledge');
const asJson = args.includes('--json');

if (!existsSync(compiled)) {
  console.error(`check-knowledge: ${compiled} is missing; build first (npx tspc -p tsconfig.json)`);
  process.exit(2);
}
const { validateKnowledge, MIN_DISHES_PER_CUISINE, MIN_DISHES_TOTAL } = await import(pathToFileURL(compiled).href);
const report = validateKnowledge(dir);

if (asJson) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const pad = (s, n) => String(s).padEnd(n);
  console.log(`knowledge: ${dir}`);
  console.log(`dishes ${report.dishes} (need ≥ ${MIN_DISHES_TOTAL}), aliases ${report.aliases} (${report.redundantAliases} repeat a name key), ` +
    `ambiguous names ${report.ambiguousNames}, Devanagari aliases ${report.devanagariAliases} ` +
    `(${report.partlyTranslatedAliases.length} partly translated), loaded and indexed in ${report.loadMs.toFixed(0)} ms`);
  console.log(`\nper cuisine label (need ≥ ${MIN_DISHES_PER_CUISINE} each):`);
  for (const [cuisine, n] of Object.entries(report.perCuisine).sort((a, b) => b[1] - a[1])) {
    console.log(`  ${pad(cuisine, 16)} ${String(n).padStart(5)}${n < MIN_DISHES_PER_CUISINE ? '  ← too few' : ''}`);
  }
  console.log('\nper file:');
  for (const [file, n] of Object.entries(report.perFile)) console.log(`  ${pad(`dishes/${file}`, 42)} ${String(n).padStart(5)}`);
  console.log(`\nhard negatives: ${report.hardNegatives}`);
  console.log('non-food exemplars:');
  for (const [file, n] of Object.entries(report.nonFood)) console.log(`  ${pad(`nonfood/${file}`, 42)} ${String(n).padStart(5)}`);
  console.log('lexicons:');
  for (const [file, n] of Object.entries(report.lexicons)) console.log(`  ${pad(`lexicon/${file}`, 42)} ${String(n).padStart(5)}`);
}

if (report.problems.length > 0) {
  console.error(`\n${report.problems.length} problem(s):`);
  for (const p of report.problems) console.error(`  ${p}`);
  process.exit(1);
}
if (!asJson) console.log('\nknowledge OK');
