#!/usr/bin/env node
// Fits the logistic cosine → same-dish probability that the precision stage (src/core/match.ts) falls back on where no
// cross-encoder answers (MENU_RERANKERS=off, and /suggest's same-dish exclusion), for the served encoder, and writes it
// to models/calibration/same-dish-cosine.json. The data is the knowledge base alone: dish names against a quarter of
// their Latin aliases (same dish) and knowledge/hard_negatives.tsv (different dishes), never eval fixtures.
// Refit when the served encoder changes. Run after `npx tspc -p tsconfig.json`.
//   node scripts/fit-match-calibration.mjs [--out PATH]
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadConfig } from '../dist/src/config.js';
import { Services } from '../dist/src/core/services.js';
import { loadDishBook } from '../dist/src/core/knowledge/dishes.js';
import { readTsv } from '../dist/src/core/knowledge/tsv.js';
import { KNOWLEDGE_DIR } from '../dist/src/core/paths.js';
import { COSINE_CALIBRATION_FORMAT, COSINE_CALIBRATION_PATH } from '../dist/src/core/match.js';
import { menuVectors, NO_ANCHORS } from '../dist/src/core/menu-vector.js';
import { parseMenuText } from '../dist/src/core/menu-text.js';
import { int8Kernels } from './lib/int8-kernels.mjs';

const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : COSINE_CALIBRATION_PATH;
const PER_SIDE = 2000;

const services = new Services(loadConfig({ ...process.env, PORT: '0' }));
await services.ready;
// A fixed linear-congruential draw, so the same knowledge base gives the same sample.
let seed = 7;
const draw = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const positives = [];
for (const d of loadDishBook().dishes) for (const a of d.aliases) if (/^[\x20-\x7e]+$/.test(a) && draw() < 0.25) positives.push([d.name, a]);
const negatives = readTsv(join(KNOWLEDGE_DIR, 'hard_negatives.tsv'), ['text_a', 'text_b', 'kind', 'note']).map((r) => [r.cells[0], r.cells[1]]);
const pairs = [...positives.slice(0, PER_SIDE), ...negatives.slice(0, PER_SIDE)];
const labels = pairs.map((_, i) => (i < Math.min(positives.length, PER_SIDE) ? 1 : 0));
// The calibration answers where the knowledge base is silent, so it is fitted on menu vectors without the dish anchor
// (menu-vector.ts): anchored, every alias here would meet its dish's name and the fit would learn the knowledge base,
// not the encoder.
const embed = async (texts) => ({ vectors: await menuVectors(services.requireEncoder(), NO_ANCHORS, services.dishAnchors, texts.map((t) => parseMenuText(services.knowledge, t)), 384) });
const a = await embed(pairs.map((p) => p[0]));
const b = await embed(pairs.map((p) => p[1]));
const cos = pairs.map((_, i) => a.vectors[i].reduce((s, v, k) => s + v * b.vectors[i][k], 0));

// Logistic regression on one input, p = σ(slope · (cosine − midpoint)), by Newton's method on (slope, intercept).
let w = 1, c0 = 0; // z = w·cos + c0
for (let it = 0; it < 50; it++) {
  let gw = 0, gc = 0, hww = 0, hwc = 0, hcc = 0;
  for (let i = 0; i < cos.length; i++) {
    const p = 1 / (1 + Math.exp(-(w * cos[i] + c0)));
    const r = p - labels[i], v = p * (1 - p);
    gw += r * cos[i]; gc += r;
    hww += v * cos[i] * cos[i]; hwc += v * cos[i]; hcc += v;
  }
  const det = hww * hcc - hwc * hwc;
  const dw = (hcc * gw - hwc * gc) / det, dc = (hww * gc - hwc * gw) / det;
  w -= dw; c0 -= dc;
  if (Math.abs(dw) + Math.abs(dc) < 1e-10) break;
}
const slope = w, midpoint = -c0 / w;
let logLoss = 0, right = 0;
for (let i = 0; i < cos.length; i++) {
  const p = 1 / (1 + Math.exp(-slope * (cos[i] - midpoint)));
  logLoss -= labels[i] ? Math.log(p) : Math.log(1 - p);
  if ((p >= 0.5) === (labels[i] === 1)) right++;
}
const sha256 = createHash('sha256').update(JSON.stringify(pairs)).digest('hex');
const file = {
  format: COSINE_CALIBRATION_FORMAT,
  encoder: services.modelId,
  slope: Number(slope.toFixed(4)),
  midpoint: Number(midpoint.toFixed(4)),
  fitted_by: 'scripts/fit-match-calibration.mjs',
  int8_kernels: int8Kernels(),
  data: { positives: labels.filter((l) => l === 1).length, negatives: labels.filter((l) => l === 0).length, sha256 },
  metrics: { log_loss: Number((logLoss / cos.length).toFixed(4)), accuracy_at_half: Number((right / cos.length).toFixed(4)) },
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
console.log(`${file.encoder}: slope ${file.slope}, midpoint ${file.midpoint} (${file.data.positives} positives, ${file.data.negatives} negatives; log loss ${file.metrics.log_loss}) → ${OUT}`);
await services.close();
process.exit(0);
