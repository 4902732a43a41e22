#!/usr/bin/env node
// Fits /suggest's upsell model (src/core/upsell.ts) on the development carts' graded candidates and writes
// models/rankers/suggest-upsell.json. Never reads the held-out set.
//
//   npx tspc -p tsconfig.json && node scripts/fit-suggest-upsell.mjs [--out PATH]
//
// The data: eval/dev/suggest_dev_carts.jsonl (carts with their menus; cart_id is the line's index from 0) and
// eval/dev/suggest_dev_upsell_grades.tsv (cart_id, item, grade): for each cart about 30 candidates of its menu, graded
// 2 (a natural complement to suggest first), 1 (acceptable) or 0 (does not go with the cart), as an add-on to this
// cart whatever its category (the missing-category priority is /suggest's rule, not the model's). Every candidate is
// read exactly as /suggest reads it (suggestWithDetail: the same profiles, categories, cuisines and filters), so the
// features fitted are the features served; the candidates and what the model reads of them do not depend on the
// model, so any committed model (or none: a neutral one is written first) serves for reading them.
//
// The model: a logistic regression on the grade as a soft target (grade / 2), L2 on the weights (not the bias), by
// Newton's method; the declared orders (UPSELL_ORDERS: the cart's own cuisine never counts less than a looser one) are
// held by tying a violated pair into one weight and fitting again. The L2 strength is chosen by leave-one-cart-out
// cross-validation on the mean nDCG@5 of each cart's candidates ranked by the model; that score, each cart ranked by
// a fit that never saw it, is recorded beside the ranking by closeness alone. Then the list's spread: how much a
// further suggestion of a category the list already has is worth (repeat_decay), chosen from a grid for the best mean
// grade of each dev cart's top 5 as /suggest ranks them with the weights just fitted (the eval's
// suggest_top5_mean_grade); ties go to the largest share, the least reshuffling of the model's order. Refit when the
// encoder, the knowledge base, the features or the grades change.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { int8Kernels } from './lib/int8-kernels.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => join(ROOT, 'dist', p);
const argv = process.argv.slice(2);
const outAt = argv.indexOf('--out');
const log = (m) => console.log(`[fit-suggest-upsell] ${m}`);

const { UPSELL_FEATURE_NAMES, UPSELL_FORMAT, UPSELL_MODEL_PATH, UPSELL_ORDERS, upsellFeatures, upsellModel } = await import(dist('src/core/upsell.js'));
const OUT = outAt >= 0 ? argv[outAt + 1] : UPSELL_MODEL_PATH;
const CARTS = join(ROOT, 'eval', 'dev', 'suggest_dev_carts.jsonl');
const GRADES = join(ROOT, 'eval', 'dev', 'suggest_dev_upsell_grades.tsv');
const LAMBDAS = [0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1];
const DECAYS = Array.from({ length: 11 }, (_, i) => Math.round((0.5 + i * 0.05) * 100) / 100);
const N = UPSELL_FEATURE_NAMES.length;

if (!existsSync(UPSELL_MODEL_PATH)) {
  mkdirSync(dirname(UPSELL_MODEL_PATH), { recursive: true });
  writeFileSync(UPSELL_MODEL_PATH, `${JSON.stringify({ format: UPSELL_FORMAT, encoder: 'none', features: UPSELL_FEATURE_NAMES, weights: UPSELL_FEATURE_NAMES.map(() => 0), bias: 0, repeat_decay: 1 })}\n`);
  log(`no model yet: wrote a neutral one to ${UPSELL_MODEL_PATH} so the service loads`);
}
const { loadConfig } = await import(dist('src/config.js'));
const { Services } = await import(dist('src/core/services.js'));
const { suggestWithDetail } = await import(dist('src/core/suggest.js'));
const { loadDevSets, readUpsellGrades } = await import(dist('eval/sets.js'));

const services = new Services(loadConfig({ ...process.env, PORT: '0' }));
await services.ready;
const encoder = services.requireEncoder().model.id;

const carts = loadDevSets().suggest;
const grades = readUpsellGrades(GRADES);
for (const id of grades.keys()) if (!carts[id]) throw new Error(`${GRADES}: cart_id ${id} is no line of ${CARTS}`);

