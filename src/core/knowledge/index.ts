import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWLEDGE_DIR } from '../paths.js';
import { loadCueLexicons } from './cues.js';
import { CUISINE_LABELS, loadDishBook, nameKey } from './dishes.js';
import type { Cuisine, DishBook } from './dishes.js';
import { buildDishLookup, loadLookupLexicons } from './lookup.js';
import type { DishLookup, DishMatch } from './lookup.js';
import { alignDevanagariAlias, hasDevanagari } from './transliterate.js';
import { readList, readTsv } from './tsv.js';
import { loadSearchEquivalents } from './equivalents.js';
import { loadBrands } from './brands.js';

export { CUISINE_FAMILIES, CUISINE_LABELS, COURSES, cuisineAffinity, DIETS, PROTEINS, TAGS, loadDishBook, nameKey } from './dishes.js';
export type { Course, Cuisine, Diet, Dish, DishBook, Protein, Tag } from './dishes.js';
export { buildDishLookup, guardSignature, loadLookupLexicons, splitCombo, FUZZY_FLOOR } from './lookup.js';
export type { ComboMatch, DishLookup, DishMatch, LookupLexicons, TokenCue } from './lookup.js';

/** The food knowledge the service runs on: the dish book and the lookups over it, loaded together. */
export interface Knowledge {
  readonly dir: string;
  readonly book: DishBook;
  readonly lookup: DishLookup;
  /** Shorthand for lookup.resolveDish. */
  resolveDish(text: string): DishMatch | null;
  /** Wall-clock milliseconds the load took (files and validation; with `prepare`, every lookup table too). */
  readonly loadMs: number;
}

/**
 * Loads and validates a knowledge folder (throws with file:line on the first invalid row). Exact lookups are ready
 * at once; the fuzzy and token tables are built on first use, or now with `prepare: true`.
 */
export function loadKnowledge(dir: string = KNOWLEDGE_DIR, options: { prepare?: boolean } = {}): Knowledge {
  const started = performance.now();
  const book = loadDishBook(dir);
  const lookup = buildDishLookup(book, () => loadLookupLexicons(dir));
  if (options.prepare) lookup.prepare();
  return {
    dir,
    book,
    lookup,
    resolveDish: (text) => lookup.resolveDish(text),
    loadMs: performance.now() - started,
  };
}

let shared: Knowledge | null = null;

/** The checkout's knowledge base, loaded on first use and then shared by every caller in the process. */
export function getKnowledge(): Knowledge {
  shared ??= loadKnowledge();
  return shared;
}

// ---------------------------------------------------------------------------------------------------------------
// Whole-folder validation (npm run check:knowledge, and the test suite)

export const MIN_DISHES_PER_CUISINE = 60;
export const MIN_DISHES_TOTAL = 2500;
/** The non-food exemplar lists knowledge/README.md promises. */
export const NONFOOD_FILES = ['grocery.txt', 'pharmacy.txt', 'merchandise.txt', 'stays_food.txt'] as const;

export interface KnowledgeReport {
  readonly dishes: number;
  readonly aliases: number;
  /** Aliases whose name key repeats another of the same dish (spelling differs only in punctuation or accents). */
  readonly redundantAliases: number;
  readonly perCuisine: Readonly<Record<Cuisine, number>>;
  /** knowledge/dishes/<file> → number of dishes. */
  readonly perFile: Readonly<Record<string, number>>;
  readonly ambiguousNames: number;
  readonly devanagariAliases: number;
  /** Devanagari aliases with a word that no Latin name of the dish spells (a translation, not a romanisation). */
  readonly partlyTranslatedAliases: readonly string[];
  readonly hardNegatives: number;
  /** nonfood/<file> → number of exemplars (absent files are problems, not zeros). */
  readonly nonFood: Readonly<Record<string, number>>;
  readonly lexicons: Readonly<Record<string, number>>;
  readonly loadMs: number;
  /** Everything wrong, each naming the file (and line when there is one). Empty means the folder is valid. */
  readonly problems: readonly string[];
}

/**
 * Loads every knowledge file and checks what a single loader cannot: cuisine coverage, ambiguous names that are
 * really shared, Devanagari aliases that align with a Latin name, hard negatives that are not the same dish,
 * lexicons that parse. Collects every problem instead of stopping at the first.
 */
