import { readdirSync, readFileSync } from 'node:fs';
import { DEFAULT_MEMO_ENTRIES, Memo } from './memo.js';
import { join } from 'node:path';
import { editDistance } from './text/edit-distance.js';
import { foldAccents } from './knowledge/translate.js';
import { WORD_LIST_FILE_NAMES } from './knowledge/words.js';
import type { Knowledge } from './knowledge/index.js';
import { isTypoCandidate, typoBudget, type SpellingConventions } from './knowledge/spelling.js';
import { withoutEnding } from './text/endings.js';

/**
 * Spelling correction for a search query, before it is cleaned.
 *
 * Cleaning corrects menu names cautiously (six letters and more, one edit, never a tail edit): a menu is full of
 * brand names and coined words that must stay as they are. A query is typed by a customer in a hurry, and the
 * menu being searched says which words to expect, so a query word the service does not know is read as the nearest
 * word it does know:
 *   - known: every word of the knowledge base (dish names, aliases, every food lexicon: concepts, translations,
 *     equivalents, notes), the cleaning vocabulary, the words of the menu being searched, and the everyday words of a
 *     query (lexicon/query_everyday.txt); a known word is never changed;
 *   - candidates: the same words, and the plural of each (a query asks for "shakes" and "desserts");
 *   - an unknown word of four letters or more takes the unique nearest candidate with its first letter, within one
 *     edit (two from eight letters on: "bevrrages", "mocktailss"). A tie is broken in favour of a word of the menu,
 *     then by the likelier slip (swapped letters, then a dropped letter, a neighbouring key or a vowel for a vowel);
 *     a tie that remains leaves the word as typed;
 *   - a listed misspelling (and its plural) reads as its right spelling, though it is known;
 *   - a three-letter word reads as the one word of the menu it is a dropped letter short of ("rce" → rice).
 * `npm run eval` measures it on misspelled copies of the graded queries (`search_ndcg_at_10_typo`, eval/typos.ts):
 * "syarters", "sjakes" and "birryani" find what "starters", "shakes" and "biryani" find.
 */

const WORD = /[a-z]+/g;

function wordsOf(text: string): string[] {
  return foldAccents(text).match(WORD) ?? [];
}

export interface SpellingCorrection {
  readonly from: string;
  readonly to: string;
}

/** The nearest candidate within the allowed distance (null when none), and whether another as near reads otherwise. */
interface Nearest {
  readonly best: string | null;
  readonly distance: number;
  readonly tie: boolean;
}

/** What the speller knows: every word it leaves alone, and the food words a typo may be read as (spelling → word). */
export interface QueryVocabulary {
  readonly known: ReadonlySet<string>;
  readonly candidates: ReadonlyMap<string, string>;
  readonly spelling: SpellingConventions;
}

export class QuerySpeller {
  /** Candidate spellings by first letter. */
  private readonly buckets = new Map<string, string[]>();
  private readonly memo: Memo<string, Nearest>;
  /** Candidate spellings by their Hinglish vowel fold. */
  private readonly byFold = new Map<string, string[]>();

  constructor(private readonly vocabulary: QueryVocabulary, memoEntries: number = DEFAULT_MEMO_ENTRIES) {
    this.memo = new Memo(memoEntries);
    for (const w of vocabulary.candidates.keys()) {
      const list = this.buckets.get(w[0]!) ?? [];
      list.push(w);
      this.buckets.set(w[0]!, list);
      const fold = hinglishFold(w);
      const same = this.byFold.get(fold) ?? [];
      same.push(w);
      this.byFold.set(fold, same);
    }
  }

