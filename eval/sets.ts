/**
 * The labelled evaluation sets, in one shape whether they are development data (eval/dev/, tuned on freely) or the
 * held-out set (its own folder, read by one module alone, for the final scoring). Formats: eval/LABELLING.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/core/paths.js';

export interface SearchQuery {
  readonly menu: string;
  readonly query: string;
  readonly kind: string;
  /** Item text → grade; an empty object is a no-match query. */
  readonly relevant: Readonly<Record<string, number>>;
}

export interface SearchSet {
  readonly name: string;
  readonly menus: Readonly<Record<string, readonly string[]>>;
  readonly queries: readonly SearchQuery[];
}

export interface MatchRow {
  readonly text_a: string;
  readonly text_b: string;
  readonly same: boolean;
  readonly dietary_conflict: boolean;
  readonly protein_conflict: boolean;
  readonly kind: string;
}

export interface MatchSet {
  readonly name: string;
  readonly rows: readonly MatchRow[];
}

export interface LabelledMenu {
  /** Which file of a side the menu came from (dev batches print their own line). */
  readonly set?: string;
  readonly menu: string;
  readonly items: readonly string[];
  readonly clusters: readonly (readonly number[])[];
}

export interface NoiseRow {
  readonly set?: string;
  readonly original: string;
  readonly expected: string;
  readonly has_noise: boolean;
}

export interface LabelledCart {
  readonly menu: readonly string[];
  /** The restaurant's own diet mark per menu item, where the set has it (held-out carts do). */
  readonly menu_diet?: Readonly<Record<string, 'veg' | 'non_veg' | 'egg'>>;
  readonly cart: readonly string[];
  readonly cart_dietary: string;
  readonly missing: readonly string[];
}

export interface CuisineRow {
  readonly text: string;
  readonly cuisine: string;
}

/** A real menu item with its course (`text	course`: main, side, bread, dessert or beverage). */
export interface CourseRow {
  readonly text: string;
  readonly course: string;
}

export interface NonFoodRow {
  readonly text: string;
  readonly label: string;
}

/** Every labelled set of one side (development or held-out). A side may lack a kind of set. */
export interface EvalSets {
  readonly side: 'dev' | 'heldout';
  readonly search: readonly SearchSet[];
  readonly match: readonly MatchSet[];
  readonly dedup: readonly LabelledMenu[];
  readonly noise: readonly NoiseRow[];
  readonly cuisine: readonly CuisineRow[];
  readonly course: readonly CourseRow[];
  readonly suggest: readonly LabelledCart[];
  readonly nonfood: readonly NonFoodRow[];
}

/** A TSV with a header row (lines starting with # skipped) as objects. */
export function readTsv(path: string): Record<string, string>[] {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const [header, ...rows] = lines;
  if (!header) return [];
  const keys = header.split('\t');
  return rows.map((l) => {
    const cells = l.split('\t');
    return Object.fromEntries(keys.map((k, i) => [k, cells[i] ?? '']));
  });
}

/**
 * The development carts' graded add-on candidates (eval/dev/suggest_dev_upsell_grades.tsv: cart_id, item, grade), by
 * cart (its line in suggest_dev_carts.jsonl, from 0) and item text; empty when the file is absent. A row without a
 * cart_id, an item or a grade of 0, 1 or 2 fails with its line.
 */
export function readUpsellGrades(path: string = join(DEV_DIR, 'suggest_dev_upsell_grades.tsv')): Map<number, Map<string, number>> {
  const out = new Map<number, Map<string, number>>();
  if (!existsSync(path)) return out;
  readTsv(path).forEach((r, n) => {
    const id = Number(r.cart_id);
    const grade = Number(r.grade);
    if (!Number.isInteger(id) || id < 0 || !r.item || ![0, 1, 2].includes(grade)) throw new Error(`${path}:${n + 2}: needs a cart_id, an item and a grade 0, 1 or 2`);
    if (!out.has(id)) out.set(id, new Map());
    out.get(id)!.set(r.item, grade);
  });
  return out;
}

/** A JSON-lines file (blank and comment lines skipped). */
export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#') && !l.trimStart().startsWith('//'))
    .map((l) => JSON.parse(l) as T);
}

