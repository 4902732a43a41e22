import { join } from 'node:path';
import { readTsv } from './tsv.js';
import { foldAccents } from './translate.js';

/** A phrase of lexicon/search_equivalents.tsv, as folded words, with its group's token. */
interface Phrase {
  readonly words: readonly string[];
  readonly token: string;
  /** The names make one dish (match and dedup read them too), or only answer for each other in a search. */
  readonly sameDish: boolean;
}

/** The groups of lexicon/search_equivalents.tsv, indexed for reading a text's words. */
export interface SearchEquivalents {
  /** Phrases by their first folded word, longest first. */
  readonly byFirstWord: ReadonlyMap<string, readonly Phrase[]>;
  /** Folded word → the tokens of the groups one of whose names holds it. */
  readonly groupsByWord: ReadonlyMap<string, ReadonlySet<string>>;
  /** Lower-case, accents folded, plural folded: how both a query's and an item's words are compared. */
  foldWord(word: string): string;
  /** Folded one-word name of a `same`-scope group → the group's token: "chai" and "tea" share one. */
  readonly sameDishWordGroup: ReadonlyMap<string, string>;
}

/** `singular` folds a plural the way the word guards do (dish-words.ts). */
export function loadSearchEquivalents(dir: string, singular: (word: string) => string): SearchEquivalents {
  const foldWord = (w: string): string => singular(foldAccents(w));
  const map = new Map<string, Phrase[]>();
  const seen = new Map<string, number>();
  for (const row of readTsv(join(dir, 'lexicon', 'search_equivalents.tsv'), ['words', 'scope', 'note'])) {
    const scope = row.cells[1];
    if (scope !== 'same' && scope !== 'search') throw new Error(`${row.file}:${row.line}: scope must be same or search, got ${scope}`);
    // The token cannot collide with a word: words are split on everything but letters and digits.
    const token = `≡${row.line}`;
    for (const phrase of row.cells[0]!.split('|')) {
      const words = phrase.split(/[^\p{L}\p{N}]+/u).filter(Boolean).map(foldWord);
      if (words.length === 0) throw new Error(`${row.file}:${row.line}: empty phrase`);
      const key = words.join(' ');
      const prev = seen.get(key);
      if (prev !== undefined && prev !== row.line) throw new Error(`${row.file}:${row.line}: "${key}" is already in the group on line ${prev}`);
      seen.set(key, row.line);
      const list = map.get(words[0]!) ?? [];
      list.push({ words, token, sameDish: scope === 'same' });
      map.set(words[0]!, list);
    }
  }
  // Longest phrase first, so "nimbu pani" is read before "nimbu".
  for (const list of map.values()) list.sort((a, b) => b.words.length - a.words.length);
  const groupsByWord = new Map<string, Set<string>>();
  for (const list of map.values()) for (const p of list) for (const w of p.words) {
    const set = groupsByWord.get(w) ?? new Set<string>();
    set.add(p.token);
    groupsByWord.set(w, set);
  }
  const sameDishWordGroup = new Map<string, string>();
  for (const list of map.values()) for (const p of list) if (p.sameDish && p.words.length === 1) sameDishWordGroup.set(p.words[0]!, p.token);
  return { byFirstWord: map, groupsByWord, foldWord, sameDishWordGroup };
}

/**
 * Whether two words are one-word names of one `same`-scope group, one food in two words (chai / tea, jeera / cumin,
 * gobi / cauliflower): match and dedup read a name with one as the name with the other.
 */
export function sameFoodWords(eq: SearchEquivalents, a: string, b: string): boolean {
  const ga = eq.sameDishWordGroup.get(eq.foldWord(a));
  return ga !== undefined && ga === eq.sameDishWordGroup.get(eq.foldWord(b));
}

/** The phrases of any group that start at word `i` of folded `words`, longest first. */
function phrasesAt(eq: SearchEquivalents, words: readonly string[], i: number): Phrase[] {
  return (eq.byFirstWord.get(words[i]!) ?? []).filter((p) => p.words.every((w, k) => words[i + k] === w));
}

function phraseAt(eq: SearchEquivalents, words: readonly string[], i: number, sameDishOnly = false): Phrase | null {
  return phrasesAt(eq, words, i).find((p) => !sameDishOnly || p.sameDish) ?? null;
}

