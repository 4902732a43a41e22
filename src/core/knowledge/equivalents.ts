import { join } from 'node:path';
import { KNOWLEDGE_DIR } from '../paths.js';
import { readTsv } from './tsv.js';
import { foldAccents } from './translate.js';
import { singular } from '../dish-words.js';

/** A phrase of lexicon/search_equivalents.tsv, as folded words, with its group's token. */
interface Phrase {
  readonly words: readonly string[];
  readonly token: string;
  /** The names make one dish (match and dedup read them too), or only answer for each other in a search. */
  readonly sameDish: boolean;
}

let byFirstWord: ReadonlyMap<string, readonly Phrase[]> | null = null;

/** Lower-case, accents folded, plural folded: how both a query's and an item's words are compared. */
export function foldWord(w: string): string {
  return singular(foldAccents(w));
}

export function loadSearchEquivalents(dir: string = KNOWLEDGE_DIR): ReadonlyMap<string, readonly Phrase[]> {
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
  return map;
}

/** The phrases of any group that start at word `i` of folded `words`, longest first. */
function phrasesAt(words: readonly string[], i: number): Phrase[] {
  byFirstWord ??= loadSearchEquivalents();
  return (byFirstWord.get(words[i]!) ?? []).filter((p) => p.words.every((w, k) => words[i + k] === w));
}

function phraseAt(words: readonly string[], i: number, sameDishOnly = false): Phrase | null {
  return phrasesAt(words, i).find((p) => !sameDishOnly || p.sameDish) ?? null;
}

/**
 * A query's content words with each phrase of a group replaced by the group's token (opaque: "≡" and the group's
 * line): ["minced", "chicken", "pizza"] → [<keema group>, "chicken", "pizza"]. Words outside every group stay as they are.
 */
export function equivalenceTerms(words: readonly string[], sameDishOnly = false): string[] {
  const folded = words.map(foldWord);
  const out: string[] = [];
  for (let i = 0; i < folded.length; ) {
    const p = phraseAt(folded, i, sameDishOnly);
    if (p) {
      out.push(p.token);
      i += p.words.length;
    } else {
      out.push(words[i]!);
      i++;
    }
  }
  return out;
}

/** The tokens of every group whose phrase an item's words hold ("Paneer Dim Sums Steamed": the dumpling group's). */
export function equivalenceTokens(words: readonly string[]): string[] {
  const folded = words.map(foldWord);
  return folded.flatMap((_, i) => phrasesAt(folded, i).map((p) => p.token));
}

/** The word positions of the multi-word phrases of any group in `words` ("instant noodles", "flattened rice"). */
export function equivalencePhrasePositions(words: readonly string[]): Set<number> {
  const folded = words.map(foldWord);
  const out = new Set<number>();
  for (let i = 0; i < folded.length; i++) {
    const p = phraseAt(folded, i);
    if (p && p.words.length > 1) for (let k = 0; k < p.words.length; k++) out.add(i + k);
  }
  return out;
}

/**
 * A name key with each name of a `same`-scope group as the group's token, for match and dedup: "chicken dim sum" and
 * "chicken momo" get one key. Other words are kept as the key had them; the words are sorted, since the order of a
 * name's words rarely makes another dish ("Veg Dim Sums Steamed" / "Veg Steamed Momos").
 */
export function sameDishKey(key: string): string {
  return equivalenceTerms(key.split(' ').filter(Boolean), true).sort().join(' ');
}

let groupsByWord: Map<string, Set<string>> | null = null;

/**
 * Whether two words belong to one group, alone or as a word of one of its names: "roll" (of "kathi roll") and "wrap"
 * are akin, so a Chicken Roll and a Chicken Wrap are not two forms of a dish.
 */
export function akinWords(a: string, b: string): boolean {
  if (!groupsByWord) {
    byFirstWord ??= loadSearchEquivalents();
    groupsByWord = new Map();
    for (const list of byFirstWord.values()) for (const p of list) for (const w of p.words) {
      const set = groupsByWord.get(w) ?? new Set<string>();
      set.add(p.token);
      groupsByWord.set(w, set);
    }
  }
  const ga = groupsByWord.get(foldWord(a)), gb = groupsByWord.get(foldWord(b));
  return !!ga && !!gb && [...ga].some((t) => gb.has(t));
}
