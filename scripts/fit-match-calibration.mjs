#!/usr/bin/env node
// Fits the logistic cosine → same-dish probability used by src/core/match.ts (COSINE_CALIBRATION) on the knowledge
// base only: dish names vs their Latin aliases (same dish) and knowledge/hard_negatives.tsv (different dishes).
// Never on eval fixtures. Run after `npx tspc -p tsconfig.json`; prints the slope and midpoint to paste.
import { loadConfig } from '../dist/src/config.js';
import { Services } from '../dist/src/core/services.js';
import { loadDishBook } from '../dist/src/core/knowledge/dishes.js';
import { readTsv } from '../dist/src/core/knowledge/tsv.js';
import { KNOWLEDGE_DIR } from '../dist/src/core/paths.js';
import { join } from 'node:path';

const services = new Services(loadConfig({ ...process.env, PORT: '0' }));
await services.ready;
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pos = [];
for (const d of loadDishBook().dishes) for (const a of d.aliases) if (/^[\x20-\x7e]+$/.test(a) && rnd() < 0.25) pos.push([d.name, a]);
const neg = readTsv(join(KNOWLEDGE_DIR, 'hard_negatives.tsv'), ['text_a', 'text_b', 'kind', 'note']).map((r) => [r.cells[0], r.cells[1]]);
const pairs = [...pos.slice(0, 2000), ...neg.slice(0, 2000)];
const labels = [...pos.slice(0, 2000).map(() => 1), ...neg.slice(0, 2000).map(() => 0)];
const a = await services.embedTexts(pairs.map((p) => p[0]), 384);
const b = await services.embedTexts(pairs.map((p) => p[1]), 384);
const cos = pairs.map((_, i) => a.vectors[i].reduce((s, v, k) => s + v * b.vectors[i][k], 0));
let w = 10, c = 0.8;
for (let it = 0; it < 3000; it++) {
  let gw = 0, gc = 0;
  for (let i = 0; i < cos.length; i++) {
    const p = 1 / (1 + Math.exp(-w * (cos[i] - c)));
    gw += (p - labels[i]) * (cos[i] - c);
    gc += (p - labels[i]) * -w;
  }
  w -= (0.5 * gw) / cos.length * 10;
  c -= (0.05 * gc) / cos.length;
}
console.log(`positives ${Math.min(pos.length, 2000)}, negatives ${Math.min(neg.length, 2000)}: slope ${w.toFixed(2)}, midpoint ${c.toFixed(3)}`);
await services.close();
process.exit(0);
