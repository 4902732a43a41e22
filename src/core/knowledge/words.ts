import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CUISINE_LABELS, TAGS } from './dishes.js';
import type { Cuisine, Tag } from './dishes.js';
import { loadPortionConventions, type PortionConventions } from './portions.js';
import { loadSpellingConventions, type SpellingConventions } from './spelling.js';
import { readList, readTsv, type TsvRow } from './tsv.js';

/**
 * The word lists the rules of src/core read, from knowledge/lexicon/ (knowledge/README.md documents each file: its
 * format, its kinds and who reads it). Code keeps the grammar (punctuation, digits, units); the words are here.
 *
 * Two formats: a `.txt` list (one entry per line) and a `.tsv` whose rows are an entry and its kind (a word read by
 * several rules has a row per kind). Every file is required, every kind must be one the file declares, an entry may
 * not repeat within its kind, and entries keep their file order (a few rules read them in order).
 */

/** One word-list file: its name, its columns when it is a TSV, and the kinds its kind column may hold. */
export interface WordListFile {
  readonly file: string;
  /** TSV header; absent for a one-entry-per-line list. The entry is the first column, the kind the last. */
  readonly header?: readonly string[];
  readonly kinds?: readonly string[];
  /** Entries may be phrases of several words (all kinds when true, else these kinds); otherwise one word each. */
  readonly phrases?: true | readonly string[];
  /** Kinds whose entries keep their case (read in any case); every other entry must be lower case. */
  readonly anyCase?: readonly string[];
  /** Entries are regular-expression alternatives (checked to compile), not words. */
  readonly patterns?: true;
}

/** Every word-list file, in the order knowledge/README.md lists them. */
export const WORD_LIST_FILES: readonly WordListFile[] = [
  { file: 'query_filler.txt' },
  { file: 'query_everyday.txt' },
  { file: 'query_words.tsv', header: ['word', 'kind'], kinds: ['meal_word', 'negator', 'cuisine_filler', 'meal_time', 'meal_count', 'either', 'context', 'negator_after'] },
  { file: 'cuisine_queries.tsv', header: ['name', 'cuisine'], phrases: true },
  { file: 'serving_words.tsv', header: ['phrase', 'kind'], kinds: ['query', 'group', 'share', 'pair', 'single', 'not_portion', 'head', 'serve_word', 'order_of'], phrases: ['group', 'single'] },
  { file: 'number_words.tsv', header: ['word', 'value', 'kind'], kinds: ['serving', 'counted', 'piece_count', 'spelled_count', 'quantity'] },
  { file: 'combo_words.tsv', header: ['word', 'kind'], kinds: ['separator', 'joiner', 'tail', 'marker', 'chain_meal_code'], anyCase: ['chain_meal_code'] },
  { file: 'boundary_words.tsv', header: ['word', 'kind'], kinds: ['soft', 'dish'] },
  { file: 'filler_words.tsv', header: ['word', 'kind'], kinds: ['lookup', 'dish_words', 'menu_label', 'vessel_portion'], phrases: ['vessel_portion'] },
  { file: 'plural_exceptions.tsv', header: ['word', 'kind'], kinds: ['keep_final_s', 'not_plural'] },
  { file: 'piece_words.txt' },
  { file: 'preparation_phrases.txt', phrases: true },
  { file: 'accompaniments.txt' },
  { file: 'variant_words.tsv', header: ['word', 'kind'], kinds: ['negator', 'bowl_grain', 'same_item', 'packed_in'] },
  { file: 'no_bread_words.txt' },
  { file: 'inch_sized_words.txt' },
  { file: 'tag_roles.tsv', header: ['tag', 'role'], kinds: ['kind', 'section'] },
  { file: 'cleaning_words.tsv', header: ['word', 'kind'], kinds: [
    'edge_only_size', 'leading_portion', 'leading_portion_name', 'size_name', 'edge_only_promo', 'count_named', 'named_number', 'free_from',
    'bracketed_size', 'container', 'pack', 'free_item', 'measure', 'offer_bracket', 'leading_promo', 'leading_promo_name',
    'vessel_size', 'vessel', 'part_start_size', 'portion_note', 'counted_unit', 'unit', 'volume_unit',
  ], phrases: ['edge_only_promo', 'container', 'size_name', 'volume_unit'] },
  { file: 'devanagari_function_words.tsv', header: ['devanagari', 'latin'] },
  { file: 'nonfood_cues.tsv', header: ['pattern', 'list'], kinds: [
    'strength_form', 'dosage_form', 'shared_form', 'pharmacy_count_unit', 'pack_noun', 'garment', 'merchandise_item',
    'household_care', 'staple_word', 'staple_pack_noun', 'unmistakable_pharmacy', 'unmistakable_merchandise',
    'unmistakable_grocery',
  ], phrases: true, patterns: true },
];