  /** The query with each unknown word read as its nearest known word, and the corrections made. */
  correct(query: string, corpus: readonly string[]): { text: string; corrections: SpellingCorrection[] } {
    let menuWords: Map<string, string> | null = null;
    const corrections: SpellingCorrection[] = [];
    const text = query.replace(/\p{L}+/gu, (token) => {
      const lower = token.toLowerCase();
      // A listed misspelling, or the plural of one, is known only to be read as its right spelling ("breds").
      const listed = this.vocabulary.candidates.get(lower);
      if (listed !== undefined && listed !== lower && lower.length >= this.vocabulary.spelling.typoMinLetters) {
        corrections.push({ from: token, to: listed });
        return listed;
      }
      // A three-letter word is read only as a word of the menu it is one dropped letter short of, when it is of one
      // only ("rce" at a place selling rice, "mlk"): too many words are near it to read it by the knowledge base.
      if (/^[a-z]{3}$/.test(lower) && !this.isKnown(lower)) {
        menuWords ??= menuWordsOf(corpus, this.vocabulary.spelling);
        const fixed = droppedFrom(lower, menuWords);
        if (fixed === null) return token;
        corrections.push({ from: token, to: fixed });
        return fixed;
      }
      if (!isTypoCandidate(lower, this.vocabulary.spelling) || this.isKnown(lower)) return token;
      menuWords ??= menuWordsOf(corpus, this.vocabulary.spelling);
      if (menuWords.has(lower)) return token;
      const fixed = this.nearest(lower, menuWords);
      if (fixed === null) return token;
      corrections.push({ from: token, to: fixed });
      return fixed;
    });
    return { text, corrections };
  }

  private isKnown(word: string): boolean {
    const known = this.vocabulary.known;
    if (known.has(word)) return true;
    // A plural of a known word is a real word ("Pizzas", "Biryanis"); a doubled s is a typo ("drinkss").
    if (!word.endsWith('s') || word.endsWith('ss')) return false;
    return known.has(withoutEnding(word, 's')) || (word.endsWith('es') && known.has(withoutEnding(word, 'es')));
  }

  private nearest(word: string, menuWords: ReadonlyMap<string, string>): string | null {
    // Romanised Hindi spells one vowel many ways: "haddee" is haddi, "neembu" nimbu, "waali" wali. A word of five
    // letters or more that folds as known words do is the nearest of them ("chaatt" is chaat, not chat), before any
    // other edit is counted.
    const sameFold = word.length >= this.vocabulary.spelling.soundFoldMinLetters ? this.byFold.get(hinglishFold(word)) : undefined;
    if (sameFold) {
      const folded = bestOf(sameFold, word, word.length, this.vocabulary.candidates);
      if (folded.best !== null && !folded.tie) return folded.best;
    }
    const max = typoBudget(this.vocabulary.spelling, word.length);
    // The menu's own words first: they are what the query can find, and they break the knowledge base's ties. A
    // knowledge-base word strictly nearer than the menu's best is still the likelier reading.
    const fromMenu = bestOf([...menuWords.keys()].filter((w) => w[0] === word[0]), word, max, menuWords);
    const general = this.generalNearest(word, max);
    if (fromMenu.best !== null && !fromMenu.tie && (general.best === null || general.distance >= fromMenu.distance)) return fromMenu.best;
    return general.tie ? null : general.best;
  }

  private generalNearest(word: string, max: number): Nearest {
    return this.memo.get(word, () => bestOf(this.buckets.get(word[0]!) ?? [], word, max, this.vocabulary.candidates));
  }
}

/** The one menu word that `word` is one dropped letter short of, else null. */
function droppedFrom(word: string, menuWords: ReadonlyMap<string, string>): string | null {
  let found: string | null = null;
  for (const spelling of menuWords.keys()) {
    if (spelling.length !== word.length + 1 || spelling[0] !== word[0] || editDistance(word, spelling, 1) !== 1) continue;
    if (found !== null) return null;
    found = spelling;
  }
  return found;
}

/** A word with its long vowels and doubled letters folded the way romanised Hindi varies them (ee → i, oo → u, aa → a). */
export function hinglishFold(word: string): string {
  return word.replace(/ee/g, 'i').replace(/oo/g, 'u').replace(/(.)\1+/g, '$1');
}

