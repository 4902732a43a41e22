import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MEMO_ENTRIES, Memo } from '../memo.js';
import { KNOWLEDGE_DIR } from '../paths.js';
import { loadCueLexicons, trieKeywords } from './cues.js';
import type { CueLexicons } from './cues.js';
import { CUISINE_LABELS, HARD_NEGATIVES_HEADER, loadDishBook, nameKey } from './dishes.js';
import type { Cuisine, DishBook } from './dishes.js';
import { buildDishLookup, loadLookupLexicons, lookupWords } from './lookup.js';
import type { DishLookup, DishMatch } from './lookup.js';
import { alignDevanagariAlias, hasDevanagari, SoundKeys } from './transliterate.js';
import { readList, readTsv } from './tsv.js';
import { MISSPELLINGS_HEADER } from './spellings.js';
import { loadSearchEquivalents } from './equivalents.js';
import { loadKinds, KINDS_HEADER, type KindTable } from './kinds.js';
import type { SearchEquivalents } from './equivalents.js';
import { loadBrands } from './brands.js';
import type { BrandLexicon } from './brands.js';
import { loadTranslations, TRANSLATIONS_HEADER } from './translate.js';
import type { TranslationTable } from './translate.js';
import { loadConcepts } from './concepts.js';
import type { Concept } from './concepts.js';
import { loadWordLexicons, WORD_LIST_FILES } from './words.js';
import type { WordLexicons } from './words.js';
import { loadCleaningLexicon, TextCleaner } from '../text/clean.js';
import type { CleaningLexicon } from '../text/clean.js';
import { loadSizeWords, singular } from '../dish-words.js';
import { comboPattern, loadFormWords, loadVariantSwaps } from '../variants.js';
import { loadDefiningWords } from '../defining-words.js';
import type { DefiningWordLexicon } from '../defining-words.js';
import { compileServingPatterns } from '../servings.js';
import { CALIBRATION_DIR, readReadingConfidence, type ReadingConfidence } from '../profile-confidence.js';
import type { ServingPatterns } from '../servings.js';

export { CUISINE_LABELS, CUISINE_RELATIONS, COURSES, closerRelation, cuisineRelation, type CuisineRelation, type CuisineTable, DIETS, PROTEINS, TAGS, loadDishBook, nameKey } from './dishes.js';
export type { Course, Cuisine, Diet, Dish, DishBook, Protein, Tag } from './dishes.js';
export { buildDishLookup, guardSignature, loadLookupLexicons, splitCombo, FUZZY_FLOOR } from './lookup.js';
export type { ComboMatch, DishLookup, DishMatch, LookupLexicons, TokenCue } from './lookup.js';

/**
 * The food knowledge the service runs on, loaded once from a knowledge folder and frozen: the dish book and the lookups
 * over it, the cue lexicons, the cleaning lexicon and cleaner, the search equivalents, brands, translations,
 * Devanagari tables, concepts, variant swaps, form words, defining words and the word lists of the rules. Whoever
 * needs knowledge is handed this object (Services creates one; tests and the eval create their own); nothing in
 * src/core loads knowledge on its own.
 *
 * The costly tables (the fuzzy index, the Devanagari dictionary, the cleaning vocabulary, the defining words) are
 * built on first use, or all at once by prepare().
 */
