/**
 * How many people a menu text (or a search query) is for, read from the words cleaning strips as size noise: "Serves
 * 4-5", "Combo for 8-10", "Pack of 4", "Bucket for Two", "Personal", "100ml". Search uses it for queries that ask for
 * a serving size ("pizza deal for 4 people", "party pack for a big group", "single serving cup for one"); match and
 * dedup never do, since a size never makes another dish.
 *
 * The answer is a head count, or null when the text does not say. A range reads as its lower end. Words such as party,
 * family and group are 4: "a big group" is not a number, but it is not one or two either.
 */

import type { PortionConventions } from './knowledge/portions.js';
import { literalAlternatives, type WordLexicons } from './knowledge/words.js';

/** The patterns servings reads, compiled once from the lexicon's words (lexicon/serving_words.tsv, number_words.tsv). */
export interface ServingPatterns {
  /** Patterns with a count, most specific first; the count is group 1. */
  readonly counted: readonly RegExp[];
  /** Words that say the size without a number. */
  readonly group: RegExp;
  /** Words that ask for something to share: two or more, however many. */
  readonly share: RegExp;
  readonly pair: RegExp;
  readonly single: RegExp;
  /** "Gulab Jamuns (Pack Of 10)", "Laccha Paratha (Pack of 4)": a pack of pieces, to share, not a meal for ten. */
  readonly packOf: RegExp;
  /** A count of pieces, its count group 1: "Tandoori Aloo [10 Pcs]" (piece_words.txt). */
  readonly pieces: RegExp;
  /** A count's value, for a number word or digits. */
  countOf(s: string): number;
  /** Query words that only say the serving ("party", "people", "single"): not dish words once the serving is read. */
  readonly servingWords: ReadonlySet<string>;
  /** A word after a leading count that makes it a count of pieces, types, flavours or breads, not of portions. */
  readonly notPortions: ReadonlySet<string>;
  /** How many people the portion words and sizes stand for (lexicon/portions.tsv). */
  readonly portions: PortionConventions;
}

export function compileServingPatterns(words: WordLexicons): ServingPatterns {
  const numberWords = words.numbers.serving;
  const COUNT = `(\\d{1,2}|${literalAlternatives([...numberWords.keys()])})`;
  const any = (list: readonly string[], structural: readonly string[] = []): RegExp =>
    new RegExp(`\\b(?:${[literalAlternatives(list), ...structural].join('|')})\\b`, 'i');
  const HEADS = literalAlternatives(words.serving.head);
  // A number before a unit ("for 500 ml") is an amount, not a head count (cleaning_words.tsv unit and volume_unit rows).
  const UNITS = literalAlternatives([...words.cleaning.unit, ...words.cleaning.volumeUnit], '\\s?');
  const GROUPS = literalAlternatives(words.serving.group.filter((w) => !w.includes(' ')));
  const PIECES = literalAlternatives([...words.pieceWords]);
  return {
    counted: [
      new RegExp(`\\b(?:${literalAlternatives(words.serving.serveWord)})\\s*:?\\s*${COUNT}\\b`, 'i'),
      // "for a party of 6", "for a family of 4": a group word that "of" and a count make a head count.
      new RegExp(`\\bfor\\s+(?:a\\s+)?(?:${GROUPS})\\s+of\\s+${COUNT}\\b`, 'i'),
      new RegExp(`\\bfor\\s+${COUNT}(?:\\s*(?:-|–|to)\\s*\\d{1,2})?\\s*(?:${HEADS}|of us)?(?![\\w.])(?!\\s*(?:(?:rs|${UNITS}|${PIECES}|inch)\\b|₹))`, 'i'),
      new RegExp(`\\b${COUNT}\\s*(?:${HEADS})\\b`, 'i'),
      new RegExp(`\\b(?:${literalAlternatives(words.serving.orderOf)})\\s+of\\s+${COUNT}\\b`, 'i'),
    ],
    group: any(words.serving.group),
    share: any(words.serving.share),
    pair: any(words.serving.pair),
    // A cup under 200 ml is one serving (a 100ml ice cream); a 500ml tub or a 1.25L bottle says nothing about people.
    single: any(words.serving.single, ['1\\s*person', '(?:[5-9]\\d|1\\d\\d)\\s*ml']),
    packOf: new RegExp(`\\b(?:${literalAlternatives(words.cleaning.pack)})\\s+of\\s+${COUNT}\\b`, 'i'),
    pieces: new RegExp(`\\b(\\d{1,2})\\s*(?:${PIECES})\\b`, 'i'),
    countOf: (s: string): number => numberWords.get(s) ?? Number(s),
    servingWords: new Set([...numberWords.keys(), ...words.serving.query, ...words.serving.head]),
    notPortions: words.serving.notPortion,
    portions: words.portions,
  };
}