// Each cart's graded candidates as /suggest reads them.
const groups = [];
let unread = 0;
for (const [id, byItem] of grades) {
  const c = carts[id];
  const detail = await suggestWithDetail(services, c.cart, c.menu, 1);
  const read = new Map(detail.candidates.map((x) => [x.item, x.evidence]));
  const rows = [];
  for (const [item, g] of byItem) {
    const e = read.get(item);
    if (!e) {
      unread++;
      continue;
    }
    rows.push({ x: upsellFeatures(e), g, closeness: e.closeness });
  }
  if (rows.length > 0) groups.push({ id, rows });
}
const pairs = groups.reduce((s, g) => s + g.rows.length, 0);
log(`encoder ${encoder}; ${groups.length} carts, ${pairs} graded candidates (${unread} graded items no longer a candidate: filtered as in the cart, another diet or not food)`);

/** Logistic regression on soft targets, L2 `lambda` on the weights (not the bias), Newton's method with step halving. */
function fitLogistic(rows, lambda, tie) {
  const d = N + 1;
  const xs = rows.map((r) => { const y = new Float64Array(d); r.x.forEach((v, j) => (y[tie(j)] += v)); y[N] = 1; return y; });
  const ts = rows.map((r) => r.g / 2);
  let w = new Float64Array(d);
  const loss = (w) => {
    let l = 0;
    xs.forEach((x, n) => {
      let z = 0;
      for (let j = 0; j < d; j++) z += w[j] * x[j];
      l += Math.log1p(Math.exp(-Math.abs(z))) + Math.max(z, 0) - ts[n] * z;
    });
    for (let j = 0; j < N; j++) l += (lambda / 2) * w[j] * w[j] * rows.length;
    return l;
  };
  for (let iter = 0; iter < 50; iter++) {
    const grad = new Float64Array(d);
    const hess = Array.from({ length: d }, () => new Float64Array(d));
    xs.forEach((x, n) => {
      let z = 0;
      for (let j = 0; j < d; j++) z += w[j] * x[j];
      const p = 1 / (1 + Math.exp(-z));
      const s = p * (1 - p);
      for (let j = 0; j < d; j++) {
        grad[j] += (p - ts[n]) * x[j];
        for (let k = 0; k < d; k++) hess[j][k] += s * x[j] * x[k];
      }
    });
    for (let j = 0; j < N; j++) {
      grad[j] += lambda * rows.length * w[j];
      hess[j][j] += lambda * rows.length;
    }
    for (let j = 0; j < d; j++) hess[j][j] += 1e-9;
    const step = solve(hess, grad);
    let t = 1;
    const before = loss(w);
    let next = w.map((v, j) => v - t * step[j]);
    while (loss(next) > before && t > 1e-6) {
      t /= 2;
      next = w.map((v, j) => v - t * step[j]);
    }
    const moved = Math.max(...next.map((v, j) => Math.abs(v - w[j])));
    w = next;
    if (moved < 1e-10) break;
  }
  return { weights: Float64Array.from({ length: N }, (_, j) => w[tie(j)]), bias: w[N] };
}

/** Gaussian elimination with partial pivoting. */
function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c || m[c][c] === 0) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => (row[i] === 0 ? 0 : row[n] / row[i]));
}

/** The fit with the declared orders held: a violated pair is tied into one weight and the fit made again. */
function fitOrdered(rows, lambda) {
  const root = Array.from({ length: N }, (_, i) => i);
  const find = (i) => (root[i] === i ? i : (root[i] = find(root[i])));
  for (;;) {
    const model = fitLogistic(rows, lambda, find);
    const violated = UPSELL_ORDERS.filter(([s, w]) => find(s) !== find(w) && model.weights[s] < model.weights[w]);
    if (violated.length === 0) return model;
    for (const [s, w] of violated) root[find(s)] = find(w);
  }
}

const score = (model, x) => x.reduce((z, v, j) => z + model.weights[j] * v, model.bias);
function ndcgAt5(rows, scoreOf) {
  const dcg = (gs) => gs.slice(0, 5).reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg(rows.map((r) => r.g).sort((a, b) => b - a));
  if (ideal === 0) return null;
  return dcg(rows.map((r, i) => ({ r, s: scoreOf(r), i })).sort((a, b) => b.s - a.s || a.i - b.i).map((o) => o.r.g)) / ideal;
}
const mean = (xs) => { const v = xs.filter((x) => x !== null); return v.reduce((a, b) => a + b, 0) / v.length; };