/** The names of the word-list files: what the query speller leaves out of the food vocabulary it reads. */
export const WORD_LIST_FILE_NAMES: ReadonlySet<string> = new Set(WORD_LIST_FILES.map((f) => f.file));

/** The word lists, typed for their readers (each field names the file and kind it comes from). */
export interface WordLexicons {
  /** query_filler.txt */
  readonly queryFiller: ReadonlySet<string>;
  /** query_everyday.txt, in file order. */
  readonly queryEveryday: readonly string[];
  /** query_words.tsv */
  readonly mealWords: ReadonlySet<string>;
  readonly queryNegators: ReadonlySet<string>;
  /** Negators that follow what they turn round (Hindi word order). */
  readonly queryNegatorsAfter: ReadonlySet<string>;
  readonly cuisineFiller: ReadonlySet<string>;
  /** Meals of the day ("lunch"): with a need, a main is asked for. */
  readonly mealTimes: ReadonlySet<string>;
  /** Meal words that take a head count ("meal for two"). */
  readonly mealCounts: ReadonlySet<string>;
  /** Words between two query words that let either answer ("and", "or"). */
  readonly eitherWords: ReadonlySet<string>;
  /** After one, the query says when the food is eaten, not what it asks for. */
  readonly contextWords: ReadonlySet<string>;
  /** cuisine_queries.tsv: query name → cuisine, in file order. */
  readonly cuisineQueries: readonly (readonly [string, Cuisine])[];
  /** serving_words.tsv, each kind in file order. */
  readonly serving: {
    readonly query: readonly string[];
    readonly group: readonly string[];
    readonly share: readonly string[];
    readonly pair: readonly string[];
    readonly single: readonly string[];
    readonly notPortion: ReadonlySet<string>;
    /** Words for people after a head count ("4 people", "do logon"). */
    readonly head: readonly string[];
    /** Words a head count follows ("Serves 2", "Feeds 4"). */
    readonly serveWord: readonly string[];
    /** Words for one order that "of" and a count make a head count ("Bucket of 8"). */
    readonly orderOf: readonly string[];
  };
  /** number_words.tsv: word → value, each kind in file order. */
  readonly numbers: {
    readonly serving: ReadonlyMap<string, number>;
    readonly counted: ReadonlyMap<string, number>;
    readonly pieceCount: ReadonlyMap<string, number>;
    readonly spelledCount: ReadonlyMap<string, number>;
    readonly quantity: ReadonlyMap<string, number>;
  };
  /** combo_words.tsv, each kind in file order. */
  readonly combo: {
    readonly separator: readonly string[];
    readonly joiner: readonly string[];
    readonly tail: ReadonlySet<string>;
    readonly marker: readonly string[];
    readonly chainMealCode: readonly string[];
  };
  /** boundary_words.tsv, in file order. */
  readonly boundaries: { readonly soft: readonly string[]; readonly dish: readonly string[] };
  /** filler_words.tsv */
  readonly lookupFiller: ReadonlySet<string>;
  readonly dishWordFiller: ReadonlySet<string>;
  /** Words that tell a menu's house version from its plain one ("Special Masala Dosa" beside "Masala Dosa"). */
  readonly menuLabel: ReadonlySet<string>;
  /** A vessel → the dish words in whose names it is a party portion of that dish ("bucket" of a biryani). */
  readonly vesselPortions: ReadonlyMap<string, ReadonlySet<string>>;
  /** portions.tsv: how many people portion words and sizes stand for. */
  readonly portions: PortionConventions;
  /** spelling.tsv: how long a word must be before a spelling rule touches it. */
  readonly spelling: SpellingConventions;
  /** plural_exceptions.tsv */
  readonly keepFinalS: ReadonlySet<string>;
  readonly notPlural: ReadonlySet<string>;
  /** piece_words.txt */
  readonly pieceWords: ReadonlySet<string>;
  /** preparation_phrases.txt: each phrase's words, in file order (the order removals are tried in). */
  readonly preparationPhrases: readonly (readonly string[])[];
  /** accompaniments.txt */
  readonly accompaniments: ReadonlySet<string>;
  /** variant_words.tsv */
  readonly variantNegators: ReadonlySet<string>;
  readonly bowlGrains: ReadonlySet<string>;
  readonly sameItemWords: ReadonlySet<string>;
  readonly packedInWords: ReadonlySet<string>;
  /** no_bread_words.txt, in file order. */
  readonly noBreadWords: readonly string[];
  /** inch_sized_words.txt, in file order. */
  readonly inchSizedWords: readonly string[];
  /** tag_roles.tsv */
  readonly kindTags: ReadonlySet<Tag>;
  readonly sectionTags: readonly Tag[];
  /** cleaning_words.tsv, each kind in file order. */
  readonly cleaning: {
    readonly edgeOnlySize: ReadonlySet<string>;
    /** Edge-only size abbreviations that are a size where a combo part starts too (a "Med" after a "+" or a count). */
    readonly partStartSize: ReadonlySet<string>;
    /** Portion words that are a portion at the start of a name too ("Half Chicken Biryani"), unless a leadingPortionName follows. */
    readonly leadingPortion: ReadonlySet<string>;
    readonly leadingPortionName: ReadonlySet<string>;
    /** A size word and the next word that name something else together ("medium rare", "small onion"). */
    readonly sizeNames: ReadonlySet<string>;
    readonly edgeOnlyPromo: ReadonlySet<string>;
    /** Edge-only promo words that are a label when they start the text too ("New"), unless a leadingPromoName follows. */
    readonly leadingPromo: ReadonlySet<string>;
    readonly leadingPromoName: ReadonlySet<string>;
    readonly countNamed: ReadonlySet<string>;
    readonly namedNumbers: ReadonlySet<string>;
    readonly freeFrom: readonly string[];
    readonly bracketedSize: readonly string[];
    readonly container: readonly string[];
    readonly pack: readonly string[];
    readonly freeItem: readonly string[];
    /** Words that open an offer note in a bracket: "(Free Coke)", "(Now with Extra Paneer)". */
    readonly offerBracket: readonly string[];
    readonly measure: readonly string[];
    /** The units a count counts, in digits or spelled out (pieces, slices, plates, cups...; the packs are `pack`). */
    readonly countedUnit: readonly string[];
    /** Units of weight and length as abbreviated after an amount in digits (g, kg, cm); volumes are `volumeUnit`. */
    readonly unit: readonly string[];
    /** Units of volume as abbreviated after an amount in digits (ml, l, ltr, fl oz). */
    readonly volumeUnit: readonly string[];
    /** Size words that size the vessel after them ("Mini" before a flask or a bowl), though they stay inside other names. */
    readonly vesselSize: ReadonlySet<string>;
    /** What a dish is served in (besides containers, packs and combo tails): what a vesselSize word sizes. */
    readonly vessel: ReadonlySet<string>;
    /** The small words of a bracket that only says how the item is portioned ("in", "of" beside a size and a count). */
    readonly portionNote: ReadonlySet<string>;
  };
  /** devanagari_function_words.tsv: Devanagari word (NFC) → Latin spelling. */
  readonly devanagariFunctionWords: ReadonlyMap<string, string>;
  /** nonfood_cues.tsv: list → its regular-expression alternatives, in file order. */
  readonly nonFoodCues: ReadonlyMap<string, readonly string[]>;
  /** Entries per file, for the knowledge report. */
  readonly counts: Readonly<Record<string, number>>;
}