/** The words of a menu (and their plurals: a query asks for "shakes" where the menu sells a "Shake"), as candidates. */
function menuWordsOf(corpus: readonly string[], spelling: SpellingConventions): Map<string, string> {
  const words = new Map<string, string>();
  for (const t of corpus) {
    for (const w of wordsOf(t)) {
      if (w.length < spelling.wordPartMinLetters) continue;
      words.set(w, w);
      if (!w.endsWith('s') && !words.has(`${w}s`)) words.set(`${w}s`, `${w}s`);
    }
  }
  return words;
}

/** The nearest of `spellings` to `word` within `max` edits, read through `canonical`: two spellings of one word tie
 * with nothing ("bevrages", a listed misspelling, and "beverages" both read as beverages). */
function bestOf(spellings: readonly string[], word: string, max: number, canonical: ReadonlyMap<string, string>): Nearest {
  let distance = max + 1;
  // The readings at the nearest distance, each with how its spelling differs from the word.
  let nearest: { reading: string; slip: number }[] = [];
  for (const c of spellings) {
    if (Math.abs(c.length - word.length) > max) continue;
    const d = editDistance(word, c, Math.min(max, distance));
    if (d > max || d > distance) continue;
    if (d < distance) {
      distance = d;
      nearest = [];
    }
    nearest.push({ reading: canonical.get(c) ?? c, slip: slipOf(word, c) });
  }
  if (distance > max) return { best: null, distance, tie: false };
  const readings = [...new Set(nearest.map((n) => n.reading))];
  if (readings.length === 1) return { best: readings[0]!, distance, tie: false };
  // A word and its plural are one reading: the one ending as the typo does ("chinesse" → chinese, "dsserts" →
  // desserts).
  if (readings.length === 2) {
    const [a, b] = readings as [string, string];
    const plural = a === `${b}s` ? a : b === `${a}s` ? b : null;
    if (plural !== null) return { best: word.endsWith('s') ? plural : plural.slice(0, -1), distance, tie: false };
  }
  // One slip away from several words: the likeliest slip reads it. Two letters swapped is the surest sign, then a
  // dropped letter, a neighbouring key or one vowel for another, a doubled letter; any other wrong or extra letter is
  // the least likely ("sieds" is sides, not seeds; "kgani" khani, not kani; "friea" fries, not fria). Two readings by
  // slips as likely stay a tie ("chiese": chinese by a dropped n, cheese by a vowel).
  if (distance === 1) {
    const likeliest = Math.min(...nearest.map((n) => n.slip));
    const by = [...new Set(nearest.filter((n) => n.slip === likeliest).map((n) => n.reading))];
    if (by.length === 1) return { best: by[0]!, distance, tie: false };
  }
  return { best: readings[0]!, distance, tie: true };
}

const KEY_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const VOWELS = new Set('aeiou');

/** Whether two letters are neighbouring keys on a phone's QWERTY keyboard (a row's keys sit between two above). */
function neighbourKeys(a: string, b: string): boolean {
  const at = (ch: string): [number, number] => {
    const r = KEY_ROWS.findIndex((row) => row.includes(ch));
    return [r, r < 0 ? -1 : KEY_ROWS[r]!.indexOf(ch)];
  };
  const [ra, ia] = at(a), [rb, ib] = at(b);
  if (ra < 0 || rb < 0) return false;
  if (ra === rb) return Math.abs(ia - ib) === 1;
  if (Math.abs(ra - rb) !== 1) return false;
  const [lowI, highI] = ra > rb ? [ia, ib] : [ib, ia];
  return highI === lowI || highI === lowI + 1;
}

/** How likely a slip turned `candidate` into `word`, one edit away: 0 two letters swapped; 1 a dropped letter, a
 * neighbouring key or a vowel for a vowel, a letter doubled or a neighbouring key pressed too; 2 any other. */
