import { join } from 'node:path';
import { COURSES, CUISINE_LABELS, PROTEINS, TAGS } from './dishes.js';
import type { Course, Cuisine, Protein, Tag } from './dishes.js';
import { readRowPerKey, readTsv } from './tsv.js';
import { withoutEnding } from '../text/endings.js';

/**
 * Lexicon cues read straight off a menu-item text: diet, main protein, course and a cuisine hint.
 * They are the cheap, explainable layer under the models: match conflicts, dedup guards, cart filters and the
 * cuisine classifier's fallback all ask these first. Every answer carries the keywords that decided it.
 *
 * The lexicons (knowledge/lexicon/{diet,protein,category,cuisine_cues,flavours}.tsv) are loaded once, with the
 * knowledge base, into word tries; a call tokenises the text once and walks the tries, so the cost is a few map
 * lookups per word whatever the lexicon size.
 */

export interface Cue<T> {
  readonly value: T;
  /** 0..1; 0 only for `unknown` / null answers. */
  readonly confidence: number;
  /** The lexicon keywords that decided the answer, in text order. */
  readonly evidence: readonly string[];
}

export type DietCue = 'veg' | 'egg' | 'non_veg' | 'unknown';

/**
 * What a diet or protein reading rests on. `stated`: the text names it outright (a meat or an egg, a veg marker, a
 * named protein), so a query that says it means it; `implied`: read from words that usually carry it (keema,
 * pepperoni, veg ingredients, several proteins of which one leads); `none`: no reading.
 */
export type CueSupport = 'stated' | 'implied' | 'none';

/** A diet or protein reading: what the words say and how directly they say it. */
export interface SupportedCue<T> {
  readonly value: T;
  readonly support: CueSupport;
  /** The lexicon keywords that decided the answer, in text order. */
  readonly evidence: readonly string[];
}

export const DIET_CLASSES = [
  'non_veg', 'non_veg_default', 'egg', 'egg_free', 'veg_marker', 'veg_substitute', 'veg', 'egg_possible', 'neutral',
] as const;
/** How a diet.tsv keyword votes; the semantics are documented at the top of diet.tsv. */
export type DietClass = (typeof DIET_CLASSES)[number];

export const CUE_STRENGTHS = ['strong', 'weak'] as const;
export type CueStrength = (typeof CUE_STRENGTHS)[number];

/** `-` in protein.tsv: a phrase read as one unit that names no protein ("drumstick sambar", "eggless"). */
export type ProteinEntry = Protein | '-';

interface CuisineEntry {
  readonly cuisine: Cuisine;
  readonly strength: CueStrength;
}

// ---------------------------------------------------------------------------------------------------------------
// Text → words

/** A word of the menu text after folding; `seg` numbers the parts of a name (see `tokenizeMenuText`). */
export interface CueToken {
  readonly word: string;
  /** The word with a plural -s / -es removed, tried when the word itself is not in a lexicon. */
  readonly singulars: readonly string[];
  readonly seg: number;
  /**
   * Numbers the dish parts for cuisine: only hard breaks and "with"/"plus" separate dishes there, because "and"
   * mostly joins ingredients inside one dish name ("Paneer and Onion Pizza").
   */
  readonly dish: number;
  /** True when + , ( [ / … stands between this word and the previous one: no keyword spans it. */
  readonly hardBreakBefore: boolean;
  /** "and", "with", "n", "plus", "or": a part boundary that multi-word keywords may still span ("mac and cheese"). */
  readonly soft: boolean;
}

