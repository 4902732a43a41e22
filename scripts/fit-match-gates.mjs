#!/usr/bin/env node
// Fits the two cut-offs of the /match decision (src/core/match.ts, MatchGates) on the development match pairs
// (eval/dev/match_dev_pairs_*.tsv), for the served bi-encoder and cross-encoder, and writes
// models/calibration/match-gates.json. Never reads the held-out set.
//
//   match = no conflict AND ((cosine ≥ threshold AND p ≥ veto_below) OR p ≥ confirm_at)
//
// Every pair is read and scored once as /match serves it (default threshold); the grid is then swept over the scores.
// The most pairs right wins; among the cut-offs tied on it, the middle one of each (the lower of two middles), so a
// flat optimum does not fall on its edge. Refit when the encoder, the cross-encoder or the pairs change; the veto stays
// above and the confirmation below the knowledge base's own probabilities, as loading checks.
//   npx tspc -p tsconfig.json && node scripts/fit-match-gates.mjs [--out PATH]
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../dist/src/config.js';
import { Services } from '../dist/src/core/services.js';
import { parseMenuText } from '../dist/src/core/menu-text.js';
import { judgePairs, passesGates, MATCH_GATES_FORMAT, MATCH_GATES_PATH, DIFFERENT_DISH_PROBABILITY, SAME_DISH_PROBABILITY } from '../dist/src/core/match.js';
import { parseCosineThreshold } from '../dist/src/routes/match.js';
import { dot } from '../dist/src/core/inference/encoder.js';
import { loadDevSets } from '../dist/eval/sets.js';

const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : MATCH_GATES_PATH;
const grid = (from, to) => Array.from({ length: Math.round((to - from) / 0.05) + 1 }, (_, i) => Math.round((from + 0.05 * i) * 100) / 100);
const VETOES = grid(0.1, 0.5).filter((v) => v > DIFFERENT_DISH_PROBABILITY);
const CONFIRMS = grid(0.2, 0.9).filter((c) => c <= SAME_DISH_PROBABILITY);

const services = new Services(loadConfig({ ...process.env, PORT: '0' }));
await services.ready;
const sets = loadDevSets();
const rows = sets.match.flatMap((m) => m.rows);
const threshold = parseCosineThreshold(undefined);
const texts = rows.flatMap((r) => [r.text_a, r.text_b]).map((t) => parseMenuText(services.knowledge, t));
const vectors = await services.vectorsOf(texts, 384);
const pairs = rows.map((_, i) => [texts[2 * i], texts[2 * i + 1]]);
const cosines = rows.map((_, i) => dot(vectors[2 * i], vectors[2 * i + 1]));
const verdicts = await judgePairs(services.knowledge, pairs, cosines, threshold, services.pairPrecision());

function right(veto, confirm) {
  let n = 0;
  verdicts.forEach((v, i) => {
    const p = v.reranker_score;
    const match = p !== null && !v.dietary_conflict && !v.protein_conflict && passesGates(v.cosine, p, threshold, { vetoBelow: veto, confirmAt: confirm });
    if (match === rows[i].same) n++;
  });
  return n;
}
const scored = VETOES.flatMap((veto) => CONFIRMS.filter((c) => c >= veto).map((confirm) => ({ veto, confirm, right: right(veto, confirm) })));
const best = Math.max(...scored.map((s) => s.right));
const lowerMiddle = (xs) => xs[Math.floor((xs.length - 1) / 2)];
const tied = scored.filter((s) => s.right === best);
const confirm = lowerMiddle([...new Set(tied.map((s) => s.confirm))].sort((a, b) => a - b));
const veto = lowerMiddle(tied.filter((s) => s.confirm === confirm).map((s) => s.veto).sort((a, b) => a - b));

const sha256 = createHash('sha256').update(JSON.stringify(rows.map((r) => [r.text_a, r.text_b, r.same]))).digest('hex');
const served = services.servedModels();
const file = {
  format: MATCH_GATES_FORMAT,
  encoder: services.modelId,
  reranker: served.find((m) => m.role === 'reranker' && m.loaded)?.id ?? null,
  veto_below: veto,
  confirm_at: confirm,
  fitted_by: 'scripts/fit-match-gates.mjs',
  data: { sets: sets.match.map((m) => m.name), pairs: rows.length, sha256, cosine_threshold: threshold },
  metrics: {
    development_accuracy: Number((best / rows.length).toFixed(4)),
    tied_at_best: tied.map((s) => [s.veto, s.confirm]),
  },
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
console.log(`veto_below ${veto}, confirm_at ${confirm}: ${best}/${rows.length} development pairs right (${tied.length} cut-off pairs tie) → ${OUT}`);
await services.close();
process.exit(0);