export function readMatchRows(path: string): MatchRow[] {
  return readTsv(path).map((r) => ({
    text_a: r.text_a ?? '',
    text_b: r.text_b ?? '',
    same: r.same === '1',
    dietary_conflict: r.dietary_conflict === '1',
    protein_conflict: r.protein_conflict === '1',
    kind: r.kind ?? '',
  }));
}

export function readSearchSet(name: string, menusPath: string, queriesPath: string): SearchSet {
  return {
    name,
    menus: JSON.parse(readFileSync(menusPath, 'utf8')) as Record<string, string[]>,
    queries: readJsonl<SearchQuery>(queriesPath),
  };
}

export function readNoiseRows(path: string): NoiseRow[] {
  return readTsv(path).map((r) => ({ original: r.original ?? '', expected: r.expected ?? '', has_noise: r.has_noise === '1' }));
}

export function readCuisineRows(path: string): CuisineRow[] {
  return readTsv(path).filter((r) => r.text && r.cuisine).map((r) => ({ text: r.text!, cuisine: r.cuisine! }));
}

export const DEV_DIR = join(REPO_ROOT, 'eval', 'dev');

const optional = <T>(path: string, read: (p: string) => T[]): T[] => (existsSync(path) ? read(path) : []);

/** Every batch `<stem>.<ext>`, `<stem>_1.<ext>`, … of eval/dev, pooled, each row tagged with its batch name. */
function batches<T>(files: readonly string[], stem: string, ext: string, read: (p: string) => T[]): (T & { set: string })[] {
  const pattern = new RegExp(`^${stem}(?:_(\\d+))?\\.${ext}$`);
  return files
    .map((f) => ({ f, m: pattern.exec(f) }))
    .filter((x) => x.m !== null)
    .sort((a, b) => Number(a.m![1] ?? 0) - Number(b.m![1] ?? 0))
    .flatMap(({ f, m }) => read(join(DEV_DIR, f)).map((row) => ({ ...row, set: `${stem}_${m![1] ?? 0}` })));
}

/** The development sets of eval/dev/ (eval/dev/README.md says where each came from). */
export function loadDevSets(): EvalSets {
  const files = readdirSync(DEV_DIR);
  const search = files
    .filter((f) => /^search_dev\d+_queries\.jsonl$/.test(f))
    .map((f) => f.replace('_queries.jsonl', ''))
    .sort((a, b) => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')))
    .map((name) => readSearchSet(name.replace('search_', ''), join(DEV_DIR, `${name}_menus.json`), join(DEV_DIR, `${name}_queries.jsonl`)));
  const match = files
    .filter((f) => /^match_dev_pairs_\d+\.tsv$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace('match_dev_', '').replace('.tsv', ''), rows: readMatchRows(join(DEV_DIR, f)) }));
  return {
    side: 'dev',
    search,
    match,
    dedup: batches(files, 'dedup_dev_menus', 'jsonl', (p) => readJsonl<LabelledMenu>(p)),
    noise: batches(files, 'noise_dev_labelled', 'tsv', readNoiseRows),
    cuisine: optional(join(DEV_DIR, 'cuisine_dev_labels.tsv'), readCuisineRows),
    course: optional(join(DEV_DIR, 'course_dev_labels.tsv'), (p) => readTsv(p).filter((r) => r.text && r.course).map((r) => ({ text: r.text!, course: r.course! }))),
    suggest: optional(join(DEV_DIR, 'suggest_dev_carts.jsonl'), (p) => readJsonl<LabelledCart>(p)),
    nonfood: optional(join(DEV_DIR, 'nonfood_dev.tsv'), (p) => readTsv(p).filter((r) => r.text && r.label).map((r) => ({ text: r.text!, label: r.label! }))),
  };
}

/** Same-dish pairs for the raw-vector AUC on the development side (labelled pairs without conflict flags). */
export function devSameDishPairs(): { text_a: string; text_b: string; same: boolean }[] {
  return readTsv(join(DEV_DIR, 'same_dish_dev_pairs.tsv')).map((r) => ({ text_a: r.text_a ?? '', text_b: r.text_b ?? '', same: r.same === '1' }));
}

/** Rows of a side grouped by the batch they came from, when the side has more than one batch. */
export function bySet<T extends { readonly set?: string }>(rows: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const r of rows) if (r.set !== undefined) groups.set(r.set, [...(groups.get(r.set) ?? []), r]);
  return groups.size > 1 ? groups : new Map();
}