const byLambda = LAMBDAS.map((lambda) => {
  const held = groups.map((g) => {
    const model = fitOrdered(groups.filter((o) => o !== g).flatMap((o) => o.rows), lambda);
    return ndcgAt5(g.rows, (r) => score(model, r.x));
  });
  return { lambda, ndcg: mean(held) };
});
for (const r of byLambda) log(`lambda ${r.lambda}: leave-one-cart-out nDCG@5 ${r.ndcg.toFixed(4)}`);
const best = byLambda.reduce((a, b) => (b.ndcg > a.ndcg + 1e-12 ? b : a));
const closenessOnly = mean(groups.map((g) => ndcgAt5(g.rows, (r) => r.closeness)));
const model = fitOrdered(groups.flatMap((g) => g.rows), best.lambda);
const fitted = mean(groups.map((g) => ndcgAt5(g.rows, (r) => score(model, r.x))));
log(`chosen lambda ${best.lambda}: leave-one-cart-out nDCG@5 ${best.ndcg.toFixed(4)} (closeness alone ${closenessOnly.toFixed(4)}; the final fit on every cart ${fitted.toFixed(4)})`);
UPSELL_FEATURE_NAMES.forEach((name, j) => log(`  ${name.padEnd(28)} ${model.weights[j].toFixed(3)}`));
log(`  ${'(bias)'.padEnd(28)} ${model.bias.toFixed(3)}`);

const round = (x) => Math.round(x * 1e4) / 1e4;

// The spread, with the weights as they will be served (rounded).
const servedWeights = Float64Array.from(model.weights, round);
const byDecay = [];
for (const decay of DECAYS) {
  const candidate = upsellModel(encoder, servedWeights, round(model.bias), decay);
  let shown = 0, sum = 0;
  for (const [id, byItem] of grades) {
    const c = carts[id];
    const { result } = await suggestWithDetail(services, c.cart, c.menu, 5, candidate);
    for (const s of result.suggestions.slice(0, 5)) {
      const g = byItem.get(s.item);
      if (g !== undefined) (shown++, (sum += g));
    }
  }
  byDecay.push({ decay, grade: sum / Math.max(shown, 1), shown });
}
for (const r of byDecay) log(`repeat_decay ${r.decay.toFixed(2)}: top-5 mean grade ${r.grade.toFixed(4)} (${r.shown} graded shown)`);
const spread = byDecay.reduce((a, b) => (b.grade > a.grade + 1e-12 || (Math.abs(b.grade - a.grade) <= 1e-12 && b.decay > a.decay) ? b : a));
log(`chosen repeat_decay ${spread.decay}`);
const file = {
  format: UPSELL_FORMAT,
  encoder,
  features: UPSELL_FEATURE_NAMES,
  weights: [...model.weights].map(round),
  bias: round(model.bias),
  l2: best.lambda,
  repeat_decay: spread.decay,
  fitted_by: 'scripts/fit-suggest-upsell.mjs',
  int8_kernels: int8Kernels(),
  data: {
    carts: 'eval/dev/suggest_dev_carts.jsonl',
    grades: 'eval/dev/suggest_dev_upsell_grades.tsv',
    graded_candidates: pairs,
    sha256: createHash('sha256').update(readFileSync(CARTS)).update(readFileSync(GRADES)).digest('hex'),
  },
  metrics: {
    leave_one_cart_out_ndcg_at_5: round(best.ndcg),
    closeness_alone_ndcg_at_5: round(closenessOnly),
    by_l2: Object.fromEntries(byLambda.map((r) => [String(r.lambda), round(r.ndcg)])),
    top5_mean_grade: round(spread.grade),
    top5_mean_grade_by_repeat_decay: Object.fromEntries(byDecay.map((r) => [r.decay.toFixed(2), round(r.grade)])),
  },
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
log(`wrote ${OUT}`);
await services.close?.();
process.exit(0);
