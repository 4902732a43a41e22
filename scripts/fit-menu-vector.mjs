#!/usr/bin/env node
// Fits the weights of a text's dish anchor in its menu vector (src/core/menu-vector.ts) for the served encoder: for a
// text that names the dish itself, for one the dish is read from loosely, and for a combo whose first part names it.
// Writes models/calibration/menu-vector.json. Never reads the held-out set.
//
// What it maximises is what the vectors serve, with no rule at query time: the mean of the same-dish pair AUC
// (eval/dev/match_dev_pairs_*.tsv and same_dish_dev_pairs.tsv) and the raw-cosine nDCG@10 of the development search
// sets (each menu ranked by the cosine of the query's and the items' vectors), which are what a customer who stores
// /embed vectors gets, and the pair F1 of /dedup's clusters on the development dedup menus (eval/dedup.ts), whose
// candidate pairs are the ones over its cosine bar: an anchor that pulls a loosely read variant towards its dish lifts
// pairs of different dishes over that bar too, which the first two cannot see. Over a grid of
// anchor weights up to 1: the text's own embedding never weighs less than its dish's, so the vector stays the text's
// (two items of one dish on a menu stay apart by what their own names add). A loose reading or a combo is never pulled
// harder than a text that names the dish itself. Ties go to the smaller weights. Refit when the encoder or the
// knowledge base changes.
//   npx tspc -p tsconfig.json && node scripts/fit-menu-vector.mjs [--out PATH]
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../dist/src/config.js';
import { Services } from '../dist/src/core/services.js';
import { parseMenuText } from '../dist/src/core/menu-text.js';
import { anchorsNothing, menuVectors, MENU_VECTOR_FORMAT, MENU_VECTOR_PATH } from '../dist/src/core/menu-vector.js';
import { dot } from '../dist/src/core/inference/encoder.js';
import { loadDevSets, devSameDishPairs } from '../dist/eval/sets.js';
import { auc } from '../dist/eval/data.js';
import { prf, scoreDedupMenus } from '../dist/eval/dedup.js';
import { int8Kernels } from './lib/int8-kernels.mjs';

const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : MENU_VECTOR_PATH;
const WEIGHTS = [0, 0.25, 0.5, 0.75, 1];
const LOOSER = [0, 0.25, 0.5];

const services = new Services(loadConfig({ ...process.env, PORT: '0', MENU_CACHE_BYTES: String(512 * 1024 * 1024) }));
await services.ready;
const k = services.knowledge;
const enc = services.requireEncoder();
const sets = loadDevSets();
const pairs = [...sets.match.flatMap((m) => m.rows), ...devSameDishPairs()];
const pairA = pairs.map((r) => parseMenuText(k, r.text_a)), pairB = pairs.map((r) => parseMenuText(k, r.text_b));
const searches = sets.search.flatMap((set) => set.queries
  .filter((q) => set.menus[q.menu] && Object.keys(q.relevant).length > 0)
  .map((q) => ({ set: set.name, q, query: parseMenuText(k, q.query), corpus: set.menus[q.menu], items: set.menus[q.menu].map((t) => parseMenuText(k, t)) })));
const round4 = (x) => Number(x.toFixed(4));
const dcg = (g) => g.reduce((acc, x, i) => acc + (2 ** x - 1) / Math.log2(i + 2), 0);

async function measure(spec) {
  const a = await menuVectors(enc, spec, services.dishAnchors, pairA, 384), b = await menuVectors(enc, spec, services.dishAnchors, pairB, 384);
  const pairAuc = auc(pairs.map((_, i) => dot(a[i], b[i])), pairs.map((r) => r.same));
  const bySet = new Map();
  for (const s of searches) {
    const [qv, ...iv] = await menuVectors(enc, spec, services.dishAnchors, [s.query, ...s.items], 384);
    const ranked = s.corpus.map((text, i) => ({ text, score: dot(qv, iv[i]) })).sort((x, y) => y.score - x.score);
    const ndcg = dcg(ranked.slice(0, 10).map((r) => s.q.relevant[r.text] ?? 0)) / dcg(Object.values(s.q.relevant).sort((x, y) => y - x).slice(0, 10));
    const acc = bySet.get(s.set) ?? { sum: 0, n: 0 };
    acc.sum += ndcg; acc.n++;
    bySet.set(s.set, acc);
  }
  const counts = await scoreDedupMenus(services, sets.dedup, { vectorsOf: (texts) => menuVectors(enc, spec, services.dishAnchors, texts, 384) });
  const dedup = prf(counts);
  const total = [...bySet.values()].reduce((x, v) => ({ sum: x.sum + v.sum, n: x.n + v.n }), { sum: 0, n: 0 });
  const ndcg = total.sum / total.n;
  return { pairAuc, ndcg, dedup, falseMerges: counts.fp, score: (pairAuc + ndcg + dedup.f1) / 3, bySet: Object.fromEntries([...bySet].map(([name, v]) => [name, Number((v.sum / v.n).toFixed(4))])) };
}

const results = [];
const grid = WEIGHTS.flatMap((anchorWeight) => LOOSER.flatMap((looseAnchorWeight) => WEIGHTS.map((comboAnchorWeight) => ({ anchorWeight, looseAnchorWeight, comboAnchorWeight }))))
  .filter((w) => w.looseAnchorWeight <= w.anchorWeight && w.comboAnchorWeight <= w.anchorWeight);
for (const weights of grid) {
  const m = await measure(weights);
  results.push({ weights, ...m });
  console.log(`weights ${weights.anchorWeight} / loose ${weights.looseAnchorWeight} / combo ${weights.comboAnchorWeight}: pair AUC ${m.pairAuc.toFixed(4)} raw nDCG ${m.ndcg.toFixed(4)} dedup P ${m.dedup.precision.toFixed(4)} F1 ${m.dedup.f1.toFixed(4)} (fp ${m.falseMerges})`);
}
// The grid runs from the smaller weights up, so a tie keeps the smaller.
const best = results.reduce((x, r) => (r.score > x.score + 1e-9 ? r : x));
const none = results.find((r) => anchorsNothing(r.weights)); // the grid's first point
const summary = (r) => ({ pair_auc: round4(r.pairAuc), raw_ndcg_at_10: round4(r.ndcg), dedup_pair_f1: round4(r.dedup.f1), dedup_pair_precision: round4(r.dedup.precision), by_search_set: r.bySet });
const sha256 = createHash('sha256').update(JSON.stringify([pairs.map((r) => [r.text_a, r.text_b, r.same]), searches.map((s) => [s.q.query, s.q.menu, s.q.relevant]), sets.dedup.map((m) => [m.menu, m.items, m.clusters])])).digest('hex');
const file = {
  format: MENU_VECTOR_FORMAT,
  encoder: services.modelId,
  anchor_weight: best.weights.anchorWeight,
  loose_anchor_weight: best.weights.looseAnchorWeight,
  combo_anchor_weight: best.weights.comboAnchorWeight,
  fitted_by: 'scripts/fit-menu-vector.mjs',
  int8_kernels: int8Kernels(),
  data: { pair_sets: [...sets.match.map((m) => m.name), 'same_dish_dev_pairs'], pairs: pairs.length, search_sets: sets.search.map((s) => s.name), queries: searches.length, dedup_menus: sets.dedup.length, sha256 },
  metrics: {
    development: summary(best),
    without_anchor: summary(none),
  },
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
console.log(`weights ${JSON.stringify(best.weights)} → ${OUT}`);
await services.close();
process.exit(0);