/**
 * An order of several of one thing, its count first: "6 Crispy Veg", "2 x Medium Chicken Popcorn", "Any 2 Rice Bowls +
 * Any Starter", "1 Jr Veg Whopper + 1 Chocolate Thick Shake". One portion each, so the count is the head count. Not a
 * count of pieces, types, flavours or breads ("5 Pc Smoky Chicken", "7 Types of Cheese Pizza", "4 Cheese Pizza",
 * "2 Chapati with Korma"), nor a name that starts with a number ("7Up").
 */
const LEADING_COUNT = /^\W*(?:any\s+)?(\d{1,2})\s*(?:x\s+)?([a-z]+)/i;
/**
 * A platter or a box big enough to pass round (ServingPatterns.pieces, GRAMS): "Tandoori Aloo [10 Pcs]", "Gulab Jamun
 * Minis Box [500 gm]". It answers a query for something to share, but says nothing of a meal for a family (18 nuggets
 * are no family's dinner).
 */
const GRAMS = /\b(\d{3,4})\s*(?:g|gm|gms|grams?)\b/i;
const HALF_KILO_OR_MORE = /\b(?:1|1\/2|half)\s*kg\b/i;

/** The count an item's name leads with when it is an order of several portions ("6 Crispy Veg"), else null. */
export function orderCountOf(patterns: ServingPatterns, text: string): number | null {
  const m = LEADING_COUNT.exec(text);
  const n = m ? Number(m[1]) : 0;
  return n >= 1 && n <= patterns.portions.maxOrderCount && !patterns.notPortions.has(m![2]!.toLowerCase()) ? n : null;
}

/** How many a text is for: a head count, or `'shared'` (two or more, the count unsaid). */
export type Serving = number | 'shared';

/**
 * The serving a query or a menu item says, or null. `item` also reads a menu item's order count from its start ("6
 * Crispy Veg") and a platter or a box as shared; a query's leading number is not read so ("2 samosa" asks for
 * samosas, not for two people).
 */
export function servingOf(patterns: ServingPatterns, text: string, { item = false } = {}): Serving | null {
  for (const re of patterns.counted) {
    const m = re.exec(text);
    if (m) {
      const n = patterns.countOf(m[1]!.toLowerCase());
      if (n >= 1 && n <= patterns.portions.maxHeadCount) return n;
    }
  }
  if (item) {
    const n = orderCountOf(patterns, text);
    if (n !== null) return n;
    // Before the size words: a "Mini Samosa [Pack of 6]" is six mini samosas to share.
    if (patterns.packOf.test(text)) return 'shared';
  }
  if (patterns.group.test(text)) return patterns.portions.groupPeople;
  if (patterns.share.test(text)) return 'shared';
  // A pair word ("for two", "couple", "buddy") is two people by what it means.
  if (patterns.pair.test(text)) return 2;
  if (patterns.single.test(text)) return 1;
  if (item) {
    const pieces = patterns.pieces.exec(text);
    const grams = GRAMS.exec(text);
    const { platterMinPieces, sharedMinGrams } = patterns.portions;
    if ((pieces && Number(pieces[1]) >= platterMinPieces) || (grams && Number(grams[1]) >= sharedMinGrams) || HALF_KILO_OR_MORE.test(text)) return 'shared';
  }
  return null;
}

/**
 * Whether an item's serving answers a query's: both for one, both for a pair, or both for a group (lexicon/portions.tsv's
 * group_from_people or more); a query to share is answered by anything for more than one. Null when the item's serving
 * says nothing to the query (a platter to a query for a family meal).
 */
export function servingsAgree(portions: PortionConventions, query: Serving, item: Serving): boolean | null {
  if (query === 'shared') return item === 'shared' || item > 1;
  if (item === 'shared') return null;
  const band = (n: number): 'one' | 'pair' | 'group' => (n <= 1 ? 'one' : n < portions.groupFromPeople ? 'pair' : 'group');
  return band(query) === band(item);
}