export interface Knowledge {
  readonly dir: string;
  readonly book: DishBook;
  readonly lookup: DishLookup;
  /** Shorthand for lookup.resolveDish. */
  resolveDish(text: string): DishMatch | null;
  /** Diet, protein, course, cuisine and flavour lexicons, with the words that split a text into parts. */
  readonly cues: CueLexicons;
  /** The word lists of lexicon/ the rules read (words.ts). */
  readonly words: WordLexicons;
  readonly equivalents: SearchEquivalents;
  /** What foods are kinds of, for search (lexicon/kinds.tsv and the kind rows of translations.tsv). */
  readonly kinds: KindTable;
  readonly brands: BrandLexicon;
  readonly translations: TranslationTable;
  readonly concepts: readonly Concept[];
  /** lexicon/form_words.txt. */
  readonly formWords: ReadonlySet<string>;
  /** Word swaps that make another dish, learned from the hard negatives. */
  readonly variantSwaps: ReadonlySet<string>;
  /** The one-word entries of lexicon/sizes.txt. */
  readonly sizeWords: ReadonlySet<string>;
  /** The name keys of lexicon/menu_words.txt: generic menu words. */
  readonly menuWords: ReadonlySet<string>;
  /** A combo by its own words (lexicon/combo_words.tsv: "+", combo, meal, a chain's meal letters). */
  readonly comboPattern: RegExp;
  /** The serving patterns (lexicon/serving_words.tsv, number_words.tsv). */
  readonly servings: ServingPatterns;
  /** The cleaning vocabularies (built on first use). */
  readonly cleaning: CleaningLexicon;
  /** The menu-text cleaner over `cleaning` and the word lists (built on first use). */
  readonly cleaner: TextCleaner;
  /** The dish-defining words of the word guards (built on first use). */
  readonly definingWords: DefiningWordLexicon;
  /**
   * How sure its readings are (course, cuisine), measured on the development labels against this knowledge base and
   * committed in models/calibration/ (scripts/fit-profile-confidence.mjs, fit-cuisine-confidence.mjs); read on first use.
   */
  readonly readingConfidence: ReadingConfidence;
  /** A word's singular as the word guards fold it (lexicon/plural_exceptions.tsv's keep_final_s words keep their s). */
  singular(word: string): string;
  /**
   * What is read from a text, kept across requests in a bounded LRU: `make()` runs once per (kind, text) while the
   * entry stays. Results are pure functions of the text and this knowledge (menu texts and their readings, the word
   * sets of a dish's names).
   */
  memo<T>(kind: string, text: string, make: () => T): T;
  /** Whether the memo holds (kind, text) now: what `memo` would answer without running `make`. */
  memoHolds(kind: string, text: string): boolean;
  /** Builds every table that is otherwise built on first use. */
  prepare(): void;
  /** Wall-clock milliseconds the load took (files and validation; with `prepare`, every table too). */
  readonly loadMs: number;
}

export { DEFAULT_MEMO_ENTRIES };

/** A value computed on first read, then kept. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

/**
 * Loads and validates a knowledge folder (throws with file:line on the first invalid row). Exact lookups are ready
 * at once; the costly tables are built on first use, or now with `prepare: true`.
 */
