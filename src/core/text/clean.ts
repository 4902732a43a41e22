import { Memo } from '../memo.js';
import { join } from 'node:path';
import { readList } from '../knowledge/tsv.js';
import { readMisspellings } from '../knowledge/spellings.js';
import type { DishBook } from '../knowledge/dishes.js';
import { hasIndicScript, soundKey, transliterateIndic, type DevanagariTables } from '../knowledge/transliterate.js';
import { literalAlternatives, type WordLexicons } from '../knowledge/words.js';
import { editDistance } from './edit-distance.js';
import { splitInTwo } from './split-word.js';
import { menuTypoBudget, type SpellingConventions } from '../knowledge/spelling.js';
import { withoutEnding } from './endings.js';

export type NoiseKind = 'price' | 'size' | 'promo' | 'emoji' | 'decoration';

export interface RemovedNoise {
  readonly kind: NoiseKind;
  readonly text: string;
}

export interface Correction {
  readonly from: string;
  readonly to: string;
}

export interface CleanedText {
  readonly original: string;
  /** The dish name as the service reads it: what the models and the knowledge base see. Spelling variants are folded. */
  readonly text: string;
  /**
   * The dish name as a menu would print it without noise: what a customer is shown as "cleaned". It differs from
   * `text` only by what the menu wrote on purpose, which it keeps: the spellings of misspellings.tsv kind `variant`
   * and other romanisations of words of Indian dishes.
   */
  readonly name: string;
  /** Noise that was stripped (prices, sizes, promo labels, emojis, decoration), in order of removal. */
  readonly removed: readonly RemovedNoise[];
  /** Misspellings and abbreviations that were folded, and Devanagari words that were transliterated. */
  readonly corrections: readonly Correction[];
}

export interface CleaningLexicon {
  readonly promo: readonly string[];
  readonly sizes: readonly string[];
  readonly misspellings: ReadonlyMap<string, string>;
  /** The listed spellings menus write on purpose (kind `variant`): folded for reading, kept in the shown name. */
  readonly variants: ReadonlySet<string>;
  /**
   * English words the spelling corrector would otherwise take for a typo of a food word ("strong" is one letter from
   * "string"): lexicon/real_words.txt, made by scripts/build-real-words.mjs from a dictionary. Never corrected.
   */
  readonly realWords: ReadonlySet<string>;
  /** Lower-case words that are never "corrected": every word of the dish names and aliases plus menu_words.txt. */
  readonly vocabulary: ReadonlySet<string>;
  /** Devanagari function words and the word → menu spelling dictionary learned from the dishes' Devanagari aliases. */
  readonly devanagari: DevanagariTables;
  /**
   * Listed misspellings that a dish name spells on purpose, by the misspelling: the lower-case words of each name
   * ("mtn" → [["mtn", "dew"]]). Inside such a name the word is not folded: the fold would say something the dish is
   * not ("Mtn Dew" is no mutton, "Hai Nan Chicken Rice" no naan).
   */
  readonly keptSpellings: ReadonlyMap<string, readonly (readonly string[])[]>;
  /**
   * Lower-case words that only dishes of the Indian cuisines (family `indian` in lexicon/cuisines.tsv) name: romanised Hindi and
   * Urdu, which menus spell in more than one way.
   */
  readonly indianWords: ReadonlySet<string>;
  /**
   * Every dish name and alias of two words or more, lower-cased, its words joined by one space and the whole padded
   * with one: what a rule asks before it takes words of a known name for noise (a dish named "Mini" and a combo tail keeps both words).
   */
  readonly dishPhrases: readonly string[];
  /** Every two neighbouring words of a dish name or alias, as "a b". */
  readonly dishBigrams: ReadonlySet<string>;
}

/**
 * Reads the cleaning vocabularies from the knowledge base (the one source of truth for food words): its lexicon files,
 * the words of `book`'s dish names and aliases, the keywords the cue lexicons read (`cueKeywords`), and the Devanagari
 * `devanagari` tables.
 */
export function loadCleaningLexicon(dir: string, book: DishBook, devanagari: DevanagariTables, cueKeywords: Iterable<string>): CleaningLexicon {
  const lex = join(dir, 'lexicon');
  const misspellings = new Map<string, string>();
  const variants = new Set<string>();
  for (const row of readMisspellings(lex)) {
    misspellings.set(row.wrong.toLowerCase(), row.right);
    if (row.kind === 'variant') variants.add(row.wrong.toLowerCase());
  }
  const vocabulary = new Set<string>(readList(join(lex, 'menu_words.txt')).map((w) => w.toLowerCase()));
  const addWords = (text: string): void => {
    for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w.length > 1) vocabulary.add(w);
  };
  for (const dish of book.dishes) {
    addWords(dish.name);
    for (const a of dish.aliases) addWords(a);
  }
  for (const right of misspellings.values()) addWords(right);
  // The flavour and cuisine keywords are food words too: a word the cue lexicons read ("Chatpati", "Karare") is no
  // typo of a dish word one letter away (Chapati, Karage).
  for (const keyword of cueKeywords) addWords(keyword);
  // A misspelling must never be a vocabulary word itself, or the table and the vocabulary would disagree.
  for (const wrong of misspellings.keys()) vocabulary.delete(wrong);
  // A fold is kept out of a dish's own name when it brings in a word none of that dish's names has: then the fold
  // changes what the name says rather than how it is spelled ("Mtn Dew" → "Mutton Dew").
  const keptSpellings = new Map<string, string[][]>();
  const wordsOf = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
  for (const dish of book.dishes) {
    const names = [dish.name, ...dish.aliases];
    let dishWords: Set<string> | undefined;
    for (const name of names) {
      const words = wordsOf(name);
      if (words.length < 2) continue;
      for (const w of words) {
        const right = misspellings.get(w);
        if (right === undefined) continue;
        dishWords ??= new Set(names.flatMap(wordsOf));
        if (wordsOf(right).every((r) => dishWords!.has(r))) continue;
        const list = keptSpellings.get(w) ?? [];
        list.push(words);
        keptSpellings.set(w, list);
      }
    }
  }
  const indianWords = new Set<string>();
  const otherWords = new Set<string>();
  for (const dish of book.dishes) {
    const into = book.cuisines.family.get(dish.cuisine) === 'indian' ? indianWords : otherWords;
    for (const name of [dish.name, ...dish.aliases]) for (const w of wordsOf(name)) into.add(w);
  }
  for (const w of otherWords) indianWords.delete(w);
  const dishPhrases = new Set<string>();
  const dishBigrams = new Set<string>();
  for (const dish of book.dishes) {
    for (const name of [dish.name, ...dish.aliases]) {
      const words = wordsOf(name);
      if (words.length > 1) dishPhrases.add(` ${words.join(' ')} `);
      for (let i = 1; i < words.length; i++) dishBigrams.add(`${words[i - 1]} ${words[i]}`);
    }
  }
  return {
    indianWords,
    dishPhrases: [...dishPhrases],
    dishBigrams,
    realWords: new Set(readList(join(lex, 'real_words.txt'))),
    promo: readList(join(lex, 'promo.txt')).map((p) => p.toLowerCase()),
    sizes: readList(join(lex, 'sizes.txt')).map((p) => p.toLowerCase()),
    misspellings,
    variants,
    vocabulary,
    devanagari,
    keptSpellings,
  };
}

