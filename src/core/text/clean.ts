import { join } from 'node:path';
import { KNOWLEDGE_DIR } from '../paths.js';
import { readList, readTsv } from '../knowledge/tsv.js';
import { loadDishBook } from '../knowledge/dishes.js';
import { buildDevanagariDictionary, hasDevanagari, transliterateDevanagari } from '../knowledge/transliterate.js';

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
  /** The dish name: what the models see. */
  readonly text: string;
  /** Noise that was stripped (prices, sizes, promo labels, emojis, decoration), in order of removal. */
  readonly removed: readonly RemovedNoise[];
  /** Misspellings and abbreviations that were folded, and Devanagari words that were transliterated. */
  readonly corrections: readonly Correction[];
}

export interface CleaningLexicon {
  readonly promo: readonly string[];
  readonly sizes: readonly string[];
  readonly misspellings: ReadonlyMap<string, string>;
  /** Lower-case words that are never "corrected": every word of the dish names and aliases plus menu_words.txt. */
  readonly vocabulary: ReadonlySet<string>;
  /** Devanagari word → menu spelling, learned from the dishes' Devanagari aliases. */
  readonly devanagari: ReadonlyMap<string, string>;
}

/** Reads the cleaning vocabularies from the knowledge base (the one source of truth for food words). */
export function loadCleaningLexicon(dir: string = KNOWLEDGE_DIR): CleaningLexicon {
  const lex = join(dir, 'lexicon');
  const misspellings = new Map<string, string>();
  for (const row of readTsv(join(lex, 'misspellings.tsv'), ['wrong', 'right'])) {
    const [wrong, right] = row.cells;
    if (!wrong || !right) throw new Error(`${row.file}:${row.line}: expected "wrong<TAB>right"`);
    misspellings.set(wrong.toLowerCase(), right);
  }
  const vocabulary = new Set<string>(readList(join(lex, 'menu_words.txt')).map((w) => w.toLowerCase()));
  const addWords = (text: string): void => {
    for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w.length > 1) vocabulary.add(w);
  };
  const book = loadDishBook(dir);
  for (const dish of book.dishes) {
    addWords(dish.name);
    for (const a of dish.aliases) addWords(a);
  }
  for (const right of misspellings.values()) addWords(right);
  // A misspelling must never be a vocabulary word itself, or the table and the vocabulary would disagree.
  for (const wrong of misspellings.keys()) vocabulary.delete(wrong);
  return {
    promo: readList(join(lex, 'promo.txt')).map((p) => p.toLowerCase()),
    sizes: readList(join(lex, 'sizes.txt')).map((p) => p.toLowerCase()),
    misspellings,
    vocabulary,
    devanagari: buildDevanagariDictionary(book.dishes),
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
  new RegExp(`${WB_START}\\d[\\d,]*(?:\\.\\d+)?\\s*(?:/-|rs\\.?|inr|rupees|₹)${WB_END}`, 'giu'),
  new RegExp(`${WB_START}\\d[\\d,]*(?:\\.\\d+)?\\s*/-`, 'gu'),
  /@\s*\d[\d,]*(?:\.\d+)?/gu,
];
const PROMO_PATTERN_RES: readonly RegExp[] = [
  new RegExp(`${WB_START}(?:up\\s*to\\s+|flat\\s+)?\\d+(?:\\.\\d+)?\\s*%\\s*(?:off|discount|cashback)?${WB_END}`, 'giu'),
  new RegExp(`${WB_START}buy\\s*(?:\\d+|one|two)\\s*get\\s*(?:\\d+|one|two)(?:\\s*free)?${WB_END}`, 'giu'),
  new RegExp(`${WB_START}(?:free\\s+delivery|free\\s+(?:coke|pepsi|drink|dessert)\\s+inside)${WB_END}`, 'giu'),
];
const UNIT = '(?:ml|l|ltr|ltrs|litre|litres|liter|liters|cl|oz|fl\\.?\\s?oz|g|gm|gms|gr|gram|grams|kg|kgs|lb|lbs|pcs?|pieces?|nos?|units?|slices?|scoops?|inch|inches|cm|pax|plates?|portions?|cups?|glass(?:es)?|bottles?|cans?)';
const SIZE_PATTERN_RES: readonly RegExp[] = [
  new RegExp(`${WB_START}serves?\\s*:?\\s*\\d+(?:\\s*(?:-|to)\\s*\\d+)?(?:\\s*(?:people|persons?|pax|guests?))?${WB_END}`, 'giu'),
  new RegExp(`${WB_START}(?:feeds|for)\\s+\\d+(?:\\s*(?:-|to)\\s*\\d+)?\\s*(?:people|persons?|pax|guests?)${WB_END}`, 'giu'),
  new RegExp(`${WB_START}pack\\s+of\\s+\\d+${WB_END}`, 'giu'),
  new RegExp(`${WB_START}(?:\\d+\\s*/\\s*\\d+|\\d+(?:\\.\\d+)?)\\s*${UNIT}${WB_END}`, 'giu'),
  new RegExp(`${WB_START}(?:x\\s*\\d+|\\d+\\s*x)${WB_END}`, 'giu'),
  new RegExp(`${WB_START}\\d+(?:\\.\\d+)?\\s*"`, 'gu'),
];
/** Portion words that are part of real dish names when they lead ("Full English Breakfast", "Half Fry"). */
const EDGE_ONLY_SIZES = new Set(['half', 'full', 'quarter', 'single', 'personal']);
/** Promo words that are ordinary words inside names ("New York Cheesecake"): stripped only at an edge or in CAPS. */
const EDGE_ONLY_PROMO = new Set(['new', 'offer', 'sale', 'popular', 'trending', 'exclusive', 'signature', 'discounted']);
/** Bare numbers that are part of dish names; any other trailing number of 3+ digits is a price. */
const NAMED_NUMBERS = new Set(['65', '555', '999', '90', '1947']);

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

