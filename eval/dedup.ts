/**
 * Dedup quality on labelled menus ({"menu", "items", "clusters": [[0-based indices], ...]}; items in no cluster are
 * singletons). Pairwise scoring: every pair of items of one menu is a positive when the labels put them in one
 * cluster; precision/recall/F1 count the pairs the service puts in one cluster. Also: whether /dedup and /match agree
 * on the labelled match pairs (each pair sent to /dedup as a two-item menu), and, on development data, the speed of
 * the clustering alone on 2000 real menu names.
 */
import type { Services } from '../src/core/services.js';
import { parseMenuText, type MenuText } from '../src/core/menu-text.js';
import { DEFAULT_COSINE_THRESHOLD, judgePairs } from '../src/core/match.js';
import { dot, FULL_DIMENSION } from '../src/core/inference/encoder.js';
import { dedupRoute } from '../src/routes/dedup.js';
import { ctxOf, matchAnswers } from './search_match.js';
import { bySet, type EvalSets, type LabelledMenu } from './sets.js';
import { dedupPrepared, dedupRefusal, nodeKey, nodeSet, pairRefusal, type DedupOutcome } from '../src/core/dedup.js';
import type { EvalKit } from './extra.js';
import { realMenuItems, sample, sharedAvailable } from './data.js';

export interface PairCounts {
  tp: number;
  fp: number;
  fn: number;
  /** Menu, text pairs wrongly merged / wrongly kept apart (for reading the errors). */
  falseMerges: string[];
  missedPairs: string[];
}

function clusterLabels(n: number, clusters: readonly (readonly number[])[]): Int32Array {
  const label = new Int32Array(n).map((_, i) => -1 - i);
  clusters.forEach((c, k) => c.forEach((i) => (label[i] = k)));
  return label;
}

/** Adds one menu's pairwise confusion to `counts`. */
export function countPairs(menu: LabelledMenu, outcome: DedupOutcome, counts: PairCounts): void {
  const n = menu.items.length;
  const truth = clusterLabels(n, menu.clusters);
  const predicted = clusterLabels(n, outcome.clusters.map((c) => c.members));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const t = truth[i] === truth[j];
      const p = predicted[i] === predicted[j];
      if (t && p) counts.tp++;
      else if (p) {
        counts.fp++;
        counts.falseMerges.push(`${menu.menu}: ${menu.items[i]} ~ ${menu.items[j]}`);
      } else if (t) {
        counts.fn++;
        counts.missedPairs.push(`${menu.menu}: ${menu.items[i]} ~ ${menu.items[j]}`);
      }
    }
  }
}

/**
 * /dedup's pairwise confusion over labelled menus at the threshold (the API's default), with the served menu vectors
 * or, for a fit that compares ways of making them (scripts/fit-menu-vector.mjs), with `vectorsOf`.
 */
export async function scoreDedupMenus(
  services: Services,
  menus: readonly LabelledMenu[],
  { cosineThreshold = DEFAULT_COSINE_THRESHOLD, vectorsOf = (texts: readonly MenuText[]) => services.vectorsOf(texts, FULL_DIMENSION) }: { cosineThreshold?: number; vectorsOf?: (texts: readonly MenuText[]) => Promise<Float32Array[]> } = {},
): Promise<PairCounts> {
  const counts: PairCounts = { tp: 0, fp: 0, fn: 0, falseMerges: [], missedPairs: [] };
  for (const menu of menus) {
    const texts = menu.items.map((item) => parseMenuText(services.knowledge, item));
    const vectors = await vectorsOf(texts);
    const outcome = await dedupPrepared(services.knowledge, texts, vectors, {
      cosineThreshold,
      precision: services.pairPrecision(),
    });
    countPairs(menu, outcome, counts);
  }
  return counts;
}

export function prf(c: Pick<PairCounts, 'tp' | 'fp' | 'fn'>): { precision: number; recall: number; f1: number } {
  const precision = c.tp / (c.tp + c.fp);
  const recall = c.tp / (c.tp + c.fn);
  return { precision, recall, f1: (2 * c.tp) / (2 * c.tp + c.fp + c.fn) };
}

/** The dedup step that keeps two texts apart (dedupRefusal), or `precision_stage` when none does and the shared
 * precision stage itself said no. */
async function refusalOfPair(services: Services, a: string, b: string): Promise<string> {
  const texts = [a, b].map((t) => parseMenuText(services.knowledge, t));
  const [va, vb] = await services.vectorsOf(texts, FULL_DIMENSION);
  return pairRefusal(services.knowledge, texts[0]!, texts[1]!, va!, vb!, DEFAULT_COSINE_THRESHOLD).step ?? 'precision_stage';
}