// Word boundaries that also work next to ₹, brackets and non-Latin letters.
const WB_START = '(?<![\\p{L}\\p{N}])';
const WB_END = '(?![\\p{L}\\p{N}])';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function alternation(phrases: readonly string[]): string {
  return [...phrases]
    .sort((a, b) => b.length - a.length)
    .map((p) => escapeRegExp(p).replace(/\\?'/g, "['’]?").replace(/ /g, '[\\s-]+'))
    .join('|');
}

const EMOJI_RE = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{FE0F}\u{200D}\u{20E3}\u{1F3FB}-\u{1F3FF}]+/gu;
const DECORATION_RE = /[★☆✓✔✗✘•●○◆◇■□▪▫►▶◀♥❤✨✦✧※→←↑↓⇒*~^_=<>{}|\\#@!?¡¿"“”«»…]+/gu;
const CURRENCY = '(?:₹|rs\\.?|inr|\\$|€|£|usd|aed|mrp:?)';
const PRICE_RES: readonly RegExp[] = [
  new RegExp(`${WB_START}${CURRENCY}\\s*\\d[\\d,]*(?:\\.\\d+)?(?:\\s*/-)?`, 'giu'),
  new RegExp(`(?:₹|\\$|€|£)\\s*\\d[\\d,]*(?:\\.\\d+)?(?:\\s*/-)?`, 'gu'),
  // "299 Rs", but not the "555 Rs" of "Chicken 555 Rs 260", where the currency belongs to the number after it.
  new RegExp(`${WB_START}\\d[\\d,]*(?:\\.\\d+)?\\s*(?:/-|rs\\.?|inr|rupees|₹)${WB_END}(?!\\s*\\d)`, 'giu'),
  new RegExp(`${WB_START}\\d[\\d,]*(?:\\.\\d+)?\\s*/-`, 'gu'),
  // "@139 each": the price of one of a multi-buy.
  /@\s*\d[\d,]*(?:\.\d+)?(?:\s*each\b)?/gu,
];
/** The promo patterns; the free items of "Free Coke inside" are the lexicon's (cleaning_words.tsv). */
function promoPatternRes(words: WordLexicons): RegExp[] {
  return [
    // A percentage is an offer only with an offer's words ("Flat 20%", "15% Off"); "100% Whole Wheat" describes the dish.
    new RegExp(`${WB_START}(?:(?:save\\s+(?:up\\s*to\\s+)?|up\\s*to\\s+|flat\\s+)\\d+(?:\\.\\d+)?\\s*%(?:\\s*(?:off|discount|cashback)${WB_END})?|\\d+(?:\\.\\d+)?\\s*%\\s*(?:off|discount|cashback)${WB_END})`, 'giu'),
    new RegExp(`${WB_START}(?:save|flat)\\s+(?:up\\s*to\\s+)?${CURRENCY}\\s*\\d[\\d,]*(?:\\.\\d+)?(?:\\s*off)?`, 'giu'),
    new RegExp(`${WB_START}buy\\s*(?:\\d+|one|two)\\s*get\\s*(?:\\d+|one|two)(?:\\s*free)?${WB_END}`, 'giu'),
    new RegExp(`${WB_START}(?:free\\s+delivery|free\\s+(?:${literalAlternatives(words.cleaning.freeItem)})\\s+inside)${WB_END}`, 'giu'),
    // A bracketed count of things that come free ends with "Free" and is an offer too; a free_from word before the
    // "Free" makes a diet claim instead.
    new RegExp(`[([]\\s*\\d{1,2}\\s+[^()[\\]\\d]*?${WB_START}(?<!(?:${literalAlternatives(words.cleaning.freeFrom)})[\\s-]*)free\\s*[)\\]]`, 'giu'),
    // "Choco Lava Cake Multipack (3+1)": a bracketed buy-N-get-M offer.
    /[([]\s*\d+\s*\+\s*\d+\s*(?:free)?\s*[)\]]/giu,
  ];
}
/** The size patterns; the words of packs and containers are the lexicon's (cleaning_words.tsv). */
function sizePatternRes(words: WordLexicons): RegExp[] {
  /** A pack word after a quantity belongs to the quantity ("Diet Coke 300ml Can", "Pepsi 475ml Pet"). */
  const containerAfterQuantity = `(?:\\s+(?:${literalAlternatives(words.cleaning.container, '\\s*')}))?`;
  const measure = literalAlternatives(words.cleaning.measure);
  // Units of weight, volume and length as menus abbreviate them after a number (cleaning_words.tsv unit and
  // volume_unit rows), beside the units it spells out (its measure rows, read in words too: "Twelve Inches"); the units
  // a number counts (pieces, cups) are its counted_unit rows.
  const UNIT = `(?:${literalAlternatives([...words.cleaning.unit, ...words.cleaning.volumeUnit], '\\s?')})`;
  const heads = literalAlternatives([...words.numbers.serving.keys()]);
  const counts = literalAlternatives([...words.numbers.spelledCount.keys()]);
  const pieces = literalAlternatives([...words.pieceWords]);
  // A plural written with an apostrophe counts too ("8 No's", "6 Pc's").
  const counted = `(?:${literalAlternatives(words.cleaning.countedUnit)})(?:e?s|['’]s)?`;
  // serving_words.tsv: the words a head count follows ("Serves", "Feeds") and the words for people after one.
  const serve = literalAlternatives(words.serving.serveWord);
  const people = literalAlternatives(words.serving.head);
  return [
    new RegExp(`${WB_START}(?:${serve})\\s*[:-]?\\s*(?:\\d+|${heads})(?:\\s*(?:-|to)\\s*(?:\\d+|${heads}))?(?:\\s*(?:${people}|${counted}))?${WB_END}`, 'giu'),
    // "(Serves in 2 Handi)", "[Served in 4 Matki]": a count of what the order comes in, and the vessel named after it.
    new RegExp(`${WB_START}(?:${serve})\\s+in\\s+(?:\\d+|${counts})\\s+\\p{L}+${WB_END}`, 'giu'),
    new RegExp(`${WB_START}(?:(?:${serve}|for)\\s+)?\\d+(?:\\s*(?:-|to)\\s*\\d+)?\\s*(?:${people})${WB_END}`, 'giu'),
    // A count of the packs an order comes in: "Platter 2 Box", "[3 boxes]".
    new RegExp(`${WB_START}\\d+\\s*(?:${literalAlternatives(words.cleaning.pack)})(?:e?s)?${WB_END}`, 'giu'),
    // "3 pc of McSpicy Chicken", "2 Plates of Momos": the count, its unit (counted_unit) and its "of" go together.
    new RegExp(`${WB_START}\\d+\\s*${counted}\\.?\\s+of${WB_END}`, 'giu'),
    // A bare fraction is a portion: "1/2 Fish Pulusu", "Kabab Masala 1/2" (NFKC writes ½ as 1⁄2).
    new RegExp(`${WB_START}[13]\\s*[/\u2044]\\s*[24](?![\\p{L}\\p{N}/\u2044])`, 'gu'),
    new RegExp(`${WB_START}(?:${literalAlternatives(words.cleaning.pack)})\\s+of\\s+(?:\\d+|${counts})(?:\\s*(?:${pieces}))?${WB_END}`, 'giu'),
    // "Party for 2 (Veg)", "Hut Treat Meal for 4 - Non Veg", "Platter for 4-Peri Peri Dip": a head count before an
    // edge, in digits or in words ("for Two").
    new RegExp(`${WB_START}for\\s+(?:\\d{1,2}(?:\\s*(?:-|to)\\s*\\d{1,2})?|(?:${counts})${WB_END})(?=\\s*(?:$|[)\\]}\\-–—:|,+([{&]|(?:with|non|veg)(?![\\p{L}])))`, 'giu'),
    new RegExp(`${WB_START}(?:\\d+\\s*/\\s*\\d+|\\d+(?:\\.\\d+)?(?:\\s*(?:-|to)\\s*\\d+(?:\\.\\d+)?)?)\\s*(?:${UNIT}|${counted}|${measure})${WB_END}${containerAfterQuantity}(?:\\s+each${WB_END})?`, 'giu'),
    // A quantity glued to the word before it is still one ("Sprite750ml", a brand then "1 Ltr"), for the units of weight,
    // volume and length spelled out, which nothing else ends with (unlike a bare "g" or "l").
    new RegExp(`(?<=\\p{L})\\d+(?:\\.\\d+)?\\s*(?:${measure})${WB_END}${containerAfterQuantity}`, 'giu'),
    // Nutrition facts printed in the name: "[55g Protein]", "(Protein-25g)", "[284 Kcal]".
    new RegExp(`${WB_START}\\d+(?:\\.\\d+)?\\s*(?:g|gm|gms|grams?)?\\s*(?:-\\s*)?(?:protein|carbs?|carbohydrates?|fats?|fib(?:re|er)|sugars?)${WB_END}`, 'giu'),
    new RegExp(`${WB_START}(?:protein|carbs?|fats?)\\s*[-:]?\\s*\\d+(?:\\.\\d+)?\\s*(?:g|gm|gms|grams?)${WB_END}`, 'giu'),
    new RegExp(`${WB_START}\\d+(?:\\.\\d+)?\\s*(?:kcal|kcals|cal|cals|calories)${WB_END}`, 'giu'),
    // A count times an amount: "2 x 250ml", and "[2 Pcs x 50 Gms]" with the amount's unit (else "Gms" is left behind).
    new RegExp(`${WB_START}(?:x\\s*\\d+(?:\\.\\d+)?(?:\\s*(?:${UNIT}|${counted}|${measure}))?|\\d+\\s*x)${WB_END}`, 'giu'),
    // Inches as pizza menus print them: 9", 12'', 12''', 8″.
    new RegExp(`${WB_START}\\d+(?:\\.\\d+)?\\s*(?:"|''+|″|”)`, 'gu'),
  ];
}
/** An amount spelled out before a unit of weight, volume or length: "Biryani Half Kg", "Lassi One Litre", "Twelve Inches". */
function spelledQuantityRe(words: WordLexicons): RegExp {
  return new RegExp(`${WB_START}(?:${literalAlternatives([...words.numbers.quantity.keys()])})\\s*(?:${literalAlternatives(words.cleaning.measure)})${WB_END}`, 'giu');
}
/** The units a count spelled in words may count, singular or plural: cleaning_words.tsv's counted units and packs. */
function countedUnits(words: WordLexicons): string {
  return `(?:${literalAlternatives([...words.cleaning.countedUnit, ...words.cleaning.pack])})(?:e?s)?`;
}
/** A count spelled out before a piece unit or a pack word, as one in digits is: "Crunchy Chicken Nuggets (Six Pcs)",
 * "Veg Platter [Three Boxes]". */
function wordCountRe(words: WordLexicons): RegExp {
  return new RegExp(`${WB_START}(?:${literalAlternatives([...words.numbers.spelledCount.keys()])})\\s+${countedUnits(words)}${WB_END}`, 'giu');
}
/** Whether a text may hold such a count: one of its unit words. */
function wordCountCueRe(words: WordLexicons): RegExp {
  return new RegExp(`${countedUnits(words)}${WB_END}`, 'iu');
}
/** A count before the word a piece word qualifies: the count goes, the pieces stay ("Chicken 5 Leg Piece Bucket"),
 * unless the count names the word ("4 Cheese Slice"). */
function countOfPiecesRe(words: WordLexicons): RegExp {
  return new RegExp(`${WB_START}(?:1[0-2]|[1-9])\\s+(?=(\\p{L}+)\\s+(?:${literalAlternatives([...words.pieceWords])})${WB_END})`, 'giu');
}
/** "Free" after one of the lexicon's free_from words is a diet claim that names the dish ("Sugar Free Lassi"). */
function freeFromRe(words: WordLexicons): RegExp {
  return new RegExp(`(?:${literalAlternatives(words.cleaning.freeFrom)})[\\s-]*$`, 'iu');
}
/** A bracket that holds only a free-item offer: "[FREE Choco Lava Cake]". */
/** A bracket that opens with an offer word is an offer note: "(Free Coke)", "(Now with Extra Paneer)". */
function offerBracketRe(words: WordLexicons): RegExp {
  return new RegExp(`[([]\\s*(?:${literalAlternatives(words.cleaning.offerBracket)})\\s[^)\\]]*[)\\]]`, 'giu');
}
/** Size letters and bare counts that mean a portion when bracketed: "Fries (M)", "Latte (R)", "Kerala Paratha (2)". */
function bracketedSizeRe(words: WordLexicons): RegExp {
  return new RegExp(`[([]\\s*(?:${literalAlternatives(words.cleaning.bracketedSize)}|\\d{1,2})\\s*\\.?\\s*[)\\]]`, 'giu');
}
/** A bracketed count of a thing: "Kouju Bird Biryani (2 Birds)" (kept unless the name names it). */
const COUNTED_BRACKET_RE = /[([]\s*\d{1,3}\s*(\p{L}{3,})\s*[)\]]/gu;
/** Where a combo's part starts: after a "+", a comma or a semicolon, or after a count: "+ 1 <size> <dish>". */
const PART_START_RE = /(?:[+,;]\s*(?:\d{1,2}\s*[x×]?\s*)?|^\s*\d{1,2}\s*[x×]?\s*)$/u;
/** "Half N Half Pizza", "Half & Half": one pizza of two halves, not a portion. */
const HALF_AND_HALF_RE = /half\s*(?:['’]?n['’]?|and|&)\s*half/giu;
/** A lone bracketed letter is a menu's own marker ("Badusha 1kg [o]", "Paneer Roll (V)"), never a dish word. */
const BRACKETED_MARK_RE = /[([]\s*\p{L}\s*[)\]]/gu;
/**
 * A bare count that starts the text or a part of a combo: "2 Idli + 2 Vada", "Chole With 2 Amritsari Naan",
 * "Burger+Fries(M)+2Coke". Without a space the next word must be capitalised, which keeps "4in1" and "6in1"; counts
 * stop at 12 because bigger bare numbers name things ("14 Idli", "Big 12 Bucket"), except right after a "+", where a
 * number up to 20 is how many of the part come with the dish (fourteen rotis in a combo; 65 after a "+" still names a
 * dish).
 */
function countRe(words: WordLexicons): RegExp {
  return new RegExp(`(?<=(?:^|[+&,:;([/]|\\s[-–—]|(?<![\\p{L}\\p{N}])(?:${literalAlternatives(words.boundaries.soft)}))\\s*)(1[0-2]|[1-9]|(?<=\\+\\s*)(?:1[3-9]|20))(?:\\s*[x×]\\s+|\\s+|(?=\\p{Lu}))(?=(\\p{L}+))`, 'giu');
}
/** Everything after the match is noise already found (a count, a quantity, a price) or the brackets and separators
 * around it: "Golgappe Full 12 pcs" and "Paneer Tikka Half (6 pcs)" end at the size word. */
function onlyNoiseAfter(s: string, m: RegExpExecArray, spans: readonly Span[]): boolean {
  let at = m.index + m[0].length;
  if (!spans.some((sp) => sp.start >= at)) return false;
  while (at < s.length) {
    if (/[\s()[\]{}\-–—,:|/.]/u.test(s[at]!)) at++;
    else {
      const span = spans.find((sp) => sp.start <= at && sp.end > at);
      if (!span) return false;
      at = span.end;
    }
  }
  return true;
}

/** Whether the text outside match `m` has the word `noun` names (singular or plural): what a bracketed count counts. */
function namesOutside(s: string, m: RegExpExecArray, noun: string): boolean {
  return stemsOutside(s, m.index, m.index + m[0].length).has(pluralStem(noun.toLowerCase()));
}

/** A word without a plural ending, for comparing a word with its plural ("piece" / "pieces"). */
function pluralStem(word: string): string {
  return word.replace(/(?:es|s)$/u, '');
}

/** The plural stems of the lower-case words of `s` outside [from, to). */
function stemsOutside(s: string, from: number, to: number): Set<string> {
  return new Set(`${s.slice(0, from)} ${s.slice(to)}`.toLowerCase().split(/[^\p{L}]+/u).filter((w) => w !== '').map(pluralStem));
}

interface Span {
  start: number;
  end: number;
  kind: NoiseKind;
}

function caseLike(template: string, word: string): string {
  if (template.length > 1 && template === template.toUpperCase() && /[A-Z]/.test(template)) return word.toUpperCase();
  if (template[0] && template[0] === template[0].toUpperCase() && /[A-Z]/.test(template[0])) {
    return word.replace(/(^|\s)\p{L}/gu, (m) => m.toUpperCase());
  }
  return word;
}

export class TextCleaner {
  private readonly promoRe: RegExp;
  private readonly sizeRe: RegExp;
  private readonly promoPatternRes: readonly RegExp[];
  private readonly sizePatternRes: readonly RegExp[];
  private readonly spelledQuantityRe: RegExp;
  private readonly wordCountRe: RegExp;
  private readonly wordCountCueRe: RegExp;
  /** Whether a text without a digit may hold a head or pack count spelled out: a serve word, "of" or "for". */
  private readonly spelledServingCueRe: RegExp;
  private readonly countOfPiecesRe: RegExp;
  private readonly countRe: RegExp;
  private readonly bracketedSizeRe: RegExp;
  private readonly offerBracketRe: RegExp;
  private readonly freeFromRe: RegExp;
  /** cleaning_words.tsv: see its header for what each list means to cleaning. */
  private readonly words: WordLexicons['cleaning'];
  /** lexicon/piece_words.txt: the words a count of pieces is written with. */
  private readonly pieceWords: ReadonlySet<string>;
  /** What a vessel_size word sizes: cleaning_words.tsv's containers, packs and vessels and combo_words.tsv's tails. */
  private readonly vessels: ReadonlySet<string>;
  /** The words a vessel_size word may size a vessel past: variant_words.tsv's grains, serving_words.tsv's groups. */
  private readonly grains: ReadonlySet<string>;
  private readonly groups: ReadonlySet<string>;
  /** The words a portion is counted or packed in (counted units, containers, packs), singular: words of a portion note
   * ("(250gm Box)", "[Half Dozen]", "(2 Servings)"). */
  private readonly portionUnits: ReadonlySet<string>;
  /** The one-word sizes of sizes.txt and every number word of number_words.tsv: words of a portion note. */
  private readonly sizeWords: ReadonlySet<string>;
  private readonly numberWords: ReadonlySet<string>;
  /** Words that join a name's words (filler_words.tsv dish_words: and, with, of): never what a typo meant. */
  private readonly connectives: ReadonlySet<string>;
  /** The dish phrases (CleaningLexicon.dishPhrases) that hold a vessel_size word. */
  private readonly vesselSizedNames: readonly string[];
  private readonly misspellings: ReadonlyMap<string, string>;
  private readonly variants: ReadonlySet<string>;
  private readonly vocabulary: ReadonlySet<string>;
  private readonly devanagari: DevanagariTables;
  private readonly keptSpellings: ReadonlyMap<string, readonly (readonly string[])[]>;
  /** vocabulary bucketed by first letter, for the fuzzy corrector. */
  private readonly buckets = new Map<string, string[]>();
  private readonly fuzzyMemo: Memo<string, string | null>;
  /** Recent inputs and their cleaned form: a warm /embed of 100 names spent most of its time re-cleaning them. The
   * results are immutable, so callers share them. */
  private readonly recent: Memo<string, CleanedText>;

  /**
   * Whether any word of `text` is in the cleaning vocabulary or is a listed misspelling. Accents are folded; a text
   * with letters of a script the vocabulary does not cover (CJK, Thai...) counts as known: only Latin words can be
   * judged here.
   */
  hasKnownWord(text: string): boolean {
    const folded = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
    if (/[^\p{Script=Latin}\P{L}]/u.test(folded)) return true;
    return folded.split(/[^a-z0-9]+/).some((w) => w.length > 1 && (this.vocabulary.has(w) || this.misspellings.has(w)));
  }

  /**
   * The lexicon it cleans with (the query speller reads its vocabulary and misspellings rather than loading them
   * again) and the word lists of its patterns.
   */
  /** `recentEntries`: how many distinct inputs it remembers the cleaned form of, and words their fuzzy reading. */
  /** How long a word must be before the cleaner corrects or splits it (lexicon/spelling.tsv). */
  private readonly spelling: SpellingConventions;

  constructor(readonly lexicon: CleaningLexicon, words: WordLexicons, recentEntries: number) {
    this.spelling = words.spelling;
    this.recent = new Memo(recentEntries);
    this.fuzzyMemo = new Memo(recentEntries);
    this.promoRe = new RegExp(`${WB_START}(?:${alternation(lexicon.promo)})${WB_END}`, 'giu');
    // A listed misspelling of a size word is that size ("[quater]"): sizes are removed before words are corrected.
    const sizes = new Set(lexicon.sizes);
    const misspelledSizes = [...lexicon.misspellings].filter(([wrong, right]) => /^\p{L}+$/u.test(wrong) && sizes.has(right.toLowerCase())).map(([wrong]) => wrong);
    this.sizeRe = new RegExp(`${WB_START}(?:${alternation([...lexicon.sizes, ...misspelledSizes])})${WB_END}`, 'giu');
    this.promoPatternRes = promoPatternRes(words);
    this.sizePatternRes = sizePatternRes(words);
    this.spelledQuantityRe = spelledQuantityRe(words);
    this.wordCountRe = wordCountRe(words);
    this.wordCountCueRe = wordCountCueRe(words);
    this.spelledServingCueRe = new RegExp(`${WB_START}(?:${literalAlternatives(words.serving.serveWord)})${WB_END}|\\b(?:of|for)\\s`, 'iu');
    this.countOfPiecesRe = countOfPiecesRe(words);
    this.countRe = countRe(words);
    this.bracketedSizeRe = bracketedSizeRe(words);
    this.offerBracketRe = offerBracketRe(words);
    this.freeFromRe = freeFromRe(words);
    this.words = words.cleaning;
    this.pieceWords = words.pieceWords;
    this.vessels = new Set([...words.cleaning.container, ...words.cleaning.pack, ...words.cleaning.vessel, ...words.combo.tail]);
    this.portionUnits = new Set([...words.cleaning.countedUnit, ...words.cleaning.container, ...words.cleaning.pack]);
    this.grains = words.bowlGrains;
    this.connectives = words.dishWordFiller;
    this.groups = new Set(words.serving.group);
    this.sizeWords = new Set(lexicon.sizes.filter((w) => !w.includes(' ')));
    this.numberWords = new Set(Object.values(words.numbers).flatMap((m) => [...m.keys()]));
    this.vesselSizedNames = lexicon.dishPhrases.filter((p) => p.split(' ').some((w) => words.cleaning.vesselSize.has(w)));
    this.misspellings = lexicon.misspellings;
    this.variants = lexicon.variants;
    this.vocabulary = lexicon.vocabulary;
    this.devanagari = lexicon.devanagari;
    this.keptSpellings = lexicon.keptSpellings;
    // Known misspellings are candidates too, standing for their right word: "Riatha" is one swap from the listed
    // "raitha" (→ raita) and two from "raita" itself.
    for (const w of [...lexicon.vocabulary, ...lexicon.misspellings.keys()]) {
      if (!/^[a-z]+$/.test(w)) continue;
      const list = this.buckets.get(w[0]!) ?? [];
      list.push(w);
      this.buckets.set(w[0]!, list);
    }
  }

  clean(input: string): CleanedText {
    return this.recent.get(input, () => this.cleanUncached(input));
  }

  /** clean() without the memo of recent inputs (what the benchmark times as the cost of cleaning). */
  cleanUncached(input: string): CleanedText {
    const original = input;
    const removed: RemovedNoise[] = [];
    const corrections: Correction[] = [];
    // NFKC spells ™ as "TM" ("SchweppesTM"), so trade marks go before normalisation.
    let s = input;
    if (s.includes('™') || s.includes('℠')) {
      s = s.replace(/[\u2122\u2120]+/gu, (m) => {
        removed.push({ kind: 'decoration', text: m });
        return ' ';
      });
    }
    s = s.normalize('NFKC');
    // Invisible format characters (word joiner, zero-width space, soft hyphen, BOM) are no part of a name.
    if (/[\u00AD\u200B\u2060-\u2064\uFEFF]/u.test(s)) s = s.replace(/[\u00AD\u200B\u2060-\u2064\uFEFF]/gu, '');
    // A name cut short inside a bracket ("Keto Bowl [71g Protein, 30g C...") loses the bracket's annotation, which is
    // sizes, nutrition or an offer; the dish name is before it.
    if (/(?:\.\.|…)\s*$/u.test(s)) {
      s = s.replace(/\s*[([][^)\]]*(?:\.{2,}|…)\s*$/u, (m) => {
        if (!/\p{L}/u.test(s.slice(0, s.length - m.length))) return m;
        removed.push({ kind: 'decoration', text: m.trim() });
        return ' ';
      });
    }

    s = s.replace(EMOJI_RE, (m) => {
      removed.push({ kind: 'emoji', text: m });
      return ' ';
    });
    // A digit glued to the closing bracket that ends the text ("… [8 Inches]1") is the menu's own code, as a lone
    // bracketed letter is.
    s = s.replace(/(?<=[)\]}])\d{1,2}\s*$/u, (m) => {
      removed.push({ kind: 'decoration', text: m.trim() });
      return '';
    });

    const spans: Span[] = [];
    const collect = (re: RegExp, kind: NoiseKind, accept?: (m: RegExpExecArray) => boolean): void => {
      re.lastIndex = 0;
      for (let m = re.exec(s); m; m = re.exec(s)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        if (accept && !accept(m)) continue;
        spans.push({ start: m.index, end: m.index + m[0].length, kind });
      }
    };
    // Prices, percentages and quantities all contain a digit (or a currency sign): most names skip these passes.
    if (/[\d₹$€£@]/u.test(s)) {
      for (const re of PRICE_RES) collect(re, 'price');
      for (const re of this.promoPatternRes) collect(re, 'promo');
      for (const re of this.sizePatternRes) collect(re, 'size');
      collect(this.countRe, 'size', (m) => !this.words.countNamed.has((m[2] ?? '').toLowerCase()));
      collect(this.countOfPiecesRe, 'size', (m) => !this.words.countNamed.has((m[1] ?? '').toLowerCase()));
    } else if (this.spelledServingCueRe.test(s)) {
      // Head counts and pack counts spelled out ("Thali (Serves One)", "Naan Set Of Two", "for Two").
      for (const re of this.sizePatternRes) collect(re, 'size');
    }
    collect(this.spelledQuantityRe, 'size');
    const hasBracket = /[([{]/u.test(s);
    if (this.wordCountCueRe.test(s)) collect(this.wordCountRe, 'size');
    if (hasBracket) {
      collect(this.bracketedSizeRe, 'size');
      collect(BRACKETED_MARK_RE, 'decoration');
      collect(COUNTED_BRACKET_RE, 'size', (m) => namesOutside(s, m, m[1]!) || this.isMisspelledPieceWord(m[1]!));
      collect(this.offerBracketRe, 'promo');
    }
    collect(this.promoRe, 'promo', (m) => {
      const word = m[0].toLowerCase().replace(/[\s-]+/gu, ' ');
      if (word === 'free' && this.freeFromRe.test(s.slice(0, m.index))) return false;
      // A leading "New" is the menu's label unless the next word makes a name with it (York, Delhi, Year).
      if (this.words.leadingPromo.has(word) && s.slice(0, m.index).trim() === '') {
        const next = /^\s*(\p{L}+)/u.exec(s.slice(m.index + m[0].length))?.[1]?.toLowerCase();
        if (next !== undefined && !this.words.leadingPromoName.has(next)) return true;
      }
      return !this.words.edgeOnlyPromo.has(word) || this.atEdge(s, m) || isShouting(m[0]);
    });
    const halves = /half/iu.test(s) ? [...s.matchAll(HALF_AND_HALF_RE)].map((h) => [h.index, h.index + h[0].length] as const) : [];
    collect(this.sizeRe, 'size', (m) => {
      const written = m[0].toLowerCase();
      const word = this.misspellings.get(written)?.toLowerCase() ?? written;
      if (halves.some(([from, to]) => m.index >= from && m.index < to)) return false;
      const after = s.slice(m.index + m[0].length);
      // A size word that names something else with the next word ("Medium Rare", "Small Onion Sambar": shallots).
      const nextWord = /^\s*(\p{L}+)/u.exec(after)?.[1]?.toLowerCase();
      if (nextWord !== undefined && this.words.sizeNames.has(`${word} ${nextWord}`)) return false;
      // "Half Cheese Half Sausage Corn Dog" splits the dish in two; it is not a portion.
      if (this.words.leadingPortion.has(word) && s.slice(0, m.index).trim() === '' && !/\bhalf\b/iu.test(after)) {
        const next = /^\s*([\p{L}&]+)/u.exec(after)?.[1]?.toLowerCase();
        if (next !== undefined && !this.words.leadingPortionName.has(next)) return true;
      }
      return !this.words.edgeOnlySize.has(word) || this.atEdge(s, m) || onlyNoiseAfter(s, m, spans) || (this.words.vesselSize.has(word) && this.sizesServing(s, m, word)) || (this.words.partStartSize.has(word) && PART_START_RE.test(s.slice(0, m.index)));
    });
    if (hasBracket && spans.length > 0) this.portionBrackets(s, spans);
    s = this.removeSpans(s, spans, removed);

    // A trailing bare number of 3+ digits is a price ("Chicken Biryani 299", "… 299."), unless the name owns it
    // (Chicken 555); so is one of two digits after a full stop, which closed the name ("Samosa. 62").
    s = s.replace(/(\s)(\d{3,5}(?:\.\d{1,2})?|(?<=\.\s+)\d{2})\.?\s*$/u, (m, sp: string, num: string) => {
      if (this.words.namedNumbers.has(num) || !/\p{L}/u.test(s.slice(0, s.length - m.length))) return m;
      removed.push({ kind: 'price', text: num });
      return sp;
    });

    // Brackets: drop the empty ones left by noise removal, unwrap the ones that still hold dish words.
    if (hasBracket) {
      // Connectors orphaned at a bracket's edge by the removals: "( High Protein & Gluten Free )" → "( & Gluten Free )".
      // Several removals in a row leave several: "[Half, 4 Pcs, Marinated]" → "[ ,  , Marinated]".
      s = s.replace(/(?<=[([{])(?:\s*[-–—&,/+]+)+(?=\s)/gu, ' ').replace(/(?<=\s)(?:[-–—&,/+]+\s*)+(?=[)\]}])/gu, ' ');
      // A bracket left holding only filler or a bare count ("[52 - High Protein]" → "[52 - ]") goes too.
      s = s.replace(/[([{]\s*[-,:;/.+x×\s]*(?:\d{1,3}[-,:;/.+x×\s]*)?[)\]}]/gi, ' ');
      s = s.replace(/[()[\]{}]/g, ' ');
    }
    s = s.replace(DECORATION_RE, (m) => {
      removed.push({ kind: 'decoration', text: m });
      return ' ';
    });
    // A full stop after a word or a number is punctuation, never part of a dish name ("Veg. Deluxe", "Fries (M).",
    // "Lem...", "Paneer 555."); a decimal point has a digit after it.
    if (s.includes('.')) {
      s = s.replace(/(?<=\p{L}|\p{N}|[)\]}]|\s|^)\.+(?=\s|$|[)\]}])/gu, (m) => {
        removed.push({ kind: 'decoration', text: m });
        return ' ';
      });
    }
    // "N Veg" / "N. Veg" is the menu shorthand for non-veg; the misspelling table would otherwise read the N as "and".
    if (/n\.?[\s-]+veg/iu.test(s)) {
      s = s.replace(/(?<![\p{L}\p{N}'’])(n)\.?[\s-]+(veg)(?!\p{L})/giu, (m, n: string, veg: string) => {
        const to = `${n === 'N' ? 'Non' : 'non'} ${veg}`;
        corrections.push({ from: m, to });
        return to;
      });
    }

    if (hasIndicScript(s)) {
      s = s.replace(/[\u0900-\u0D7F]+(?:[\s\u0900-\u0D7F]*[\u0900-\u0D7F])?/g, (m) => {
        const latin = transliterateIndic(m, this.devanagari).trim();
        corrections.push({ from: m, to: latin });
        return ` ${latin} `;
      });
    }

    const words = this.correctWords(s, corrections);
    const text = this.tidy(words.folded, original);
    return { original, text, name: words.shown === words.folded ? text : this.tidy(words.shown, original), removed, corrections };
  }

  /** The last pass over a cleaned string: spacing, separators left dangling at the ends, one spelling of "+". */
  private tidy(cleaned: string, original: string): string {
    let s = cleaned
      .replace(/\s+/g, ' ')
      // Commas that only had a removed part between them are one: "Spicy, Serves 2, Boneless" → "Spicy, , Boneless".
      .replace(/,(?:\s*,)+/g, ',')
      .replace(/\s+([,.;:])/g, '$1')
      .replace(/^[\s\-–—,.;:/+&|]+/u, '')
      .replace(/[\s\-–—,;:/+&|]+$/u, '')
      // A separator standing alone between spaces goes, but for a slash between two kept words: "Vegan / Gluten Free"
      // lists two things the dish is, as "Roti/Chawal" lists two it comes with.
      .replace(/(?<=\s)[-–—/|,]+(?=\s)/gu, (m, at: number, str: string) => (m === '/' && /\p{L}\s$/u.test(str.slice(0, at)) && /^\s\p{L}/u.test(str.slice(at + 1)) ? m : ' '))
      // A dash a removal left glued to the next word ("Combo for 4-Cola" → "Combo -Cola"): no word starts with one.
      .replace(/(?<=\s)[-–—]+(?=\p{L})/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    // A slash keeps hold of the word it was attached to when a count after it goes ("Roti/2 Naan" → "Roti/Naan").
    if (s.includes('/')) s = s.replace(/(?<=[\p{L}\p{N}])\/ (?=\p{L})/gu, '/');
    // One spelling of a combo: "Burger+Fries" and "Burger + Fries" are the same text to the models.
    // A doubled "+" ("Rice++Roti", or one a removed count left behind) is one join.
    if (s.includes('+')) s = s.replace(/(?<=[\p{L}\p{N}]) ?(?:\+ ?)+(?=[\p{L}\p{N}])/gu, ' + ');
    // Never return an empty name: a text made only of "noise" (e.g. "Regular") is itself the name.
    if (s === '') s = original.normalize('NFKC').replace(EMOJI_RE, ' ').replace(/\s+/g, ' ').trim();
    return s;
  }

  private atEdge(s: string, m: RegExpExecArray): boolean {
    const before = s.slice(0, m.index);
    const after = s.slice(m.index + m[0].length);
    // The start of the text alone is not an edge: "Full English Breakfast", "New York Cheesecake" lead with them.
    const edgeBefore = /([([{\-–—|/:,]\s*)$/u.test(before);
    // A price after the word ends the name too: "Paneer Butter Masala Half ₹220".
    const edgeAfter = /^(\s*[)\]}\-–—|/:,!]|\s*$|\s*(?:₹|rs\.?|inr|\$)\s*\d)/iu.test(after);
    return edgeBefore || edgeAfter;
  }

  /**
   * Whether the vessel_size word matched at `m` sizes the serving rather than naming the dish: the rest of its part is
   * a vessel, alone or after one grain or group word ("<size> <vessel>", "<size> <grain> <vessel>"), or ends with a
   * grain ("<size> <words> <grain>"), and no dish name holds these words.
   */
  private sizesServing(s: string, m: RegExpExecArray, word: string): boolean {
    const rest = /^((?:\s+[\p{L}&'’]+){1,5}?)\s*(?:$|[+,;:|/()[\]{}]|[-–—]\s)/u.exec(s.slice(m.index + m[0].length));
    if (rest === null) return false;
    const words = rest[1]!.trim().toLowerCase().split(/\s+/u);
    const last = words.at(-1)!;
    const singular = (w: string): string[] => [w, w.replace(/s$/u, ''), w.replace(/es$/u, '')];
    const vessel = singular(last).some((w) => this.vessels.has(w));
    const sized = vessel
      ? words.length === 1 || (words.length === 2 && singular(words[0]!).some((w) => this.grains.has(w) || this.groups.has(w)))
      : singular(last).some((w) => this.grains.has(w));
    if (!sized) return false;
    const phrase = ` ${word} ${words.join(' ')} `;
    return !this.vesselSizedNames.some((name) => name.includes(phrase) || phrase.includes(name));
  }

  /**
   * A bracket that holds a size or a count and otherwise only says how the item is portioned goes whole: its other
   * words are piece words, number words, sizes, portion_note words, the units and packs a portion comes in and words of
   * the name outside it ("<dish> [<size> <dish word> in <count> <piece>]", "(250gm Box)"). Adds the brackets' spans to `spans`.
   */
  private portionBrackets(s: string, spans: Span[]): void {
    for (const b of s.matchAll(/[([{]([^()[\]{}]*)[)\]}]/gu)) {
      const from = b.index, to = b.index + b[0].length;
      const inside = spans.filter((sp) => sp.kind === 'size' && sp.start > from && sp.end < to);
      if (inside.length === 0) continue;
      // Blank the size spans out (they may overlap: "12 Pcs" is both a count and a quantity).
      const rest = b[0].slice(1, -1).split('').map((c, i) => (inside.some((sp) => i >= sp.start - from - 1 && i < sp.end - from - 1) ? ' ' : c)).join('');
      const words = rest.toLowerCase().split(/[^\p{L}]+/u).filter((w) => w !== '');
      if (words.length === 0) continue;
      const outside = stemsOutside(s, from, to);
      const portion = (w: string): boolean =>
        this.words.portionNote.has(w) || this.pieceWords.has(w) || this.sizeWords.has(w) || this.words.edgeOnlySize.has(w) ||
        this.numberWords.has(w) || [w, w.replace(/e?s$/u, ''), w.replace(/s$/u, '')].some((u) => this.portionUnits.has(u)) || outside.has(pluralStem(w));
      if (words.every(portion)) spans.push({ start: from, end: to, kind: 'size' });
    }
  }

  private removeSpans(s: string, spans: Span[], removed: RemovedNoise[]): string {
    if (spans.length === 0) return s;
    spans.sort((a, b) => a.start - b.start || b.end - a.end);
    let out = '';
    let pos = 0;
    for (const span of spans) {
      if (span.start < pos) continue; // overlapped by an earlier, longer span
      out += s.slice(pos, span.start) + ' ';
      removed.push({ kind: span.kind, text: s.slice(span.start, span.end).trim() });
      pos = span.end;
    }
    return out + s.slice(pos);
  }

  /**
   * Each word corrected: `folded` with every listed fold and typo fix, `shown` without the folds of spellings menus
   * write on purpose (they stay as the menu wrote them).
   */
  private correctWords(s: string, corrections: Correction[]): { shown: string; folded: string } {
    const tokens = s.split(/(\s+)/);
    const shown = [...tokens];
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i]!;
      if (!tok.trim()) continue;
      const m = /^([^\p{L}\p{N}]*)([\p{L}\p{N}][\p{L}\p{N}'’./-]*[\p{L}\p{N}]|[\p{L}\p{N}])([^\p{L}\p{N}]*)$/u.exec(tok);
      if (!m) continue;
      const [, pre, core, post] = m as unknown as [string, string, string, string];
      const lower = core.toLowerCase();
      let fixed: string | null = null;
      let kept = false;
      let shownFix: string | null = null;
      const mapped = this.misspellings.get(lower) ?? this.misspellings.get(lower + (post.startsWith('/') ? '/' : ''));
      if (mapped !== undefined) {
        // "n" means "and" only between two words ("Mac n Cheese"), never as a lone first or last token.
        if (lower === 'n' && (i === 0 || i === tokens.length - 1)) continue;
        if (this.keptSpellings.has(lower) && this.inKeptName(tokens, i, lower)) continue;
        fixed = mapped;
        kept = this.variants.has(lower) || this.variants.has(lower + (post.startsWith('/') ? '/' : ''));
      } else if (/([a-z])\1\1/.test(lower) && !this.vocabulary.has(lower)) {
        // A letter held down ("Dahiiiiii", "Laddooo"): the word with the run made double, else single, if that is a word.
        const double = lower.replace(/([a-z])\1{2,}/g, '$1$1'), single = lower.replace(/([a-z])\1{2,}/g, '$1');
        const known = (w: string): string | null => (this.vocabulary.has(w) ? w : this.misspellings.get(w) ?? null);
        const spelled = [double, single].find((w) => this.vocabulary.has(w) || this.misspellings.has(w));
        const near = spelled ?? (double.length >= this.spelling.menuTypoMinLetters ? this.nearest(double) : null);
        fixed = near === null ? null : this.misspellings.get(near) ?? near;
        shownFix = near !== null && this.variants.has(near) ? near : null;
      } else if (/^[a-z]{4,}$/.test(lower) && !/\p{Ll}\p{Lu}/u.test(core) && !this.vocabulary.has(lower) && !this.lexicon.realWords.has(lower) && !this.isInflection(lower)) {
        // camelCase words are brand names (McVeggie, MaharajMac, BreadStix), not typos.
        const near = this.nearest(lower);
        fixed = near === null ? this.gluedWords(lower) : this.misspellings.get(near) ?? near;
        // A typo of a deliberate spelling is shown as that spelling ("Biriyanni" → "Biriyani"), read as its fold.
        shownFix = near !== null && this.variants.has(near) ? near : null;
        // A word that differs from a word of Indian dishes only as two romanisations of one Hindi or Urdu word differ
        // is a spelling the menu chose: it is read as the known word and shown as written.
        kept = near !== null && this.lexicon.indianWords.has(near) && isRomanisationVariant(lower, near);
      }
      if (fixed === null && /^[a-z]{3,}$/.test(lower) && !this.vocabulary.has(lower) && !this.lexicon.realWords.has(lower) && !this.isInflection(lower)) {
        fixed = this.dishNeighbourFix(wordBefore(tokens, i), lower);
      }
      if (fixed !== null && fixed.toLowerCase() !== lower) {
        const styled = caseLike(core, fixed);
        corrections.push({ from: core, to: styled });
        // "Hot 'N' Cheezy": apostrophes around a folded "n" only marked the shortening.
        const punct = (p: string): string => (lower === 'n' ? p.replace(/['’]/gu, '') : p);
        tokens[i] = punct(pre) + styled + punct(post);
        if (!kept) shown[i] = shownFix === null ? tokens[i]! : pre + caseLike(core, shownFix) + post;
      }
    }
    return { shown: shown.join(''), folded: tokens.join('') };
  }

  /**
   * The one vocabulary word a single edit from `word` (anywhere in it, the end too) that makes two neighbouring words
   * of a dish name with the word before it, where `word` itself does not: a short word or a word cut short at the end
   * of a dish name ("Rie" after a word a dish name puts before "rice"). The dish name it ends is the evidence the
   * edit budget of short words and the refusal of end edits otherwise ask for. The word after is no such evidence: a
   * name's first words are its own more often than a dish's (a place name before "Chicken" is not a dish word typed
   * wrong). Connectives (and, with) are never what a typo meant. Else null.
   */
  private dishNeighbourFix(before: string | null, word: string): string | null {
    if (before === null) return null;
    const bigrams = this.lexicon.dishBigrams;
    const pairs = (w: string): boolean => bigrams.has(`${before} ${w}`);
    if (pairs(word)) return null;
    const found = new Set<string>();
    for (const cand of this.buckets.get(word[0]!) ?? []) {
      if (Math.abs(cand.length - word.length) > 1 || !this.vocabulary.has(cand) || this.connectives.has(cand) || !pairs(cand)) continue;
      if (editDistance(word, cand, 1) <= 1) found.add(cand);
    }
    return found.size === 1 ? [...found][0]! : null;
  }

  /** Whether the word at token `i` stands inside a dish name that spells it on purpose (keptSpellings). */
  private inKeptName(tokens: readonly string[], i: number, lower: string): boolean {
    // Word tokens only, lower-cased and stripped of punctuation, with the position of token i among them.
    const words: string[] = [];
    let at = -1;
    for (let t = 0; t < tokens.length; t++) {
      const word = tokens[t]!.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
      if (word === '') continue;
      if (t === i) at = words.length;
      words.push(word);
    }
    return this.keptSpellings.get(lower)!.some((name) =>
      name.some((w, j) => w === lower && at - j >= 0 && name.every((n, k) => words[at - j + k] === n)),
    );
  }

  /** A listed misspelling of a piece word ("[2 Piceces]", "[5 Pices]"): the unit patterns know only its right spelling. */
  private isMisspelledPieceWord(word: string): boolean {
    const right = this.misspellings.get(word.toLowerCase());
    return right !== undefined && this.pieceWords.has(right);
  }

  /**
   * Two vocabulary words typed without the space between them ("Friedrice", "Afghanichicken"), when the word splits
   * into two such words (each at least lexicon/spelling.tsv's split part long) in exactly one way; else null.
   */
  private gluedWords(word: string): string | null {
    return splitInTwo(word, (w) => this.vocabulary.has(w), this.spelling.splitPartMinLetters)?.join(' ') ?? null;
  }

  /** A plural or singular of a vocabulary word ("Pizzas", "Specials", "Strip") is a real word, not a typo. */
  private isInflection(word: string): boolean {
    const v = this.vocabulary;
    if (word.endsWith('ies') && v.has(withoutEnding(word, 'ies') + 'y')) return true;
    if (word.endsWith('es') && v.has(withoutEnding(word, 'es'))) return true;
    if (word.endsWith('s') && v.has(withoutEnding(word, 's'))) return true;
    return v.has(word + 's') || v.has(word + 'es');
  }

  /** The one vocabulary word or listed spelling that is `word` with two neighbouring letters swapped, else null. */
  private swappedWord(word: string): string | null {
    const found = new Set<string>();
    for (let i = 0; i + 1 < word.length; i++) {
      if (word[i] === word[i + 1]) continue;
      const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      if (this.vocabulary.has(swapped) || this.misspellings.has(swapped)) found.add(swapped);
    }
    return found.size === 1 ? [...found][0]! : null;
  }

  /**
   * The unique nearest vocabulary word or listed spelling within a small edit distance (as written; the caller folds
   * it), else null (unknown words stay as they are).
   * Words shorter than lexicon/spelling.tsv's menu typo length get only a swap of two neighbouring letters (Party/Patty,
   * Grand/Grande, Jello/Jelly are all real), two edits are allowed only from its menu two-typo length, and an edit
   * confined to the end of the word is refused: it turns real words
   * into neighbours (Mughal → Mughali, Twisted → Twister) far more often than it fixes a typo, except a stuttered final
   * letter ("Laddooo", "Parathaa").
   */
  private nearest(word: string): string | null {
    return this.fuzzyMemo.get(word, () => this.nearestWord(word));
  }

  private nearestWord(word: string): string | null {
    // Short words: only two neighbouring letters swapped ("Garvy", "Riec"); other single edits of words that short
    // turn real words into other real ones (Party/Patty, Grand/Grande).
    const max = menuTypoBudget(this.spelling, word.length);
    if (max === 0) return this.swappedWord(word) ?? this.undoubledWord(word);
    let best: string[] = [];
    let bestD = max + 1;
    for (const cand of this.buckets.get(word[0]!) ?? []) {
      if (Math.abs(cand.length - word.length) > max || cand.length < this.spelling.typoMinLetters || isTailEdit(word, cand)) continue;
      const d = editDistance(word, cand, max);
      if (d < bestD) {
        best = [cand];
        bestD = d;
      } else if (d === bestD && d <= max) {
        best.push(cand);
      }
    }
    if (bestD > max || best.length === 0) return this.soundAlike(word, max + 1);
    // Nearest candidates that are listed spellings of one word are that word, not a tie ("Masalaa": masala, masaala,
    // masalla).
    const meant = new Set(best.map((c) => this.misspellings.get(c) ?? c));
    return meant.size === 1 ? (best.length === 1 ? best[0]! : [...meant][0]!) : null;
  }

  /**
   * The one vocabulary word (or listed spelling, as its word) that sounds as `word` does, has its vowels and is
   * within `edits` of it: a word spelled by ear with other consonants for one sound ("Kukumber", "Focassia"), which
   * the edit budget of its length falls one short of and whose first letter may differ. The vowels must agree because
   * the sound key drops them: "Kalimiri" (black pepper) is not "Kalamari". Else null.
   */
  private soundAlike(word: string, edits: number): string | null {
    const vowels = (w: string): string => w.replace(/[^aeiou]/g, '');
    const key = soundKey(word);
    // Fewer than three consonant sounds, or fewer than seven letters, leave too little to tell words apart
    // ("Peppery" / "Pepper", "Saraid" / "Sardai").
    if (key.length < 3 || word.length < 7) return null;
    const meant = new Set<string>();
    for (const cand of this.soundBuckets().get(key) ?? []) {
      if (vowels(cand) === vowels(word) && editDistance(word, cand, edits) <= edits && !isTailEdit(word, cand)) meant.add(this.misspellings.get(cand) ?? cand);
    }
    return meant.size === 1 ? [...meant][0]! : null;
  }

  private soundIndex: Map<string, string[]> | null = null;

  private soundBuckets(): ReadonlyMap<string, readonly string[]> {
    if (this.soundIndex === null) {
      this.soundIndex = new Map();
      for (const list of this.buckets.values()) {
        for (const w of list) {
          const key = soundKey(w);
          const bucket = this.soundIndex.get(key) ?? [];
          bucket.push(w);
          this.soundIndex.set(key, bucket);
        }
      }
    }
    return this.soundIndex;
  }

  /**
   * The vocabulary word that is `word` with its last letter typed once ("Rotii"), else null. A doubled letter inside
   * a short word is a spelling more often than a typo (Shaan, Belle, Paan).
   */
  private undoubledWord(word: string): string | null {
    const single = word.slice(0, -1);
    if (word.at(-1) !== word.at(-2) || single.length < this.spelling.typoMinLetters) return null;
    return this.vocabulary.has(single) || this.misspellings.has(single) ? single : null;
  }
}

/** The lower-case word of the last word token before token `i`, or null at the start. */
function wordBefore(tokens: readonly string[], i: number): string | null {
  for (let j = i - 1; j >= 0; j--) {
    const word = tokens[j]!.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    if (word !== '') return word;
  }
  return null;
}

/**
 * True when `a` and `b` agree on everything but the tail after the shorter word's last-but-one letter
 * (Mughal/Mughali, Twisted/Twister, MaharajMac/Maharaja), bar a stuttered last letter (Parathaa, Laddooo).
 */
function isTailEdit(a: string, b: string): boolean {
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  let prefix = 0;
  while (prefix < short.length && long[prefix] === short[prefix]) prefix++;
  if (prefix < short.length - 1) return false;
  const stutter = prefix === short.length && /^(.)\1*$/u.test(long.slice(short.length - 1));
  // A letter typed twice near the end is a stutter too ("Kulffi", "Chaapp"): the long word is the short one with one
  // of its letters doubled.
  const doubled = long.length === short.length + 1 && prefix >= 1 && long[prefix] === long[prefix - 1] && long.slice(prefix + 1) === short.slice(prefix);
  return !stutter && !doubled;
}

/**
 * Whether `a` and `b` differ by one edit that romanising Hindi and Urdu words makes either way: the short "a" written
 * or left out between two consonants (Tangadi/Tangdi), an "h" of breath after a consonant written or left out
 * (Bhukhara/Bukhara), or the flapped d written as "d" or "r" (Marwadi/Marwari). A doubled letter is not among them:
 * it is a typo (Biryaani, Kulffi).
 */
export function isRomanisationVariant(a: string, b: string): boolean {
  const consonant = (c: string | undefined): boolean => c !== undefined && /[bcdfghjklmnpqrstvwxz]/u.test(c);
  if (a.length === b.length) {
    let diff = -1;
    for (let i = 0; i < a.length; i++) {
      if (a[i] === b[i]) continue;
      if (diff >= 0) return false;
      diff = i;
    }
    return diff >= 0 && new Set([a[diff], b[diff]]).size === 2 && [a[diff], b[diff]].every((c) => c === 'd' || c === 'r');
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  if (long.length !== short.length + 1) return false;
  let i = 0;
  while (i < short.length && long[i] === short[i]) i++;
  if (long.slice(i + 1) !== short.slice(i)) return false;
  // long[i] is the added letter; the letters around it are long[i - 1] and long[i + 1].
  const added = long[i]!, before = long[i - 1], after = long[i + 1];
  if (added === 'a') return consonant(before) && consonant(after);
  return added === 'h' && consonant(before) && before !== 'h';
}

function isShouting(s: string): boolean {
  return s.length > 1 && s === s.toUpperCase() && /[A-Z]/.test(s);
}
