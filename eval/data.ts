import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';

/** ../shared/data: real menus and product lists, read at eval time only (never copied into the repository). */
export const SHARED_DATA = process.env.MENU_SHARED_DATA ?? join(REPO_ROOT, '..', 'shared', 'data');

export function sharedAvailable(): boolean {
  return existsSync(SHARED_DATA);
}

/** RFC 4180 CSV (quoted fields, doubled quotes, newlines inside quotes) → rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += c;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** A CSV as objects keyed by its header (BOM stripped). */
export function readCsv(relPath: string): Record<string, string>[] {
  const text = readFileSync(join(SHARED_DATA, relPath), 'utf8').replace(/^\uFEFF/, '');
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  const keys = header.map((h) => h.trim());
  return rows.filter((r) => r.length > 1).map((r) => Object.fromEntries(keys.map((k, i) => [k, r[i] ?? ''])));
}

/** Deterministic PRNG (mulberry32) for reproducible samples. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  const rnd = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/** Unique real menu item names from the Swiggy dumps and Zomato Roorkee menus (with their veg labels). */
export function realMenuItems(): { name: string; diet: 'veg' | 'non_veg' | 'egg' | null; restaurant: string; source: string }[] {
  const out: { name: string; diet: 'veg' | 'non_veg' | 'egg' | null; restaurant: string; source: string }[] = [];
  for (const r of readCsv('swiggy_menu_dumps/swiggy_menu_items.csv')) {
    const v = r.vegClassifier;
    out.push({ name: r.item_name ?? '', diet: v === 'VEG' ? 'veg' : v === 'NONVEG' ? 'non_veg' : v === 'EGG' ? 'egg' : null, restaurant: r.restaurant ?? '', source: 'swiggy_menu_dumps' });
  }
  for (const r of readCsv('zomato_roorkee_menus/zomato_roorkee_menu_items.csv')) {
    const v = (r.veg_nonveg ?? '').toLowerCase();
    out.push({ name: r.item_name ?? '', diet: v === 'veg' ? 'veg' : v.includes('non') ? 'non_veg' : v === 'egg' ? 'egg' : null, restaurant: r.restaurant ?? '', source: 'zomato_roorkee_menus' });
  }
  return out.filter((x) => x.name.trim() !== '');
}

export function auc(scores: readonly number[], labels: readonly boolean[]): number {
  const idx = scores.map((s, i) => [s, labels[i]] as const).sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  let pos = 0;
  // Average ranks for ties.
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j < idx.length && idx[j]![0] === idx[i]![0]) j++;
    const avgRank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (idx[k]![1]) {
      rankSum += avgRank;
      pos++;
    }
    i = j;
  }
  const neg = idx.length - pos;
  if (pos === 0 || neg === 0) return NaN;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}