/** The words that separate the parts of a name (lexicon/boundary_words.tsv), as the tokenizer reads them. */
export interface TextBoundaries {
  /** "and", "with", "n", "plus", "or": part boundaries that multi-word keywords may still span. */
  readonly soft: ReadonlySet<string>;
  /** "with", "plus": boundaries between two dishes (for cuisine). */
  readonly dish: ReadonlySet<string>;
  /** From how many letters a word's final s may be a plural (lexicon/spelling.tsv). */
  readonly pluralMinLetters: number;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const DIGIT = /\p{N}/u;

/** How the tokeniser treats one character (plain numbers: this table is read once per character). */
const CharKind = {
  Space: 0,
  Letter: 1,
  Digit: 2,
  /** + , ; : / | ( ) [ ] { } < > – —: ends a part. */
  Break: 3,
} as const;
type CharKind = (typeof CharKind)[keyof typeof CharKind];

const ASCII_KINDS: readonly CharKind[] = Array.from({ length: 128 }, (_, code) => {
  const ch = String.fromCharCode(code);
  if (/[a-z]/.test(ch)) return CharKind.Letter;
  if (/[0-9]/.test(ch)) return CharKind.Digit;
  if ('+,;:/|()[]{}<>'.includes(ch)) return CharKind.Break;
  return CharKind.Space;
});

function charKind(text: string, i: number): CharKind {
  const code = text.charCodeAt(i);
  if (code < 128) {
    // A dash between spaces separates parts ("Nuggets - 2 Pc"); inside a word it joins ("egg-free").
    if (code === 45 && text[i - 1] === ' ' && text[i + 1] === ' ') return CharKind.Break;
    return ASCII_KINDS[code]!;
  }
  if (code === 0x2013 || code === 0x2014) return CharKind.Break;
  const ch = text[i]!;
  if (LETTER_OR_MARK.test(ch)) return CharKind.Letter;
  if (DIGIT.test(ch)) return CharKind.Digit;
  return CharKind.Space;
}

/**
 * Lower-case, Latin accents removed (crème → creme, jalapeño → jalapeno), ligatures spelled out (bœuf → boeuf),
 * apostrophes and zero-width joiners dropped (Domino's → dominos). Devanagari and other Indic scripts keep their
 * vowel signs; nukta forms are decomposed the same way for the lexicon and the text, so they match either way.
 */
export function foldMenuText(text: string): string {
  // Most menu texts are plain ASCII: skip Unicode normalisation for them (it is the costliest step).
  const lower = text.toLowerCase();
  const folded = ASCII_ONLY.test(lower)
    ? lower
    : lower
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/œ/g, 'oe')
        .replace(/æ/g, 'ae')
        .replace(/ß/g, 'ss')
        .replace(/['’‘`´\u200c\u200d]/g, '');
  return folded
    .replace(/['`]/g, '')
    .replace(/\bw\/o\b/g, ' without ')
    .replace(/\bw\/\s/g, ' with ')
    .replace(/&/g, ' and ');
}

function singularsOf(word: string, pluralMinLetters: number): string[] {
  if (word.length < pluralMinLetters || !word.endsWith('s') || word.endsWith('ss')) return [];
  const out = [withoutEnding(word, 's')];
  if (word.endsWith('es')) out.push(withoutEnding(word, 'es'));
  return out;
}

/**
 * Splits a menu text into words and numbers its parts. A part ends at + , ; : / | ( ) [ ] and a spaced dash
 * (hard breaks), or at a soft boundary word. Digits and letters glued together are separate words
 * ("2crispy" → 2 crispy, "250ml" → 250 ml) so that counts and sizes never hide a food word.
 * One pass over the characters: this runs for every item of every request.
 */
export function tokenizeMenuText(text: string, boundaries: TextBoundaries): CueToken[] {
  const folded = foldMenuText(text);
  const tokens: CueToken[] = [];
  let seg = 0;
  let dish = 0;
  let pendingHardBreak = false;
  let wordStart = -1;
  let wordKind: CharKind = CharKind.Space;
  const endWord = (end: number): void => {
    if (wordStart < 0) return;
    const word = folded.slice(wordStart, end);
    wordStart = -1;
    const soft = boundaries.soft.has(word);
    if (soft && tokens.length > 0 && !pendingHardBreak) seg++;
    if (boundaries.dish.has(word) && tokens.length > 0 && !pendingHardBreak) dish++;
    tokens.push({ word, singulars: singularsOf(word, boundaries.pluralMinLetters), seg, dish, hardBreakBefore: pendingHardBreak, soft });
    pendingHardBreak = false;
  };
  for (let i = 0; i < folded.length; i++) {
    const kind = charKind(folded, i);
    if (kind === CharKind.Letter || kind === CharKind.Digit) {
      if (wordStart >= 0 && kind !== wordKind) endWord(i);
      if (wordStart < 0) {
        wordStart = i;
        wordKind = kind;
      }
      continue;
    }
    endWord(i);
    if (kind === CharKind.Break) {
      if (tokens.length > 0 && !pendingHardBreak) {
        seg++;
        dish++;
      }
      pendingHardBreak = true;
    }
  }
  endWord(folded.length);
  return tokens;
}

// ---------------------------------------------------------------------------------------------------------------
// Word tries

interface TrieNode<V> {
  readonly next: Map<string, TrieNode<V>>;
  entry?: { readonly keyword: string; readonly value: V };
}

/** A lexicon built for longest-match lookup over words. */
export interface KeywordTrie<V> {
  readonly root: TrieNode<V>;
  readonly size: number;
}

export interface KeywordMatch<V> {
  /** Token span [start, end). */
  readonly start: number;
  readonly end: number;
  /** The keyword as the lexicon spells it (folded). */
  readonly keyword: string;
  readonly value: V;
}

function newNode<V>(): TrieNode<V> {
  return { next: new Map() };
}

/**
 * Builds a trie from rows of (keyword, value). Keywords go through the same folding and splitting as menu text,
 * so "7 Up", "Bird's Eye" and "पनीर" are stored exactly as a menu would be read. A keyword that folds to nothing,
 * spans a hard break or repeats another one is a knowledge error and throws with its file:line.
 */
function buildTrie<V>(rows: readonly { keyword: string; value: V; where: string }[], boundaries: TextBoundaries): KeywordTrie<V> {
  const root = newNode<V>();
  const seen = new Map<string, string>();
  for (const row of rows) {
    const toks = tokenizeMenuText(row.keyword, boundaries);
    if (toks.length === 0) throw new Error(`${row.where}: keyword "${row.keyword}" has no letters or digits`);
    if (toks.some((t) => t.hardBreakBefore)) throw new Error(`${row.where}: keyword "${row.keyword}" contains a part break`);
    const folded = toks.map((t) => t.word).join(' ');
    const earlier = seen.get(folded);
    if (earlier) throw new Error(`${row.where}: keyword "${row.keyword}" repeats ${earlier}`);
    seen.set(folded, row.where);
    let node = root;
    for (const t of toks) {
      let child = node.next.get(t.word);
      if (!child) {
        child = newNode<V>();
        node.next.set(t.word, child);
      }
      node = child;
    }
    node.entry = { keyword: folded, value: row.value };
  }
  return { root, size: rows.length };
}

/** Every keyword of a lexicon, as it was folded into the trie. */
export function trieKeywords<V>(trie: KeywordTrie<V>): string[] {
  const out: string[] = [];
  const walk = (node: TrieNode<V>): void => {
    if (node.entry) out.push(node.entry.keyword);
    for (const child of node.next.values()) walk(child);
  };
  walk(trie.root);
  return out;
}

function step<V>(node: TrieNode<V>, tok: CueToken): TrieNode<V> | undefined {
  const exact = node.next.get(tok.word);
  if (exact) return exact;
  for (const s of tok.singulars) {
    const viaSingular = node.next.get(s);
    if (viaSingular) return viaSingular;
  }
  return undefined;
}

/** Left-to-right, longest keyword first; matched words are consumed. Keywords never span a hard break. */
export function matchKeywords<V>(trie: KeywordTrie<V>, tokens: readonly CueToken[]): KeywordMatch<V>[] {
  const out: KeywordMatch<V>[] = [];
  let i = 0;
  while (i < tokens.length) {
    let node: TrieNode<V> | undefined = trie.root;
    let best: KeywordMatch<V> | undefined;
    for (let j = i; j < tokens.length; j++) {
      const tok = tokens[j]!;
      if (j > i && tok.hardBreakBefore) break;
      node = step(node, tok);
      if (!node) break;
      if (node.entry) best = { start: i, end: j + 1, keyword: node.entry.keyword, value: node.entry.value };
    }
    if (best) {
      out.push(best);
      i = best.end;
    } else {
      i++;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Loading

export interface CueLexicons {
  /** How texts are split into words and parts before the tries are walked. */
  readonly boundaries: TextBoundaries;
  readonly diet: KeywordTrie<DietClass>;
  readonly protein: KeywordTrie<ProteinEntry>;
  readonly course: KeywordTrie<Course>;
  readonly cuisine: KeywordTrie<CuisineEntry>;
  /** flavours.tsv: a keyword may carry several tags ("nutella": chocolate, nutty), one row each. */
  readonly flavour: KeywordTrie<readonly Tag[]>;
  /** proteins.tsv: what kind of food each protein is, which decides between several named ones. */
  readonly proteinKinds: ReadonlyMap<Protein, ProteinKind>;
}

export const PROTEIN_KINDS = ['meat', 'seafood', 'egg', 'vegetarian'] as const;
export type ProteinKind = (typeof PROTEIN_KINDS)[number];

/** Reads lexicon/proteins.tsv: every protein of the enum once, with its kind. */
function loadProteinKinds(path: string): ReadonlyMap<Protein, ProteinKind> {
  const kinds = new Map<Protein, ProteinKind>();
  for (const [protein, row] of readRowPerKey(path, ['protein', 'kind', 'note'], PROTEINS, 'protein')) {
    kinds.set(protein, parseEnum(row.cells[1], PROTEIN_KINDS, 'kind', `${row.file}:${row.line}`));
  }
  return kinds;
}

function parseEnum<T extends string>(value: string | undefined, allowed: readonly T[], what: string, where: string): T {
  if (value === undefined || !(allowed as readonly string[]).includes(value)) {
    throw new Error(`${where}: ${what} "${value ?? ''}" is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function loadLexicon<V>(
  path: string,
  header: readonly string[],
  parse: (cells: readonly string[], where: string) => V,
  boundaries: TextBoundaries,
): KeywordTrie<V> {
  const rows = readTsv(path, header).map((row) => {
    const where = `${row.file}:${row.line}`;
    const keyword = row.cells[0] ?? '';
    return { keyword, value: parse(row.cells, where), where };
  });
  return buildTrie(rows, boundaries);
}

/**
 * Reads and validates the four cue lexicons. Throws with file:line on an unknown label, a duplicate keyword or a
 * bad header, so a broken knowledge edit fails the build (and start-up) instead of a request.
 */
export function loadCueLexicons(dir: string, boundaries: TextBoundaries): CueLexicons {
  const lex = join(dir, 'lexicon');
  const proteinValues: readonly ProteinEntry[] = [...PROTEINS, '-'];
  return {
    boundaries,
    diet: loadLexicon(join(lex, 'diet.tsv'), ['keyword', 'diet', 'note'], (c, where) =>
      parseEnum(c[1], DIET_CLASSES, 'diet', where), boundaries),
    protein: loadLexicon(join(lex, 'protein.tsv'), ['keyword', 'protein', 'note'], (c, where) =>
      parseEnum(c[1], proteinValues, 'protein', where), boundaries),
    course: loadLexicon(join(lex, 'category.tsv'), ['keyword', 'course', 'note'], (c, where) =>
      parseEnum(c[1], COURSES, 'course', where), boundaries),
    cuisine: loadLexicon(join(lex, 'cuisine_cues.tsv'), ['keyword', 'cuisine', 'strength'], (c, where) => ({
      cuisine: parseEnum(c[1], CUISINE_LABELS, 'cuisine', where),
      strength: parseEnum(c[2], CUE_STRENGTHS, 'strength', where),
    }), boundaries),
    flavour: loadFlavours(join(lex, 'flavours.tsv'), boundaries),
    proteinKinds: loadProteinKinds(join(lex, 'proteins.tsv')),
  };
}

/**
 * Rows of one keyword are merged into its tag list; the same keyword and tag twice is an error. Tag `-` is a stop
 * phrase: it consumes its words and adds nothing ("cottage cheese" is paneer, not cheesy).
 */
function loadFlavours(path: string, boundaries: TextBoundaries): KeywordTrie<readonly Tag[]> {
  const byKeyword = new Map<string, { keyword: string; value: Tag[]; where: string }>();
  for (const row of readTsv(path, ['keyword', 'tag', 'note'])) {
    const where = `${row.file}:${row.line}`;
    const keyword = row.cells[0] ?? '';
    const tag = parseEnum(row.cells[1], [...TAGS, '-'] as const, 'tag', where);
    const key = tokenizeMenuText(keyword, boundaries).map((t) => t.word).join(' ');
    const entry = byKeyword.get(key);
    if (entry && (tag === '-' || entry.value.length === 0)) throw new Error(`${where}: "${keyword}" is a stop phrase and a tagged keyword (see ${entry.where})`);
    if (!entry) byKeyword.set(key, { keyword, value: tag === '-' ? [] : [tag], where });
    else if (entry.value.includes(tag as Tag)) throw new Error(`${where}: "${keyword}" is already tagged ${tag} at ${entry.where}`);
    else entry.value.push(tag as Tag);
  }
  return buildTrie([...byKeyword.values()], boundaries);
}

// ---------------------------------------------------------------------------------------------------------------
// Diet

const MEAT_CLASSES: ReadonlySet<DietClass> = new Set(['non_veg', 'non_veg_default']);
/** Words a marker may skip to reach the meat it turns veg: "Vegan Butter Chicken", "Mock Tandoori Chicken". */
const MARKER_REACH = 2;

interface DietReading {
  readonly matches: readonly KeywordMatch<DietClass>[];
  /** Indices into `matches` of meat and egg words that a veg marker, substitute or egg-free word overrides. */
  readonly overridden: ReadonlySet<number>;
  /** For each overridden index, the index of the match that overrode it. */
  readonly overriddenBy: ReadonlyMap<number, number>;
}

function isMarker(c: DietClass): boolean {
  return c === 'veg_marker' || c === 'egg_free';
}

function readDiet(tokens: readonly CueToken[], lex: CueLexicons): DietReading {
  const matches = matchKeywords(lex.diet, tokens);
  const overriddenBy = new Map<number, number>();
  const segOf = (m: KeywordMatch<DietClass>): number => tokens[m.start]!.seg;
  // A part that is nothing but a veg marker ("Zinger Burger - Veg", "Whopper Deal (Veg)") labels the whole name.
  const wordsInSeg = new Map<number, number>();
  for (const t of tokens) wordsInSeg.set(t.seg, (wordsInSeg.get(t.seg) ?? 0) + 1);
  const wholeNameMarker = matches.findIndex(
    (m) => isMarker(m.value) && wordsInSeg.get(segOf(m)) === m.end - m.start,
  );
  for (let k = 0; k < matches.length; k++) {
    const m = matches[k]!;
    const seg = segOf(m);
    if (MEAT_CLASSES.has(m.value)) {
      // A marker shortly before the meat word makes it a veg copy ("Soya Chicken", "Veg Seekh", "Mock Meat");
      // a default word ("seekh", "keema", "wings") is also undone by a marker anywhere in its part, or by a veg
      // ingredient that stands in for the meat ("Paneer Seekh", "Mushroom Keema", "Falafel Doner").
      for (let p = k - 1; p >= 0; p--) {
        const prev = matches[p]!;
        if (segOf(prev) !== seg) break;
        const gap = m.start - prev.end;
        if (isMarker(prev.value) && gap <= MARKER_REACH) {
          overriddenBy.set(k, p);
          break;
        }
        if (m.value === 'non_veg_default' && (isMarker(prev.value) || prev.value === 'veg_substitute')) {
          overriddenBy.set(k, p);
          break;
        }
        if (MEAT_CLASSES.has(prev.value) && !overriddenBy.has(p)) break;
      }
      if (m.value === 'non_veg_default' && !overriddenBy.has(k)) {
        // "Shawarma Paneer Roll", "Seekh Kebab (Veg)": the veg word may also come after the default word.
        const later = matches.findIndex(
          (q, idx) => idx > k && segOf(q) === seg && (isMarker(q.value) || q.value === 'veg_substitute'),
        );
        if (later >= 0) overriddenBy.set(k, later);
        else if (wholeNameMarker >= 0) overriddenBy.set(k, wholeNameMarker);
      }
    } else if (m.value === 'egg') {
      const eggFree = matches.findIndex((q) => q.value === 'egg_free' && segOf(q) === seg);
      if (eggFree >= 0) overriddenBy.set(k, eggFree);
    }
  }
  return { matches, overridden: new Set(overriddenBy.keys()), overriddenBy };
}

function dietFromReading(r: DietReading): SupportedCue<DietCue> {
  const live = r.matches.filter((_, k) => !r.overridden.has(k));
  const words = (pred: (c: DietClass) => boolean): string[] =>
    live.filter((m) => pred(m.value)).map((m) => m.keyword);
  const explicitMeat = words((c) => c === 'non_veg');
  const defaultMeat = words((c) => c === 'non_veg_default');
  const eggs = words((c) => c === 'egg');
  if (explicitMeat.length + defaultMeat.length > 0) {
    return {
      value: 'non_veg',
      support: explicitMeat.length > 0 ? 'stated' : 'implied',
      evidence: live.filter((m) => MEAT_CLASSES.has(m.value) || m.value === 'egg').map((m) => m.keyword),
    };
  }
  if (eggs.length > 0) return { value: 'egg', support: 'stated', evidence: eggs };
  // Evidence of a veg answer: the markers, plus every overridden meat word shown with what overrode it.
  const overrides = [...r.overriddenBy.entries()].map(([k, by]) => {
    const [a, b] = by < k ? [r.matches[by]!, r.matches[k]!] : [r.matches[k]!, r.matches[by]!];
    return `${a.keyword} ${b.keyword}`;
  });
  const markers = words(isMarker);
  if (markers.length > 0 || overrides.length > 0) {
    return { value: 'veg', support: 'stated', evidence: [...new Set([...overrides, ...markers])] };
  }
  // Cakes, pastries and brownies are baked with egg often enough that their flavours cannot vouch for them.
  if (live.some((m) => m.value === 'egg_possible')) return { value: 'unknown', support: 'none', evidence: [] };
  const vegWords = words((c) => c === 'veg' || c === 'veg_substitute');
  if (vegWords.length > 0) return { value: 'veg', support: 'implied', evidence: vegWords };
  return { value: 'unknown', support: 'none', evidence: [] };
}

/**
 * Diet of a menu-item text: `non_veg` when a meat, poultry or seafood word is present (egg + chicken is non_veg),
 * `egg` for egg words alone, `veg` for explicit veg markers or veg-by-nature words, else `unknown`. The traps are
 * in the lexicon and in these rules: eggless/egg-free never read as egg; a veg marker right before a meat word
 * makes a veg copy ("Veg Seekh Kebab", "Soya Chicken", "Mock Meat"); meat-by-default words (seekh, keema, wings,
 * pepperoni) give way to any veg marker in the same part or a veg stand-in before them ("Paneer Seekh");
 * "Drumstick Sambar" is the vegetable; "Chicken 65" and "Gobi 65" are decided by their first word.
 */
export function dietOf(lex: CueLexicons, text: string): SupportedCue<DietCue> {
  return dietFromReading(readDiet(tokenizeMenuText(text, lex.boundaries), lex));
}

/** What a text says about which diet twin it is, by the diet lexicon rather than by what is in it. */
export interface DietMarkers {
  /** An egg-free word (eggless, egg-free, without egg, vegan). */
  readonly eggFree: boolean;
  /** An explicit veg / non-veg marker: a veg_marker or non_veg keyword spelled with "veg" (Veg, Pure Veg, Non Veg,
   * Vegetarian, Vegetariano); "Soya" and "Mock" are veg markers too but name what the dish is made of. */
  readonly vegOrNonVeg: boolean;
  /** The text's words without those markers, lower-cased and folded. */
  readonly unmarkedWords: readonly string[];
  /** The marker words themselves ("non", "veg"), lower-cased and folded. */
  readonly markerWords: readonly string[];
}

export function dietMarkers(lex: CueLexicons, text: string): DietMarkers {
  const tokens = tokenizeMenuText(text, lex.boundaries);
  const matches = matchKeywords(lex.diet, tokens);
  const spelledWithVeg = (keyword: string): boolean => keyword.split(' ').some((w) => w.startsWith('veg'));
  const markers = matches.filter((m) => (m.value === 'veg_marker' || m.value === 'non_veg') && spelledWithVeg(m.keyword));
  const marked = new Set(markers.flatMap((m) => Array.from({ length: m.end - m.start }, (_, k) => m.start + k)));
  return {
    eggFree: matches.some((m) => m.value === 'egg_free'),
    vegOrNonVeg: markers.length > 0,
    unmarkedWords: tokens.filter((_, i) => !marked.has(i)).map((t) => t.word),
    markerWords: tokens.filter((_, i) => marked.has(i)).map((t) => t.word),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Protein

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end;
}

interface NamedProtein {
  readonly protein: Protein;
  readonly keyword: string;
  /** Named by a meat-by-default word (keema → mutton, pepperoni → pork) rather than outright. */
  readonly implied: boolean;
}

/** Which named proteins win, best tier first, with the support of a tier that names a single protein. */
const PROTEIN_TIERS: readonly { readonly admits: (n: NamedProtein, kind: ProteinKind) => boolean; readonly support: CueSupport }[] = [
  { admits: (n, kind) => animal(kind) && !n.implied, support: 'stated' },
  { admits: (_, kind) => animal(kind), support: 'implied' },
  { admits: (_, kind) => kind === 'egg', support: 'stated' },
  { admits: (_, kind) => kind === 'vegetarian', support: 'stated' },
];

/** Meat or seafood: what beats egg and the vegetarian proteins. */
function animal(kind: ProteinKind): boolean {
  return kind === 'meat' || kind === 'seafood';
}

function proteinFromTokens(tokens: readonly CueToken[], lex: CueLexicons, diet: DietReading): SupportedCue<Protein | null> {
  const overriddenSpans = diet.matches.filter((_, k) => diet.overridden.has(k));
  const defaultSpans = diet.matches.filter((m) => m.value === 'non_veg_default');
  const named: NamedProtein[] = [];
  for (const m of matchKeywords(lex.protein, tokens)) {
    if (m.value === '-') continue;
    // A meat or egg word that the diet rules turned veg ("Veg Seekh", "Soya Chicken", "Eggless") names no meat.
    if (lex.proteinKinds.get(m.value) !== 'vegetarian' && overriddenSpans.some((s) => overlaps(s, m))) continue;
    named.push({ protein: m.value, keyword: m.keyword, implied: defaultSpans.some((s) => overlaps(s, m)) });
  }
  for (const tier of PROTEIN_TIERS) {
    const picked = named.filter((n) => tier.admits(n, lex.proteinKinds.get(n.protein)!));
    if (picked.length === 0) continue;
    const distinct = [...new Set(picked.map((n) => n.protein))];
    const evidence = picked.map((n) => n.keyword);
    if (distinct.length === 1) return { value: distinct[0]!, support: tier.support, evidence };
    // Several sea proteins are seafood, and of two different meats ("Chicken and Mutton Biryani") the first named
    // leads: either way no one protein is stated.
    if (distinct.every((p) => lex.proteinKinds.get(p) === 'seafood')) return { value: 'seafood', support: 'implied', evidence };
    return { value: picked[0]!.protein, support: 'implied', evidence };
  }
  return { value: null, support: 'none', evidence: [] };
}

/**
 * The main protein a menu-item text names, or null ("Veg Seekh Kebab", "Aloo Gobi", "Cheese Pizza"). Named
 * proteins beat implied ones ("Chicken Keema" → chicken, "Keema Pav" → mutton, "Pepperoni Pizza" → pork); meat beats
 * egg beats veg proteins ("Egg Chicken Roll" → chicken); several sea proteins → seafood. The resolution rules are
 * documented at the top of protein.tsv.
 */
export function proteinOf(lex: CueLexicons, text: string): SupportedCue<Protein | null> {
  const tokens = tokenizeMenuText(text, lex.boundaries);
  return proteinFromTokens(tokens, lex, readDiet(tokens, lex));
}

// ---------------------------------------------------------------------------------------------------------------
// Course and cuisine: the head word of the name decides

/** Matches grouped by the part of the name they start in (`seg` or `dish` numbering), parts in text order. */
function byPart<V>(
  tokens: readonly CueToken[],
  matches: readonly KeywordMatch<V>[],
  numbering: 'seg' | 'dish',
): KeywordMatch<V>[][] {
  const parts = new Map<number, KeywordMatch<V>[]>();
  for (const m of matches) {
    const seg = tokens[m.start]![numbering];
    let list = parts.get(seg);
    if (!list) parts.set(seg, (list = []));
    list.push(m);
  }
  return [...parts.keys()].sort((a, b) => a - b).map((s) => parts.get(s)!);
}

/** A course reading; `named` when a course word was read (without one the answer is main by default); `agreed` when
 * every course word of the name's first part names the course it reads (not a combo's main, not the default). */
export interface CourseCue extends Omit<Cue<Course>, 'confidence'> {
  /** What the reading rests on (its confidence is measured per kind: profile-confidence.ts). */
  readonly source: CourseCueSource;
  readonly named: boolean;
  readonly agreed: boolean;
  /** The courses a combo read as its main also brings ("Shahi Paneer with 4 Tawa Roti" brings bread); empty for
   * anything that is not such a combo. */
  readonly comesWith: readonly Course[];
}

type CourseCueSource = 'combo' | 'words_agreed' | 'words_mixed' | 'default';

/** `named` and `agreed` follow from the source, so they cannot say otherwise. */
function courseCue(value: Course, source: CourseCueSource, evidence: readonly string[], comesWith: readonly Course[] = []): CourseCue {
  return { value, source, evidence, named: source !== 'default', agreed: source === 'words_agreed', comesWith };
}

function courseFromTokens(tokens: readonly CueToken[], lex: CueLexicons): CourseCue {
  const parts = byPart(tokens, matchKeywords(lex.course, tokens), 'seg');
  if (parts.length === 0) return courseCue('main', 'default', []);
  const heads = parts.map((p) => p[p.length - 1]!);
  // A combo ("Burger + Fries + Coke", "Biryani with Raita") is sold as the main it contains; so is one that leads with
  // a dish no course word names, joined to a bread or a side ("Shahi Paneer with 4 Tawa Roti", "Paneer Royale + Fries
  // + Shake"): accompaniments come with a main. A lead of one word is a flavour or a count ("Oreo (Shake)"), not a dish.
  const leadUnnamed = tokens[parts[0]![0]!.start]!.dish > 0 && tokens.filter((t) => t.dish === 0 && /\p{L}/u.test(t.word)).length > 1;
  if ((heads.length > 1 && heads.some((h) => h.value === 'main')) || (leadUnnamed && heads.some((h) => h.value === 'bread' || h.value === 'side'))) {
    const comesWith = [...new Set(heads.map((h) => h.value))].filter((c) => c !== 'main');
    return courseCue('main', 'combo', heads.map((h) => h.keyword), comesWith);
  }
  const first = parts[0]!;
  const head = heads[0]!;
  const agreed = first.every((m) => m.value === head.value);
  return courseCue(head.value, agreed ? 'words_agreed' : 'words_mixed', first.map((m) => m.keyword));
}

/**
 * The course a menu-item text names: main, side, bread, dessert or beverage. The last course word of the first
 * part decides ("Chicken Tikka" → side, "Chicken Tikka Masala" → main, "Chocolate Shake" → beverage, "Garlic Bread"
 * → side); a combo with a main in it is a main. With no course word at all the answer is main by default.
 */
export function categoryOf(lex: CueLexicons, text: string): CourseCue {
  return courseFromTokens(tokenizeMenuText(text, lex.boundaries), lex);
}

/** A cuisine reading, with what it rests on: a strong cue (a dish form or cuisine name) or only weak ones, and whether
 * the deciding cues agree. */
export interface CuisineCue extends Omit<Cue<Cuisine | null>, 'confidence'> {
  readonly strong: boolean;
  readonly agreeing: boolean;
}

function cuisineFromTokens(tokens: readonly CueToken[], lex: CueLexicons): CuisineCue {
  const parts = byPart(tokens, matchKeywords(lex.cuisine, tokens), 'dish');
  if (parts.length === 0) return { value: null, evidence: [], strong: false, agreeing: false };
  const first = parts[0]!;
  const strong = first.filter((m) => m.value.strength === 'strong');
  const deciding = strong.length > 0 ? strong : first;
  const head = deciding[deciding.length - 1]!;
  const disagree = deciding.some((m) => m.value.cuisine !== head.value.cuisine);
  return {
    value: head.value.cuisine,
    evidence: first.map((m) => m.keyword),
    strong: strong.length > 0,
    agreeing: !disagree,
  };
}

/**
 * A cuisine hint from the words alone, or null when no word points anywhere. Strong cues (dish forms and cuisine
 * names) beat weak ones (paneer, masala, tikka); among strong cues the last one of the first part wins because the
 * dish form comes last ("Tandoori Paneer Pizza" → Italian, "Schezwan Dosa" → South Indian).
 */
export function cuisineCue(lex: CueLexicons, text: string): CuisineCue {
  return cuisineFromTokens(tokenizeMenuText(text, lex.boundaries), lex);
}

export interface MenuTextCues {
  readonly diet: SupportedCue<DietCue>;
  readonly protein: SupportedCue<Protein | null>;
  readonly course: CourseCue;
  readonly cuisine: CuisineCue;
}

/** All four cues with one tokenisation, for callers that need them together (menu reports, cart suggestions). */
export function menuTextCues(lex: CueLexicons, text: string): MenuTextCues {
  const tokens = tokenizeMenuText(text, lex.boundaries);
  const diet = readDiet(tokens, lex);
  return {
    diet: dietFromReading(diet),
    protein: proteinFromTokens(tokens, lex, diet),
    course: courseFromTokens(tokens, lex),
    cuisine: cuisineFromTokens(tokens, lex),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Flavour and quality tags

/**
 * The tags an item's own words give it (knowledge/lexicon/flavours.tsv): "Coffee Walnut Ice Cream" is nutty and sweet,
 * "Schezwan Margherita" spicy, "Black Current Shake" fruity and a cold drink. Search adds them to the tags of the dish
 * the item resolves to, so an unresolved house name still answers "something fruity". And the tags it turns round: a
 * flavour word right after a negator in the same part of the name ("Momo in Garlic Sauce (Non Spicy)", "Less Spicy")
 * says the item is not that.
 */
export interface FlavourReading {
  readonly tags: ReadonlySet<Tag>;
  readonly negated: ReadonlySet<Tag>;
}

/** `negators`: the words that turn a phrase after them round (lexicon/query_words.tsv `negator`, as queries read them). */
export function flavourReadingOf(lex: CueLexicons, text: string, negators: ReadonlySet<string>): FlavourReading {
  const tokens = tokenizeMenuText(text, lex.boundaries);
  const tags = new Set<Tag>();
  const negated = new Set<Tag>();
  const add = (into: Set<Tag>, from: readonly CueToken[]): void => {
    for (const m of matchKeywords(lex.flavour, from)) for (const t of m.value) into.add(t);
  };
  for (const m of matchKeywords(lex.flavour, tokens)) {
    const before = m.start > 0 ? tokens[m.start - 1]! : null;
    if (before === null || before.seg !== tokens[m.start]!.seg || !negators.has(before.word)) {
      for (const t of m.value) tags.add(t);
    } else {
      // The negator turns round the word after it, not the dish its words name together: "Less Sweet Lassi" is not
      // sweet and is still a cold drink.
      add(negated, tokens.slice(m.start, m.start + 1));
      add(tags, tokens.slice(m.start + 1, m.end));
    }
  }
  // A name that says what it is not is taken at its word, whatever its other words suggest ("Chatpata Paneer Momo
  // (Non Spicy)").
  for (const t of negated) tags.delete(t);
  return { tags, negated };
}

const NO_NEGATORS: ReadonlySet<string> = new Set();

/** Every tag the text's flavour words give it, read with no negators (a dish name of the knowledge base). */
export function flavourTagsOf(lex: CueLexicons, text: string): readonly Tag[] {
  return [...flavourReadingOf(lex, text, NO_NEGATORS).tags];
}
