#!/usr/bin/env node
// Measures how often each knowledge source of /classify is right on the development cuisine labels
// (eval/dev/cuisine_dev_labels.tsv) and writes models/calibration/cuisine-sources.json: the confidence /classify
// reports for an answer from an exact or unambiguous knowledge-base name (`dish`), a confident fuzzy resolution
// (`fuzzy_dish`) and, when no cuisine head is loaded, an agreeing strong lexicon cue (`cue`). Each is the share of its
// answers that match the label, smoothed by one right and one wrong answer ((right + 1) / (answered + 2)) so that a
// source with few answers is not reported as certain. The cue is measured on every labelled item it answers, head or
// not. Never reads the held-out set. Refit when the knowledge base or the labels change.
//   npx tspc -p tsconfig.json && node scripts/fit-cuisine-confidence.mjs [--out PATH]
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../dist/src/config.js';
import { Services } from '../dist/src/core/services.js';
import { predictCuisines } from '../dist/src/core/classify.js';
import { CUISINE_SOURCES_FORMAT, CUISINE_SOURCES_PATH } from '../dist/src/core/profile-confidence.js';
import { loadDevSets } from '../dist/eval/sets.js';
import { int8Kernels } from './lib/int8-kernels.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LABELS = join(ROOT, 'eval', 'dev', 'cuisine_dev_labels.tsv');
const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : CUISINE_SOURCES_PATH;

const services = new Services(loadConfig({ ...process.env, PORT: '0' }));
await services.ready;
const rows = loadDevSets().cuisine;
if (rows.length === 0) throw new Error('no development cuisine labels');
const { texts, vectors } = await services.embedTexts(rows.map((r) => r.text), 384);
const predictions = predictCuisines(services.knowledge, services.heads, texts, vectors);

const tally = { dish: [0, 0], fuzzy_dish: [0, 0], cue: [0, 0] };
predictions.forEach((p, i) => {
  const truth = rows[i].cuisine;
  if (p.source === 'dish' || p.source === 'fuzzy_dish') {
    tally[p.source][0]++;
    if (p.cuisine === truth) tally[p.source][1]++;
  }
  const cue = texts[i].cues.cuisine;
  if (cue.value !== null && cue.strong && cue.agreeing) {
    tally.cue[0]++;
    if (cue.value === truth) tally.cue[1]++;
  }
});
const smoothed = ([answered, right]) => Math.round(((right + 1) / (answered + 2)) * 1e4) / 1e4;
const file = {
  format: CUISINE_SOURCES_FORMAT,
  confidence: { dish: smoothed(tally.dish), fuzzy_dish: smoothed(tally.fuzzy_dish), cue: smoothed(tally.cue) },
  fitted_by: 'scripts/fit-cuisine-confidence.mjs',
  int8_kernels: int8Kernels(),
  data: {
    labels: 'eval/dev/cuisine_dev_labels.tsv',
    items: rows.length,
    sha256: createHash('sha256').update(readFileSync(LABELS)).digest('hex'),
  },
  counts: Object.fromEntries(Object.entries(tally).map(([k, [answered, right]]) => [k, { answered, right }])),
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
console.log(`[fit-cuisine-confidence] ${JSON.stringify(file.confidence)} from ${JSON.stringify(file.counts)} -> ${OUT}`);
await services.close?.();
process.exit(0);