function slipOf(word: string, candidate: string): number {
  if (candidate.length === word.length + 1) return 1;
  if (candidate.length === word.length - 1) {
    const at = [...candidate].findIndex((ch, i) => ch !== word[i]);
    const i = at < 0 ? candidate.length : at;
    const extra = word[i]!;
    const nextTo = [word[i - 1], word[i + 1]].filter((c): c is string => c !== undefined);
    return nextTo.some((c) => c === extra || neighbourKeys(c, extra)) ? 1 : 2;
  }
  const at = [...word].findIndex((ch, i) => ch !== candidate[i]);
  if (at >= 0 && word[at] === candidate[at + 1] && word[at + 1] === candidate[at]) return 0;
  const typed = word[at]!, meant = candidate[at]!;
  return neighbourKeys(typed, meant) || (VOWELS.has(typed) && VOWELS.has(meant)) ? 1 : 2;
}

/** The lexicon tables whose first column (and, for translations, second) holds food and query words (phrases,
 * keywords), and the word lists: what a typo may be read as. */
const CANDIDATE_COLUMNS: Readonly<Record<string, readonly number[]>> = {
  'category.tsv': [0], 'concepts.tsv': [0], 'cuisine_cues.tsv': [0], 'diet.tsv': [0], 'flavours.tsv': [0],
  'protein.tsv': [0], 'search_equivalents.tsv': [0], 'translations.tsv': [0, 1],
  'form_words.txt': [0], 'menu_words.txt': [0], 'sizes.txt': [0],
};

/**
 * The speller's vocabulary, from the knowledge base (its cleaning lexicon and its lexicon files):
 *   - candidates: the cleaning vocabulary (dish names, aliases, menu words), the candidate columns of the lexicon
 *     files, the everyday query words (lexicon/query_everyday.txt), each with its plural; a listed misspelling reads
 *     as its right spelling;
 *   - known: the candidates, every other word of every food lexicon file (notes and examples included; the word lists
 *     of the rules, lexicon/words.ts's files, are not food vocabulary), and `englishWords` (the encoder's whole-word
 *     vocabulary), so that no word the knowledge base uses anywhere, nor an everyday English word ("friends",
 *     "share"), is ever read as a typo.
 */
export function loadQueryVocabulary(k: Knowledge, englishWords: Iterable<string>): QueryVocabulary {
  const cleaning = k.cleaning;
  const lex = join(k.dir, 'lexicon');
  const candidates = new Map<string, string>();
  const add = (spelling: string, reading: string = spelling): void => {
    if (spelling.length < k.words.spelling.wordPartMinLetters || candidates.has(spelling)) return;
    candidates.set(spelling, reading);
    if (!spelling.endsWith('s') && !candidates.has(`${spelling}s`)) candidates.set(`${spelling}s`, `${reading}s`);
  };
  // Listed misspellings first, so that a plural made from another entry never hides their reading.
  for (const [wrong, right] of cleaning.misspellings) {
    const wrongWords = wordsOf(wrong), rightWords = wordsOf(right);
    if (wrongWords.length === 1 && rightWords.length === 1) add(wrongWords[0]!, rightWords[0]!);
  }
  for (const w of cleaning.vocabulary) add(w);
  for (const w of k.words.queryEveryday) add(w);
  const everyWord: string[] = [];
  for (const file of readdirSync(lex)) {
    if (!/\.(tsv|txt)$/.test(file) || WORD_LIST_FILE_NAMES.has(file)) continue;
    const text = readFileSync(join(lex, file), 'utf8');
    everyWord.push(...wordsOf(text));
    const columns = CANDIDATE_COLUMNS[file];
    if (!columns) continue;
    for (const line of text.split('\n')) {
      if (line.startsWith('#')) continue;
      const cells = line.split('\t');
      for (const c of columns) for (const w of wordsOf(cells[c] ?? '')) add(w);
    }
  }
  const known = new Set<string>(candidates.keys());
  for (const w of everyWord) known.add(w);
  for (const w of englishWords) known.add(w);
  return { known, candidates, spelling: k.words.spelling };
}