export function validateKnowledge(dir: string = KNOWLEDGE_DIR): KnowledgeReport {
  const problems: string[] = [];
  let knowledge: Knowledge;
  try {
    knowledge = loadKnowledge(dir, { prepare: true });
  } catch (err) {
    return emptyReport([(err as Error).message]);
  }
  const { book, lookup } = knowledge;

  const perCuisine = Object.fromEntries(CUISINE_LABELS.map((c) => [c, 0])) as Record<Cuisine, number>;
  const perFile: Record<string, number> = {};
  let aliases = 0;
  let redundantAliases = 0;
  for (const d of book.dishes) {
    perCuisine[d.cuisine]++;
    const file = d.source.replace(/^knowledge\/dishes\//, '').replace(/:\d+$/, '');
    perFile[file] = (perFile[file] ?? 0) + 1;
    aliases += d.aliases.length;
    // Aliases differing from another only by punctuation or accents (Mac & Cheese / Mac and Cheese) are kept as
    // written menus spell them; they are counted, not errors. A letter-less alias is an error.
    redundantAliases += d.aliases.length + 1 - d.keys.length;
    for (const a of d.aliases) if (!nameKey(a)) problems.push(`${d.source}: "${d.name}" has an alias with no letters or digits: "${a}"`);
  }
  for (const c of CUISINE_LABELS) {
    if (perCuisine[c] < MIN_DISHES_PER_CUISINE) problems.push(`knowledge/dishes: ${c} has ${perCuisine[c]} dishes, needs ≥ ${MIN_DISHES_PER_CUISINE}`);
  }
  if (book.dishes.length < MIN_DISHES_TOTAL) problems.push(`knowledge/dishes: ${book.dishes.length} dishes, needs ≥ ${MIN_DISHES_TOTAL}`);

  // An ambiguous name must really name several dishes; otherwise the entry is stale and hides a typo.
  for (const name of book.ambiguous) {
    const ids = book.byKey.get(name) ?? [];
    if (ids.length < 2) problems.push(`knowledge/lexicon/ambiguous.txt: "${name}" is listed as ambiguous but names ${ids.length} dish(es)`);
  }

  // Devanagari aliases: every alias must share at least one word with a Latin name of its dish (else it is
  // likely on the wrong row); words that are translations (नींबू चाय for Lemon Tea) are reported, not errors.
  let devanagariAliases = 0;
  const partlyTranslatedAliases: string[] = [];
  for (const d of book.dishes) {
    const latinNames = [d.name, ...d.aliases.filter((a) => !hasDevanagari(a))];
    for (const alias of d.aliases) {
      if (!hasDevanagari(alias)) continue;
      devanagariAliases++;
      const { pairs } = alignDevanagariAlias(alias, latinNames);
      const devaPairs = pairs.filter((p) => hasDevanagari(p.deva));
      const aligned = devaPairs.filter((p) => p.latin !== null).length;
      if (aligned === 0) {
        problems.push(`${d.source}: Devanagari alias "${alias}" of "${d.name}" matches no word of its Latin names; add the romanised name as an alias`);
      } else if (aligned < devaPairs.length) {
        partlyTranslatedAliases.push(`${d.source}: ${alias} (${d.name})`);
      }
    }
  }

  // Hard negatives: both texts present, and never the same dish.
  let hardNegatives = 0;
  try {
    for (const row of readTsv(join(dir, 'hard_negatives.tsv'), ['text_a', 'text_b', 'kind', 'note'])) {
      hardNegatives++;
      const where = `knowledge/hard_negatives.tsv:${row.line}`;
      const [a, b, kind] = row.cells;
      if (!a || !b || !kind || row.cells.length < 3) {
        problems.push(`${where}: expected text_a, text_b, kind (and a note)`);
        continue;
      }
      if (nameKey(a) === nameKey(b)) problems.push(`${where}: "${a}" and "${b}" are the same text`);
      const da = lookup.dishCandidates(a);
      const db = lookup.dishCandidates(b);
      if (da.length === 1 && db.length === 1 && da[0]!.id === db[0]!.id) {
        problems.push(`${where}: "${a}" and "${b}" are both names of the dish "${da[0]!.name}" (${da[0]!.source})`);
      }
    }
  } catch (err) {
    problems.push((err as Error).message);
  }

  const nonFood: Record<string, number> = {};
  for (const file of NONFOOD_FILES) {
    const path = join(dir, 'nonfood', file);
    if (!existsSync(path)) {
      problems.push(`knowledge/nonfood/${file} is missing`);
      continue;
    }
    const entries = readList(path);
    nonFood[file] = entries.length;
    if (entries.length === 0) problems.push(`knowledge/nonfood/${file} has no exemplars`);
    if (file !== 'stays_food.txt') {
      // A non-food exemplar that is exactly a dish name would teach the detector to reject food.
      for (const e of entries) {
        const hit = lookup.dishCandidates(e);
        if (hit.length > 0) problems.push(`knowledge/nonfood/${file}: "${e}" is the name of the dish "${hit[0]!.name}" (${hit[0]!.source})`);
      }
    }
  }
  const extraNonFood = existsSync(join(dir, 'nonfood'))
    ? readdirSync(join(dir, 'nonfood')).filter((f) => f.endsWith('.txt') && !(NONFOOD_FILES as readonly string[]).includes(f))
    : [];
  for (const f of extraNonFood) nonFood[f] = readList(join(dir, 'nonfood', f)).length;

  const lexicons: Record<string, number> = {};
  const listFiles = ['promo.txt', 'sizes.txt', 'menu_words.txt', 'ambiguous.txt', 'form_words.txt'];
  for (const f of listFiles) {
    try {
      lexicons[f] = readList(join(dir, 'lexicon', f)).length;
    } catch (err) {
      problems.push(`knowledge/lexicon/${f}: ${(err as Error).message}`);
    }
  }
  try {
    loadCueLexicons(dir);
  } catch (err) {
    problems.push((err as Error).message);
  }
  const tsvFiles: [string, string[]][] = [
    ['misspellings.tsv', ['wrong', 'right']],
    ['diet.tsv', ['keyword', 'diet', 'note']],
    ['protein.tsv', ['keyword', 'protein', 'note']],
    ['category.tsv', ['keyword', 'course', 'note']],
    ['cuisine_cues.tsv', ['keyword', 'cuisine', 'strength']],
    ['translations.tsv', ['word', 'english']],
  ];
  try {
    lexicons['search_equivalents.tsv'] = new Set([...loadSearchEquivalents(dir).values()].flat().map((p) => p.token)).size;
  } catch (err) {
    problems.push((err as Error).message);
  }
  try {
    const brands = loadBrands(dir);
    lexicons['brands.tsv'] = [...brands.phrases.values()].flat().length + brands.prefixes.length;
  } catch (err) {
    problems.push((err as Error).message);
  }
  try {
    lexicons['flavours.tsv'] = readTsv(join(dir, 'lexicon', 'flavours.tsv'), ['keyword', 'tag', 'note']).length;
  } catch (err) {
    problems.push((err as Error).message);
  }
  for (const [f, header] of tsvFiles) {
    try {
      const rows = readTsv(join(dir, 'lexicon', f), header);
      lexicons[f] = rows.length;
      const seen = new Map<string, number>();
      for (const row of rows) {
        const key = (row.cells[0] ?? '').toLowerCase();
        if (!key) problems.push(`knowledge/lexicon/${f}:${row.line}: empty first column`);
        const prev = seen.get(key);
        if (prev !== undefined) problems.push(`knowledge/lexicon/${f}:${row.line}: "${key}" is already on line ${prev}`);
        seen.set(key, row.line);
      }
    } catch (err) {
      problems.push((err as Error).message);
    }
  }

  return {
    dishes: book.dishes.length,
    aliases,
    redundantAliases,
    perCuisine,
    perFile,
    ambiguousNames: book.ambiguous.size,
    devanagariAliases,
    partlyTranslatedAliases,
    hardNegatives,
    nonFood,
    lexicons,
    loadMs: knowledge.loadMs,
    problems,
  };
}

function emptyReport(problems: string[]): KnowledgeReport {
  return {
    dishes: 0,
    aliases: 0,
    redundantAliases: 0,
    perCuisine: Object.fromEntries(CUISINE_LABELS.map((c) => [c, 0])) as Record<Cuisine, number>,
    perFile: {},
    ambiguousNames: 0,
    devanagariAliases: 0,
    partlyTranslatedAliases: [],
    hardNegatives: 0,
    nonFood: {},
    lexicons: {},
    loadMs: 0,
    problems,
  };
}
