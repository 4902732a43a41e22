import { join } from 'node:path';
import { readList } from './knowledge/tsv.js';
import { nameKey } from './knowledge/dishes.js';
import type { Knowledge } from './knowledge/index.js';
import { withoutEnding } from './text/endings.js';

// The content words of a cleaned menu name, as the word guards compare them (dedup's defining-word guard, the
// variant guard of the precision stage): lower-case, filler and size words dropped, plurals folded.

/** A word's singular, unless it is too short to be a plural or its final s is part of the word or makes another dish
 * word (`keepFinalS`). */
export function singular(word: string, keepFinalS: ReadonlySet<string>, pluralMinLetters: number): string {
  if (word.length < pluralMinLetters || !word.endsWith('s') || word.endsWith('ss') || word.endsWith('us') || keepFinalS.has(word)) return word;
  return word.endsWith('ies') ? `${withoutEnding(word, 'ies')}y` : withoutEnding(word, 's');
}

/**
 * The one-word entries of lexicon/sizes.txt (half, full, regular, large, …). Cleaning strips sizes, but not every
 * placement ("Paneer Butter Masala Half ₹220"); a size word left in a name never makes it another dish.
 */
export function loadSizeWords(dir: string): ReadonlySet<string> {
  return new Set(readList(join(dir, 'lexicon', 'sizes.txt')).map(nameKey).filter((w) => w !== '' && !w.includes(' ')));
}

/** The content words of a cleaned name as the guard compares them: lower-case, fillers and sizes dropped, plurals folded. */
export function dishWords(k: Knowledge, cleanedText: string): string[] {
  return dishWordsOfKey(k, nameKey(cleanedText));
}

/** dishWords of a name already keyed by nameKey (MenuText.key). */
export function dishWordsOfKey(k: Knowledge, key: string): string[] {
  const filler = k.words.dishWordFiller;
  const sizes = k.sizeWords;
  const out: string[] = [];
  for (const w of key.split(' ')) {
    if (w === '' || filler.has(w) || sizes.has(w)) continue;
    out.push(k.singular(w));
  }
  return out;
}


/** The words each side has that the other lacks, in their order: [only in a, only in b]. */
export function differingWords(a: readonly string[], b: readonly string[]): [string[], string[]] {
  const inA = new Set(a), inB = new Set(b);
  return [a.filter((w) => !inB.has(w)), b.filter((w) => !inA.has(w))];
}
