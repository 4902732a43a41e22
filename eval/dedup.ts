/**
 * Dedup quality on labelled menus (test/fixtures/dedup_menus.jsonl, one menu a line:
 * {"menu": name, "items": [...], "clusters": [[i, j, ...], ...]} with 0-based item indices; items in no cluster are
 * singletons). Pairwise scoring: every pair of items of one menu is a positive when the labels put them in one
 * cluster; precision/recall/F1 count the pairs the service puts in one cluster. Also reports the speed of the
 * clustering alone (after embedding) on 2000 real menu names. Nothing here tunes anything.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';
import type { Services } from '../src/core/services.js';
import { dedupPrepared, type DedupOutcome } from '../src/core/dedup.js';
import type { EvalKit } from './extra.js';
import { realMenuItems, sample, sharedAvailable } from './data.js';

export interface LabelledMenu {
  readonly menu: string;
  readonly items: readonly string[];
  readonly clusters: readonly (readonly number[])[];
}

export function readDedupMenus(path: string): LabelledMenu[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#') && !l.trimStart().startsWith('//'))
    .map((l) => JSON.parse(l) as LabelledMenu);
}

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

export async function scoreDedupMenus(services: Services, menus: readonly LabelledMenu[], cosineThreshold = 0.85): Promise<PairCounts> {
  const counts: PairCounts = { tp: 0, fp: 0, fn: 0, falseMerges: [], missedPairs: [] };
  for (const menu of menus) {
    const { cleaned, vectors } = await services.embedTexts(menu.items, 384);
    const outcome = await dedupPrepared(menu.items, cleaned.map((c) => c.text), vectors, {
      cosineThreshold,
      scorer: services.matchScorer(),
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

export async function evalDedup(kit: EvalKit): Promise<void> {
  const { services, metric, section } = kit;
  await section('dedup_pairwise_f1', async () => {
    const path = join(REPO_ROOT, 'test', 'fixtures', 'dedup_menus.jsonl');
    if (!existsSync(path)) throw new Error('test/fixtures/dedup_menus.jsonl missing');
    const menus = readDedupMenus(path);
    const c = await scoreDedupMenus(services, menus);
    const { precision, recall, f1 } = prf(c);
    const items = menus.reduce((s, m) => s + m.items.length, 0);
    const detail = `${menus.length} labelled menus, ${items} items, threshold 0.85; tp ${c.tp} fp ${c.fp} fn ${c.fn}`;
    metric('dedup_pairwise_precision', precision, detail);
    metric('dedup_pairwise_recall', recall, detail);
    metric('dedup_pairwise_f1', f1, 'target ≥ 0.90');
    if (process.env.EVAL_VERBOSE) {
      for (const e of c.falseMerges) console.log(`#   false merge  ${e}`);
      for (const e of c.missedPairs) console.log(`#   missed pair  ${e}`);
    }
  });

  await section('dedup_2000_cluster_ms', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const names = sample([...new Set(realMenuItems().map((x) => x.name))], 2000, 23);
    const { cleaned, vectors } = await services.embedTexts(names, 384);
    const texts = cleaned.map((c) => c.text);
    const options = { cosineThreshold: 0.85, scorer: services.matchScorer() };
    await dedupPrepared(names, texts, vectors, options); // warm: lexicons and profiles load once per process
    const times: number[] = [];
    let outcome: DedupOutcome | null = null;
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      outcome = await dedupPrepared(names, texts, vectors, options);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    metric('dedup_2000_cluster_ms', times[2]!, `p50 of 5 runs after embedding; 2000 real menu names, ${outcome!.clusters.length} clusters, ${outcome!.duplicateItems} duplicates, ${outcome!.stats.candidates} candidate edges`);
  });
}