/** Rows of one word-list file as (entry, kind, other cells), validated against its declaration. */
interface ListRow {
  readonly entry: string;
  readonly kind: string;
  readonly cells: readonly string[];
  readonly where: string;
}

function readWordList(dir: string, spec: WordListFile): ListRow[] {
  const path = join(dir, 'lexicon', spec.file);
  if (!existsSync(path)) throw new Error(`knowledge/lexicon/${spec.file} is missing`);
  const rows: ListRow[] = spec.header
    ? readTsv(path, spec.header).map((r: TsvRow) => {
        const where = `knowledge/lexicon/${spec.file}:${r.line}`;
        if (r.cells.length !== spec.header!.length || r.cells.some((c) => c === '')) {
          throw new Error(`${where}: expected ${spec.header!.length} non-empty tab-separated columns (${spec.header!.join(', ')})`);
        }
        return { entry: r.cells[0]!, kind: spec.kinds ? r.cells[r.cells.length - 1]! : '', cells: r.cells, where };
      })
    : readList(path).map((entry, i) => ({ entry, kind: '', cells: [entry], where: `knowledge/lexicon/${spec.file} entry ${i + 1}` }));
  const seen = new Set<string>();
  for (const row of rows) {
    if (spec.kinds && !spec.kinds.includes(row.kind)) {
      throw new Error(`${row.where}: kind "${row.kind}" is not one of ${spec.kinds.join(', ')}`);
    }
    const phrases = spec.phrases === true || (spec.phrases?.includes(row.kind) ?? false);
    if (!phrases && /\s/.test(row.entry)) throw new Error(`${row.where}: "${row.entry}" must be one word (this list holds no phrases)`);
    if (phrases && /\s{2,}/.test(row.entry)) throw new Error(`${row.where}: "${row.entry}" has a run of spaces`);
    if (!spec.anyCase?.includes(row.kind) && row.entry !== row.entry.toLowerCase()) {
      throw new Error(`${row.where}: "${row.entry}" must be lower case (the rules compare lower-case words)`);
    }
    if (spec.patterns) {
      try {
        new RegExp(row.entry);
      } catch (err) {
        throw new Error(`${row.where}: "${row.entry}" is not a valid pattern (${(err as Error).message})`);
      }
    }
    const id = `${row.kind}\u0000${row.entry.toLowerCase()}`;
    if (seen.has(id)) throw new Error(`${row.where}: "${row.entry}" is listed twice${row.kind ? ` as ${row.kind}` : ''}`);
    seen.add(id);
  }
  if (rows.length === 0) throw new Error(`knowledge/lexicon/${spec.file} has no entries`);
  return rows;
}