export function loadKnowledge(dir: string = KNOWLEDGE_DIR, options: { prepare?: boolean; memoEntries?: number; calibrationDir?: string } = {}): Knowledge {
  const memoEntries = Math.max(1, options.memoEntries ?? DEFAULT_MEMO_ENTRIES);
  const started = performance.now();
  const words = loadWordLexicons(dir);
  const book = loadDishBook(dir);
  const lookup = buildDishLookup(book, () => loadLookupLexicons(dir), lookupWords(words), memoEntries);
  const keepFinalS = words.keepFinalS;
  const singularOf = (word: string): string => singular(word, keepFinalS, words.spelling.pluralMinLetters);
  const cues = loadCueLexicons(dir, { soft: new Set(words.boundaries.soft), dish: new Set(words.boundaries.dish), pluralMinLetters: words.spelling.pluralMinLetters });
  const cleaning = once(() =>
    loadCleaningLexicon(dir, book, { functionWords: words.devanagariFunctionWords, dictionary: lookup.devanagari }, [...trieKeywords(cues.flavour), ...trieKeywords(cues.cuisine)]),
  );
  const cleaner = once(() => new TextCleaner(cleaning(), words, memoEntries));
  const memo = new Memo<string, unknown>(memoEntries);
  // Variant swaps and defining words are read through the knowledge's own word rules, so they are made from it.
  const variantSwaps = once(() => loadVariantSwaps(dir, knowledge));
  const definingWords = once(() => loadDefiningWords(dir, knowledge));
  const readingConfidence = once(() => readReadingConfidence(options.calibrationDir ?? CALIBRATION_DIR));
  const equivalents = loadSearchEquivalents(dir, singularOf);
  const translations = loadTranslations(dir);
  const knowledge: { -readonly [K in keyof Knowledge]: Knowledge[K] } = {
    dir,
    book,
    lookup,
    resolveDish: (text: string) => lookup.resolveDish(text),
    cues,
    words,
    equivalents,
    kinds: loadKinds(dir, equivalents, translations),
    brands: loadBrands(dir),
    translations,
    concepts: loadConcepts(dir),
    formWords: loadFormWords(dir),
    get variantSwaps() {
      return variantSwaps();
    },
    sizeWords: loadSizeWords(dir),
    menuWords: new Set(readList(join(dir, 'lexicon', 'menu_words.txt')).map(nameKey)),
    comboPattern: comboPattern(words),
    servings: compileServingPatterns(words),
    get cleaning() {
      return cleaning();
    },
    get cleaner() {
      return cleaner();
    },
    get definingWords() {
      return definingWords();
    },
    get readingConfidence() {
      return readingConfidence();
    },
    singular: singularOf,
    memo<T>(kind: string, text: string, make: () => T): T {
      return memo.get(`${kind}\u0000${text}`, make) as T;
    },
    memoHolds(kind: string, text: string): boolean {
      return memo.peek(`${kind}\u0000${text}`) !== undefined;
    },
    prepare() {
      lookup.prepare();
      void cleaner();
      void variantSwaps();
      void definingWords();
      void readingConfidence();
    },
    loadMs: 0,
  };
  if (options.prepare) knowledge.prepare();
  knowledge.loadMs = performance.now() - started;
  return Object.freeze(knowledge);
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
  const soundKeys = new SoundKeys(knowledge.words.devanagariFunctionWords);
  for (const d of book.dishes) {
    const latinNames = [d.name, ...d.aliases.filter((a) => !hasDevanagari(a))];
    for (const alias of d.aliases) {
      if (!hasDevanagari(alias)) continue;
      devanagariAliases++;
      const { pairs } = alignDevanagariAlias(alias, latinNames, soundKeys);
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
    for (const row of readTsv(join(dir, 'hard_negatives.tsv'), HARD_NEGATIVES_HEADER)) {
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
  // The word lists of the rules were validated by the load (kinds, duplicates, case, phrases, patterns).
  for (const spec of WORD_LIST_FILES) lexicons[spec.file] = knowledge.words.counts[spec.file] ?? 0;
  const tsvFiles: [string, string[]][] = [
    ['misspellings.tsv', [...MISSPELLINGS_HEADER]],
    ['diet.tsv', ['keyword', 'diet', 'note']],
    ['protein.tsv', ['keyword', 'protein', 'note']],
    ['category.tsv', ['keyword', 'course', 'note']],
    ['cuisine_cues.tsv', ['keyword', 'cuisine', 'strength']],
    ['translations.tsv', [...TRANSLATIONS_HEADER]],
    ['kinds.tsv', [...KINDS_HEADER]],
  ];
  try {
    lexicons['search_equivalents.tsv'] = new Set([...knowledge.equivalents.byFirstWord.values()].flat().map((p) => p.token)).size;
  } catch (err) {
    problems.push((err as Error).message);
  }
  try {
    const brands = knowledge.brands;
    lexicons['brands.tsv'] = [...brands.phrases.values()].flat().length + brands.prefixes.length;
  } catch (err) {
    problems.push((err as Error).message);
  }
  try {
    lexicons['flavours.tsv'] = readTsv(join(dir, 'lexicon', 'flavours.tsv'), ['keyword', 'tag', 'note']).length;
  } catch (err) {
    problems.push((err as Error).message);
  }
  // Read by the load, which checks every cuisine label and protein has its one row.
  lexicons['cuisines.tsv'] = knowledge.book.cuisines.family.size;
  lexicons['proteins.tsv'] = knowledge.cues.proteinKinds.size;
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
