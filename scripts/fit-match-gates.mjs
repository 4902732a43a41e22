#!/usr/bin/env node
// Fits the precision stage of the /match decision (src/core/match.ts, MatchGates) on the development match pairs
// (eval/dev/match_dev_pairs_*.tsv), for the served bi-encoder and cross-encoder, and writes
// models/calibration/match-gates.json. Never reads the held-out set.
//
// First it measures the knowledge base: of the pairs it reads as one dish (knowledgeReadings: the same name words, or
// one knowledge-base dish that no word, brand or course sets apart), the share labelled the same dish is
// `knowledge_same`; of the pairs it tells apart, the share labelled the same is `knowledge_different`. Each is smoothed
// by one right and one wrong pair ((same + 1) / (pairs + 2)). That is the precision score such a pair gets. Then the
// two cut-offs on the score:
//
//   match = no conflict AND ((cosine ≥ threshold AND p ≥ veto_below) OR p ≥ confirm_at)
//
// And before both, the cosine gate: below it a pair the knowledge base does not read as one dish is "different"
// unscored (the contract's gate on reranker_score, whose value it leaves to us). For each gate of a grid (0.2-0.6)
// the knowledge base is measured and every pair read and scored as /match serves it (default threshold); the cut-off
// grid is then swept over the scores. The most pairs right wins; among the gates tied on it, then among the cut-offs,
// the middle one of each (the lower of two middles), so a flat optimum does not fall on its edge. Refit when the encoder, the cross-encoder, the knowledge base or the pairs
// change; the veto stays above and the confirmation below the knowledge base's own probabilities, as loading checks.
//   npx tspc -p tsconfig.json && node scripts/fit-match-gates.mjs [--out PATH]
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../dist/src/config.js';
import { Services } from '../dist/src/core/services.js';
import { parseMenuText } from '../dist/src/core/menu-text.js';
import { judgePairs, knowledgeReadings, passesGates, MATCH_GATES_FORMAT, MATCH_GATES_PATH } from '../dist/src/core/match.js';
import { parseCosineThreshold } from '../dist/src/routes/match.js';
import { dot } from '../dist/src/core/inference/encoder.js';
import { loadDevSets } from '../dist/eval/sets.js';
import { int8Kernels } from './lib/int8-kernels.mjs';

const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : MATCH_GATES_PATH;
const grid = (from, to) => Array.from({ length: Math.round((to - from) / 0.05) + 1 }, (_, i) => Math.round((from + 0.05 * i) * 100) / 100);

const services = new Services(loadConfig({ ...process.env, PORT: '0' }));
await services.ready;
const sets = loadDevSets();
const rows = sets.match.flatMap((m) => m.rows);
const threshold = parseCosineThreshold(undefined);
const texts = rows.flatMap((r) => [r.text_a, r.text_b]).map((t) => parseMenuText(services.knowledge, t));
const vectors = await services.vectorsOf(texts, 384);
const pairs = rows.map((_, i) => [texts[2 * i], texts[2 * i + 1]]);
const cosines = rows.map((_, i) => dot(vectors[2 * i], vectors[2 * i + 1]));