/** Damerau-Levenshtein (optimal string alignment) distance with an early exit above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    for (let j = 0; j <= b.length; j++) prev2[j] = prev[j]!;
    prev = cur;
  }
  return prev[b.length]!;
}

export class TextCleaner {
  private readonly promoRe: RegExp;
  private readonly sizeRe: RegExp;
  private readonly misspellings: ReadonlyMap<string, string>;
  private readonly vocabulary: ReadonlySet<string>;
  private readonly devanagari: ReadonlyMap<string, string>;
  /** vocabulary bucketed by first letter, for the fuzzy corrector. */
  private readonly buckets = new Map<string, string[]>();
  private readonly fuzzyMemo = new Map<string, string | null>();

  constructor(lexicon: CleaningLexicon) {
    this.promoRe = new RegExp(`${WB_START}(?:${alternation(lexicon.promo)})${WB_END}`, 'giu');
    this.sizeRe = new RegExp(`${WB_START}(?:${alternation(lexicon.sizes)})${WB_END}`, 'giu');
    this.misspellings = lexicon.misspellings;
    this.vocabulary = lexicon.vocabulary;
    this.devanagari = lexicon.devanagari;
    for (const w of lexicon.vocabulary) {
      if (!/^[a-z]+$/.test(w)) continue;
      const list = this.buckets.get(w[0]!) ?? [];
      list.push(w);
      this.buckets.set(w[0]!, list);
    }
  }

  clean(input: string): CleanedText {
    const original = input;
    const removed: RemovedNoise[] = [];
    const corrections: Correction[] = [];
    let s = input.normalize('NFKC');

    s = s.replace(EMOJI_RE, (m) => {
      removed.push({ kind: 'emoji', text: m });
      return ' ';
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
      for (const re of PROMO_PATTERN_RES) collect(re, 'promo');
      for (const re of SIZE_PATTERN_RES) collect(re, 'size');
    }
    collect(this.promoRe, 'promo', (m) => !EDGE_ONLY_PROMO.has(m[0].toLowerCase()) || this.atEdge(s, m) || isShouting(m[0]));
    collect(this.sizeRe, 'size', (m) => {
      const word = m[0].toLowerCase();
      if (word === 'medium' && /^\s*rare/i.test(s.slice(m.index + m[0].length))) return false;
      return !EDGE_ONLY_SIZES.has(word) || this.atEdge(s, m);
    });
    s = this.removeSpans(s, spans, removed);

    // A trailing bare number of 3+ digits is a price ("Chicken Biryani 299"), unless the name owns it (Chicken 555).
    s = s.replace(/(\s)(\d{3,5}(?:\.\d{1,2})?)\s*$/u, (m, sp: string, num: string) => {
      if (NAMED_NUMBERS.has(num) || !/\p{L}/u.test(s.slice(0, s.length - m.length))) return m;
      removed.push({ kind: 'price', text: num });
      return sp;
    });

    // Brackets: drop the empty ones left by noise removal, unwrap the ones that still hold dish words.
    s = s.replace(/[([{]\s*[-,:;/.+\s]*\s*[)\]}]/g, ' ');
    s = s.replace(/[()[\]{}]/g, ' ');
    s = s.replace(DECORATION_RE, (m) => {
      if (/^[!?]+$/.test(m) === false || m.length > 0) removed.push({ kind: 'decoration', text: m });
      return ' ';
    });

    if (hasDevanagari(s)) {
      s = s.replace(/[\u0900-\u097F]+(?:[\s\u0900-\u097F]*[\u0900-\u097F])?/g, (m) => {
        const latin = transliterateDevanagari(m, this.devanagari).trim();
        corrections.push({ from: m, to: latin });
        return ` ${latin} `;
      });
    }

    s = this.correctWords(s, corrections);
    s = s
      .replace(/\s+/g, ' ')
      .replace(/\s+([,.;:])/g, '$1')
      .replace(/^[\s\-–—,.;:/+&|]+/u, '')
      .replace(/[\s\-–—,;:/+&|]+$/u, '')
      .replace(/(?<=\s)[-–—/|,]+(?=\s)/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    // Never return an empty name: a text made only of "noise" (e.g. "Regular") is itself the name.
    if (s === '') s = original.normalize('NFKC').replace(EMOJI_RE, ' ').replace(/\s+/g, ' ').trim();
    return { original, text: s, removed, corrections };
  }

  private atEdge(s: string, m: RegExpExecArray): boolean {
    const before = s.slice(0, m.index);
    const after = s.slice(m.index + m[0].length);
    // The start of the text alone is not an edge: "Full English Breakfast", "New York Cheesecake" lead with them.
    const edgeBefore = /([([{\-–—|/:,]\s*)$/u.test(before);
    const edgeAfter = /^(\s*[)\]}\-–—|/:,!]|\s*$)/u.test(after);
    return edgeBefore || edgeAfter;
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

  private correctWords(s: string, corrections: Correction[]): string {
    const tokens = s.split(/(\s+)/);
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i]!;
      if (!tok.trim()) continue;
      const m = /^([^\p{L}\p{N}]*)([\p{L}\p{N}][\p{L}\p{N}'’./-]*[\p{L}\p{N}]|[\p{L}\p{N}])([^\p{L}\p{N}]*)$/u.exec(tok);
      if (!m) continue;
      const [, pre, core, post] = m as unknown as [string, string, string, string];
      const lower = core.toLowerCase();
      let fixed: string | null = null;
      const mapped = this.misspellings.get(lower) ?? this.misspellings.get(lower + (post.startsWith('/') ? '/' : ''));
      if (mapped !== undefined) {
        // "n" means "and" only between two words ("Mac n Cheese"), never as a lone first or last token.
        if (lower === 'n' && (i === 0 || i === tokens.length - 1)) continue;
        fixed = mapped;
      } else if (/^[a-z]{5,}$/.test(lower) && !this.vocabulary.has(lower)) {
        fixed = this.fuzzy(lower);
      }
      if (fixed !== null && fixed.toLowerCase() !== lower) {
        const styled = caseLike(core, fixed);
        corrections.push({ from: core, to: styled });
        tokens[i] = pre + styled + post;
      }
    }
    return tokens.join('');
  }

  /** The unique nearest vocabulary word within a small edit distance, else null (unknown words stay as they are). */
  private fuzzy(word: string): string | null {
    const memo = this.fuzzyMemo.get(word);
    if (memo !== undefined) return memo;
    const max = word.length >= 8 ? 2 : 1;
    let best: string | null = null;
    let bestD = max + 1;
    let tie = false;
    for (const cand of this.buckets.get(word[0]!) ?? []) {
      if (Math.abs(cand.length - word.length) > max || cand.length < 4) continue;
      const d = editDistance(word, cand, max);
      if (d < bestD) {
        best = cand;
        bestD = d;
        tie = false;
      } else if (d === bestD && d <= max) {
        tie = true;
      }
    }
    const result = bestD <= max && !tie ? best : null;
    if (this.fuzzyMemo.size < 100_000) this.fuzzyMemo.set(word, result);
    return result;
  }
}

function isShouting(s: string): boolean {
  return s.length > 1 && s === s.toUpperCase() && /[A-Z]/.test(s);
}

let defaultCleaner: TextCleaner | null = null;

/** The process-wide cleaner over the repository's knowledge base (loaded on first use). */
export function getTextCleaner(): TextCleaner {
  defaultCleaner ??= new TextCleaner(loadCleaningLexicon());
  return defaultCleaner;
}

export function clean(text: string): CleanedText {
  return getTextCleaner().clean(text);
}