/** A run of words that is a phrase of a group: where it starts, how many words, the group's token. */
interface PhraseSpan {
  readonly at: number;
  readonly length: number;
  readonly token: string;
}

/** The phrases of `words`, read left to right, longest first at each word (what equivalenceTerms replaces). */
function phraseSpans(eq: SearchEquivalents, words: readonly string[], sameDishOnly: boolean): PhraseSpan[] {
  const folded = words.map(eq.foldWord);
  const out: PhraseSpan[] = [];
  for (let i = 0; i < folded.length; ) {
    const p = phraseAt(eq, folded, i, sameDishOnly);
    if (p) {
      out.push({ at: i, length: p.words.length, token: p.token });
      i += p.words.length;
    } else i++;
  }
  return out;
}

/** `words` with each span replaced by its token. */
function replaceSpans(words: readonly string[], spans: readonly PhraseSpan[]): string[] {
  const out: string[] = [];
  let i = 0;
  for (const s of spans) {
    out.push(...words.slice(i, s.at), s.token);
    i = s.at + s.length;
  }
  return [...out, ...words.slice(i)];
}

/**
 * A query's content words with each phrase of a group replaced by the group's token (opaque: "≡" and the group's
 * line): ["minced", "chicken", "pizza"] → [<keema group>, "chicken", "pizza"]. Words outside every group stay as they are.
 */
export function equivalenceTerms(eq: SearchEquivalents, words: readonly string[], sameDishOnly = false): string[] {
  return replaceSpans(words, phraseSpans(eq, words, sameDishOnly));
}

/** The tokens of every group whose phrase an item's words hold ("Paneer Dim Sums Steamed": the dumpling group's). */
export function equivalenceTokens(eq: SearchEquivalents, words: readonly string[]): string[] {
  const folded = words.map(eq.foldWord);
  return folded.flatMap((_, i) => phrasesAt(eq, folded, i).map((p) => p.token));
}

/** The word positions of the multi-word phrases of any group in `words` ("instant noodles", "flattened rice"). */
export function equivalencePhrasePositions(eq: SearchEquivalents, words: readonly string[]): Set<number> {
  const folded = words.map(eq.foldWord);
  const out = new Set<number>();
  for (let i = 0; i < folded.length; i++) {
    const p = phraseAt(eq, folded, i);
    if (p && p.words.length > 1) for (let k = 0; k < p.words.length; k++) out.add(i + k);
  }
  return out;
}

/**
 * Both names' words with each phrase of a `same`-scope group that BOTH names hold a name of replaced by the group's
 * token, the other words kept: a name saying "paneer" and one saying its English name both read the group's token
 * there, while a "momo" that only one name holds stays a word (the word that makes the other item).
 */
export function foldSharedEquivalents(eq: SearchEquivalents, a: readonly string[], b: readonly string[]): [string[], string[]] {
  const sa = phraseSpans(eq, a, true), sb = phraseSpans(eq, b, true);
  const shared = new Set(sa.map((s) => s.token).filter((t) => sb.some((s) => s.token === t)));
  if (shared.size === 0) return [[...a], [...b]];
  return [replaceSpans(a, sa.filter((s) => shared.has(s.token))), replaceSpans(b, sb.filter((s) => shared.has(s.token)))];
}

/**
 * A name key with each name of a `same`-scope group as the group's token, for match and dedup: "chicken dim sum" and
 * "chicken momo" get one key. Other words are kept as the key had them; the words are sorted, since the order of a
 * name's words rarely makes another dish ("Veg Dim Sums Steamed" / "Veg Steamed Momos").
 */
export function sameDishKey(eq: SearchEquivalents, key: string): string {
  return equivalenceTerms(eq, key.split(' ').filter(Boolean), true).sort().join(' ');
}

/**
 * Whether two words belong to one group, alone or as a word of one of its names: "roll" (of "kathi roll") and "wrap"
 * are akin, so a Chicken Roll and a Chicken Wrap are not two forms of a dish.
 */
export function akinWords(eq: SearchEquivalents, a: string, b: string): boolean {
  const ga = eq.groupsByWord.get(eq.foldWord(a)), gb = eq.groupsByWord.get(eq.foldWord(b));
  return !!ga && !!gb && [...ga].some((t) => gb.has(t));
}