export async function evalDedup(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  const { services, metric, section } = kit;
  await section(`dedup_pairwise_f1${label}`, async () => {
    if (sets.dedup.length === 0) throw new Error('no labelled dedup menus');
    const menus = sets.dedup;
    const c = await scoreDedupMenus(services, menus);
    const { precision, recall, f1 } = prf(c);
    const items = menus.reduce((s, m) => s + m.items.length, 0);
    const detail = `${menus.length} labelled menus, ${items} items, threshold 0.85; tp ${c.tp} fp ${c.fp} fn ${c.fn}`;
    metric(`dedup_pairwise_precision${label}`, precision, detail);
    metric(`dedup_pairwise_recall${label}`, recall, detail);
    metric(`dedup_pairwise_f1${label}`, f1);
    for (const [set, batch] of bySet(menus)) {
      const b = prf(await scoreDedupMenus(services, batch));
      metric(`dedup_pairwise_f1${label}_${set.replace('dedup_dev_menus_', '')}`, b.f1, `${batch.length} menus; precision ${b.precision.toFixed(4)} recall ${b.recall.toFixed(4)}`);
    }
    if (sets.side === 'dev' && process.argv.includes('--errors')) {
      for (const e of c.falseMerges) console.log(`#   false merge  ${e}`);
      for (const e of c.missedPairs) console.log(`#   missed pair  ${e}`);
    }
  });

  // The same two texts must get the same answer from /match and from /dedup (one judge of "same item?"). A pair only
  // /match calls the same dish is counted by the dedup step that refused it, with how many of those pairs the labels
  // call the same dish: what each step costs /match's agreement, and whether it is right to.
  await section(`dedup_match_agreement${label}`, async () => {
    const rows = sets.match.flatMap((m) => m.rows);
    if (rows.length === 0) throw new Error('no labelled match pairs');
    const matched = await matchAnswers(kit, rows);
    const ctx = ctxOf(kit);
    let agree = 0, matchOnly = 0, dedupOnly = 0;
    const refused = new Map<string, { pairs: number; labelledSame: number }>();
    for (const [i, r] of rows.entries()) {
      const res = await dedupRoute.handle(dedupRoute.parse({ items: [r.text_a, r.text_b] }), ctx);
      const clustered = res.clusters.length === 1 || res.singletons.length === 0;
      let why = '';
      if (clustered === matched[i]!.match) agree++;
      else if (matched[i]!.match) {
        matchOnly++;
        why = await refusalOfPair(services, r.text_a, r.text_b);
        const tally = refused.get(why) ?? { pairs: 0, labelledSame: 0 };
        tally.pairs++;
        if (r.same) tally.labelledSame++;
        refused.set(why, tally);
      } else dedupOnly++;
      if (clustered !== matched[i]!.match && sets.side === 'dev' && process.argv.includes('--errors')) {
        console.log(`#   disagree (${matched[i]!.match ? `/match only, ${why}` : '/dedup only'}; labelled ${r.same ? 'same' : 'different'}, ${r.kind})  ${r.text_a} ~ ${r.text_b}`);
      }
    }
    const bySteps = [...refused].sort((x, y) => y[1].pairs - x[1].pairs).map(([step, t]) => `${step} ${t.pairs} (labelled same ${t.labelledSame})`).join(', ');
    metric(
      `dedup_match_agreement${label}`,
      agree / rows.length,
      `${rows.length} labelled match pairs, each also sent to /dedup as a two-item menu; /match alone says same ${matchOnly}${bySteps ? ` [refused by ${bySteps}]` : ''}, /dedup alone clusters ${dedupOnly}`,
    );
  });

  // The other side of the agreement line: within one menu, how often the dedup steps that /match lacks are right to
  // keep apart a pair /match's precision stage calls one dish (pairs over the threshold with two different names).
  await section(`dedup_refusal_precision_in_menus${label}`, async () => {
    if (sets.dedup.length === 0) throw new Error('no labelled dedup menus');
    let refused = 0, twoItems = 0;
    for (const menu of sets.dedup) {
      const texts = menu.items.map((item) => parseMenuText(services.knowledge, item));
      const vectors = await services.vectorsOf(texts, FULL_DIMENSION);
      const cluster = new Int32Array(texts.length).map((_, i) => -1 - i);
      menu.clusters.forEach((members, c) => members.forEach((i) => (cluster[i] = c)));
      // Each item its own node (items that clean alike are skipped below: they are always one cluster).
      const matrix = new Float32Array(texts.length * FULL_DIMENSION);
      vectors.forEach((v, i) => matrix.set(v, i * FULL_DIMENSION));
      const nodes = nodeSet(texts, matrix, FULL_DIMENSION);
      const pairs: [number, number][] = [];
      const cosines: number[] = [];
      for (let a = 0; a < texts.length; a++) {
        for (let b = a + 1; b < texts.length; b++) {
          const cosine = dot(vectors[a]!, vectors[b]!);
          if (cosine < DEFAULT_COSINE_THRESHOLD || nodeKey(texts[a]!) === nodeKey(texts[b]!)) continue;
          if (dedupRefusal(services.knowledge, nodes, a, b, cosine, DEFAULT_COSINE_THRESHOLD) === null) continue;
          pairs.push([a, b]);
          cosines.push(cosine);
        }
      }
      if (pairs.length === 0) continue;
      const verdicts = await judgePairs(services.knowledge, pairs.map(([a, b]) => [texts[a]!, texts[b]!] as const), cosines, DEFAULT_COSINE_THRESHOLD, services.pairPrecision(), { verdictsOnly: true });
      pairs.forEach(([a, b], e) => {
        if (!verdicts[e]!.match) return;
        refused++;
        if (cluster[a] !== cluster[b]) twoItems++;
      });
    }
    metric(`dedup_refusal_precision_in_menus${label}`, twoItems / refused, `${refused} pairs of one labelled menu over the threshold that /match calls the same dish and a dedup step keeps apart; ${twoItems} are labelled two items`);
  });

  if (sets.side !== 'dev') return;
  await section('dedup_2000_cluster_ms', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const names = sample([...new Set(realMenuItems().map((x) => x.name))], 2000, 23);
    const { texts, vectors } = await services.embedTexts(names, 384);
    const options = { cosineThreshold: 0.85, precision: services.pairPrecision() };
    await dedupPrepared(services.knowledge, texts, vectors, options); // warm: each text's reading is made once per process
    const times: number[] = [];
    let outcome: DedupOutcome | null = null;
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      outcome = await dedupPrepared(services.knowledge, texts, vectors, options);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    metric('dedup_2000_cluster_ms', times[2]!, `p50 of 5 runs after embedding; 2000 real menu names, ${outcome!.clusters.length} clusters, ${outcome!.duplicateItems} duplicates, ${outcome!.stats.candidates} candidate edges`);
  });
}