/** Reads and validates every word-list file (throws with file:line on the first problem). */
export function loadWordLexicons(dir: string): WordLexicons {
  const files = new Map<string, ListRow[]>();
  for (const spec of WORD_LIST_FILES) files.set(spec.file, readWordList(dir, spec));
  const rows = (file: string): ListRow[] => files.get(file)!;
  const entries = (file: string, kind = ''): string[] => rows(file).filter((r) => r.kind === kind).map((r) => r.entry);
  const set = (file: string, kind = ''): ReadonlySet<string> => new Set(entries(file, kind));
  const numbers = (kind: string): ReadonlyMap<string, number> =>
    new Map(rows('number_words.tsv').filter((r) => r.kind === kind).map((r) => {
      const value = Number(r.cells[1]);
      // Amounts of weight or volume may be fractions (half, quarter); counts are whole.
      if (kind === 'quantity' ? !(value > 0) : !Number.isInteger(value) || value < 1) throw new Error(`${r.where}: value "${r.cells[1]}" is not a positive ${kind === 'quantity' ? '' : 'whole '}number`);
      return [r.entry, value];
    }));
  const tags = (role: string): Tag[] =>
    rows('tag_roles.tsv').filter((r) => r.kind === role).map((r) => {
      if (!(TAGS as readonly string[]).includes(r.entry)) throw new Error(`${r.where}: "${r.entry}" is not a tag (${TAGS.join(', ')})`);
      return r.entry as Tag;
    });
  const cuisineQueries = rows('cuisine_queries.tsv').map((r): [string, Cuisine] => {
    const cuisine = r.cells[1]!;
    if (!(CUISINE_LABELS as readonly string[]).includes(cuisine)) throw new Error(`${r.where}: cuisine "${cuisine}" is not one of ${CUISINE_LABELS.join(', ')}`);
    return [r.entry.toLowerCase(), cuisine as Cuisine];
  });
  const nonFoodCues = new Map<string, string[]>();
  for (const r of rows('nonfood_cues.tsv')) {
    const list = nonFoodCues.get(r.kind) ?? [];
    list.push(r.entry);
    nonFoodCues.set(r.kind, list);
  }
  return {
    queryFiller: set('query_filler.txt'),
    queryEveryday: entries('query_everyday.txt'),
    mealWords: set('query_words.tsv', 'meal_word'),
    queryNegators: set('query_words.tsv', 'negator'),
    queryNegatorsAfter: set('query_words.tsv', 'negator_after'),
    cuisineFiller: set('query_words.tsv', 'cuisine_filler'),
    mealTimes: set('query_words.tsv', 'meal_time'),
    mealCounts: set('query_words.tsv', 'meal_count'),
    eitherWords: set('query_words.tsv', 'either'),
    contextWords: set('query_words.tsv', 'context'),
    cuisineQueries,
    serving: {
      query: entries('serving_words.tsv', 'query'),
      group: entries('serving_words.tsv', 'group'),
      share: entries('serving_words.tsv', 'share'),
      pair: entries('serving_words.tsv', 'pair'),
      single: entries('serving_words.tsv', 'single'),
      notPortion: set('serving_words.tsv', 'not_portion'),
      head: entries('serving_words.tsv', 'head'),
      serveWord: entries('serving_words.tsv', 'serve_word'),
      orderOf: entries('serving_words.tsv', 'order_of'),
    },
    numbers: {
      serving: numbers('serving'),
      counted: numbers('counted'),
      pieceCount: numbers('piece_count'),
      spelledCount: numbers('spelled_count'),
      quantity: numbers('quantity'),
    },
    combo: {
      separator: entries('combo_words.tsv', 'separator'),
      joiner: entries('combo_words.tsv', 'joiner'),
      tail: set('combo_words.tsv', 'tail'),
      marker: entries('combo_words.tsv', 'marker'),
      chainMealCode: entries('combo_words.tsv', 'chain_meal_code'),
    },
    boundaries: { soft: entries('boundary_words.tsv', 'soft'), dish: entries('boundary_words.tsv', 'dish') },
    lookupFiller: set('filler_words.tsv', 'lookup'),
    dishWordFiller: set('filler_words.tsv', 'dish_words'),
    menuLabel: set('filler_words.tsv', 'menu_label'),
    vesselPortions: entries('filler_words.tsv', 'vessel_portion').reduce((m, phrase) => {
      const [vessel, dish] = phrase.split(' ') as [string, string];
      m.set(vessel, new Set([...(m.get(vessel) ?? []), dish]));
      return m;
    }, new Map<string, ReadonlySet<string>>()),
    portions: loadPortionConventions(dir),
    spelling: loadSpellingConventions(dir),
    keepFinalS: set('plural_exceptions.tsv', 'keep_final_s'),
    notPlural: set('plural_exceptions.tsv', 'not_plural'),
    pieceWords: set('piece_words.txt'),
    preparationPhrases: entries('preparation_phrases.txt').map((p) => p.split(/\s+/)),
    accompaniments: set('accompaniments.txt'),
    variantNegators: set('variant_words.tsv', 'negator'),
    bowlGrains: set('variant_words.tsv', 'bowl_grain'),
    sameItemWords: set('variant_words.tsv', 'same_item'),
    packedInWords: set('variant_words.tsv', 'packed_in'),
    noBreadWords: entries('no_bread_words.txt'),
    inchSizedWords: entries('inch_sized_words.txt'),
    kindTags: new Set(tags('kind')),
    sectionTags: tags('section'),
    cleaning: {
      edgeOnlySize: set('cleaning_words.tsv', 'edge_only_size'),
      partStartSize: set('cleaning_words.tsv', 'part_start_size'),
      leadingPortion: set('cleaning_words.tsv', 'leading_portion'),
      leadingPortionName: set('cleaning_words.tsv', 'leading_portion_name'),
      sizeNames: set('cleaning_words.tsv', 'size_name'),
      edgeOnlyPromo: set('cleaning_words.tsv', 'edge_only_promo'),
      leadingPromo: set('cleaning_words.tsv', 'leading_promo'),
      leadingPromoName: set('cleaning_words.tsv', 'leading_promo_name'),
      countNamed: set('cleaning_words.tsv', 'count_named'),
      namedNumbers: set('cleaning_words.tsv', 'named_number'),
      freeFrom: entries('cleaning_words.tsv', 'free_from'),
      bracketedSize: entries('cleaning_words.tsv', 'bracketed_size'),
      container: entries('cleaning_words.tsv', 'container'),
      pack: entries('cleaning_words.tsv', 'pack'),
      measure: entries('cleaning_words.tsv', 'measure'),
      countedUnit: entries('cleaning_words.tsv', 'counted_unit'),
      unit: entries('cleaning_words.tsv', 'unit'),
      volumeUnit: entries('cleaning_words.tsv', 'volume_unit'),
      freeItem: entries('cleaning_words.tsv', 'free_item'),
      offerBracket: entries('cleaning_words.tsv', 'offer_bracket'),
      vesselSize: set('cleaning_words.tsv', 'vessel_size'),
      vessel: set('cleaning_words.tsv', 'vessel'),
      portionNote: set('cleaning_words.tsv', 'portion_note'),
    },
    devanagariFunctionWords: new Map(rows('devanagari_function_words.tsv').map((r) => [r.entry.normalize('NFC'), r.cells[1]!])),
    nonFoodCues,
    counts: Object.fromEntries([...files].map(([file, list]) => [file, list.length])),
  };
}

/** Regular-expression source matching any of `phrases`, literally, in their order: `(?:a|b|c)` without the brackets. */
export function literalAlternatives(phrases: readonly string[], space = ' '): string {
  return phrases.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, space)).join('|');
}