// The cosine gate (the contract's gate on reranker_score: below it a pair the knowledge base does not read as one
// dish is "different" unscored) is fitted with the rest: each gate of the grid is a reading of its own, since the
// knowledge base measures only the pairs that reach the precision stage.
const GATES = grid(0.2, 0.6);
const smoothed = ([n, same]) => Math.round(((same + 1) / (n + 2)) * 1e4) / 1e4;
const lowerMiddle = (xs) => xs[Math.floor((xs.length - 1) / 2)];
const fits = [];
for (const cosineGate of GATES) {
  const { identities } = knowledgeReadings(services.knowledge, pairs, cosines, cosineGate);
  const tally = { same: [0, 0], different: [0, 0] };
  identities.forEach((identity, i) => {
    if (identity === null) return;
    tally[identity][0]++;
    if (rows[i].same) tally[identity][1]++;
  });
  const knowledgeSame = smoothed(tally.same);
  const knowledgeDifferent = smoothed(tally.different);
  const VETOES = grid(0.1, 0.5).filter((v) => v > knowledgeDifferent);
  const CONFIRMS = grid(0.2, 0.9).filter((c) => c <= knowledgeSame);
  // Scored once per gate with the measured knowledge probabilities; the cut-offs are not read while scoring.
  const precision = { ...services.pairPrecision(), gates: { cosineGate, vetoBelow: VETOES[0], confirmAt: CONFIRMS[0], knowledgeSame, knowledgeDifferent } };
  const verdicts = await judgePairs(services.knowledge, pairs, cosines, threshold, precision);
  const right = (veto, confirm) => {
    let n = 0;
    verdicts.forEach((v, i) => {
      const p = v.reranker_score;
      const match = p !== null && !v.dietary_conflict && !v.protein_conflict && passesGates(v.cosine, p, threshold, { vetoBelow: veto, confirmAt: confirm });
      if (match === rows[i].same) n++;
    });
    return n;
  };
  const scored = VETOES.flatMap((veto) => CONFIRMS.filter((c) => c >= veto).map((confirm) => ({ veto, confirm, right: right(veto, confirm) })));
  const best = Math.max(...scored.map((x) => x.right));
  const tied = scored.filter((x) => x.right === best);
  const confirm = lowerMiddle([...new Set(tied.map((x) => x.confirm))].sort((a, b) => a - b));
  const veto = lowerMiddle(tied.filter((x) => x.confirm === confirm).map((x) => x.veto).sort((a, b) => a - b));
  fits.push({ cosineGate, tally, knowledgeSame, knowledgeDifferent, veto, confirm, best, tied });
  console.log(`cosine gate ${cosineGate}: ${best}/${rows.length} right (veto_below ${veto}, confirm_at ${confirm}; knowledge_same ${knowledgeSame}, knowledge_different ${knowledgeDifferent})`);
}
// The most pairs right wins; among gates tied on it, the middle one (the lower of two middles), as for the cut-offs.
const bestRight = Math.max(...fits.map((f) => f.best));
const chosen = lowerMiddle(fits.filter((f) => f.best === bestRight));
const { cosineGate, tally, knowledgeSame, knowledgeDifferent, veto, confirm, best, tied } = chosen;

const sha256 = createHash('sha256').update(JSON.stringify(rows.map((r) => [r.text_a, r.text_b, r.same]))).digest('hex');
const served = services.servedModels();
const file = {
  format: MATCH_GATES_FORMAT,
  encoder: services.modelId,
  reranker: served.find((m) => m.role === 'reranker' && m.loaded)?.id ?? null,
  cosine_gate: cosineGate,
  veto_below: veto,
  confirm_at: confirm,
  knowledge_same: knowledgeSame,
  knowledge_different: knowledgeDifferent,
  fitted_by: 'scripts/fit-match-gates.mjs',
  int8_kernels: int8Kernels(),
  data: { sets: sets.match.map((m) => m.name), pairs: rows.length, sha256, cosine_threshold: threshold },
  counts: Object.fromEntries(Object.entries(tally).map(([k, [pairs, same]]) => [k, { pairs, labelled_same: same }])),
  metrics: {
    development_accuracy: Number((best / rows.length).toFixed(4)),
    right_by_cosine_gate: Object.fromEntries(fits.map((f) => [f.cosineGate.toFixed(2), f.best])),
    tied_at_best: tied.map((s) => [s.veto, s.confirm]),
  },
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(file, null, 2)}\n`);
console.log(`cosine_gate ${cosineGate}; knowledge_same ${knowledgeSame} (${tally.same[1]}/${tally.same[0]}), knowledge_different ${knowledgeDifferent} (${tally.different[1]}/${tally.different[0]}); veto_below ${veto}, confirm_at ${confirm}: ${best}/${rows.length} development pairs right (${tied.length} cut-off pairs tie) → ${OUT}`);
await services.close();
process.exit(0);
