/**
 * /report on real menus (../shared/data, read at run time): latency of the whole pipeline on 500 items, the spread of
 * quality scores, and whether the score reacts the way its formula promises when a menu is made worse (sized
 * repeats of its own dishes and non-food exemplars from knowledge/nonfood added). Non-food precision/recall is
 * measured by the non-food eval, cuisine accuracy by the classifier's.
 */
import { join } from 'node:path';
import { KNOWLEDGE_DIR } from '../src/core/paths.js';
import { readList } from '../src/core/knowledge/tsv.js';
import { buildMenuReport } from '../src/core/report.js';
import type { EvalKit } from './extra.js';
import { realMenuItems, sample, sharedAvailable } from './data.js';

const MIN_MENU_ITEMS = 40;
const MAX_MENU_ITEMS = 300;
const MENUS = 12;

/** Real restaurants' item lists (unique names, at most MAX_MENU_ITEMS each), largest first, deterministic. */
function realMenus(): { restaurant: string; items: string[] }[] {
  const byRestaurant = new Map<string, Set<string>>();
  for (const x of realMenuItems()) {
    if (!x.restaurant) continue;
    const set = byRestaurant.get(x.restaurant) ?? new Set<string>();
    set.add(x.name);
    byRestaurant.set(x.restaurant, set);
  }
  return [...byRestaurant]
    .filter(([, s]) => s.size >= MIN_MENU_ITEMS)
    .sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))
    .slice(0, MENUS)
    .map(([restaurant, s]) => ({ restaurant, items: [...s].slice(0, MAX_MENU_ITEMS) }));
}

export async function evalReport(kit: EvalKit): Promise<void> {
  const { services, metric, section } = kit;

  await section('report_500_ms', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const items = sample([...new Set(realMenuItems().map((x) => x.name))], 500, 41);
    const t0 = performance.now();
    await buildMenuReport(services, items, 'eval');
    const cold = performance.now() - t0;
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t1 = performance.now();
      await buildMenuReport(services, items, 'eval');
      times.push(performance.now() - t1);
    }
    times.sort((a, b) => a - b);
    metric('report_500_ms', times[2]!, `p50 of 5 runs with cached embeddings; first run with embedding ${cold.toFixed(0)} ms; 500 real menu names`);
  });

  await section('report_quality_reacts', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const nonFood = ['grocery.txt', 'pharmacy.txt', 'merchandise.txt'].flatMap((f) => readList(join(KNOWLEDGE_DIR, 'nonfood', f)));
    const menus = realMenus();
    let dropped = 0;
    const scores: number[] = [];
    const worse: number[] = [];
    for (const [k, menu] of menus.entries()) {
      const base = await buildMenuReport(services, menu.items, menu.restaurant);
      // Worse: a sized repeat of every fifth dish and non-food products worth 5 % of the menu.
      const repeats = menu.items.filter((_, i) => i % 5 === 0).map((n, i) => `${n} ${['(Half)', '[Full]', '₹249'][i % 3]}`);
      const extra = sample(nonFood, Math.max(1, Math.round(menu.items.length * 0.05)), 100 + k);
      const bad = await buildMenuReport(services, [...menu.items, ...repeats, ...extra], menu.restaurant);
      scores.push(base.quality_score);
      worse.push(bad.quality_score);
      if (bad.quality_score < base.quality_score) dropped++;
    }
    const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
    metric('report_quality_reacts', dropped / menus.length, `share of ${menus.length} real menus whose score drops with sized repeats and 5 % non-food added`);
    metric('report_quality_mean', mean(scores), `real menus as listed: min ${Math.min(...scores)}, max ${Math.max(...scores)}; made worse: mean ${mean(worse).toFixed(1)}`);
  });
}
