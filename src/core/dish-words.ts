import { join } from 'node:path';
import { KNOWLEDGE_DIR } from './paths.js';
import { readList } from './knowledge/tsv.js';
import { nameKey } from './knowledge/dishes.js';

// The content words of a cleaned menu name, as the word guards compare them (dedup's defining-word guard, the
// variant guard of the precision stage): lower-case, filler and size words dropped, plurals folded.

/** Words that never decide which dish a name is (they are dropped before two names are compared word by word). */
const FILLER_WORDS = new Set([
  'special', 'spl', 'spcl', 'classic', 'signature', 'house', 'homemade', 'homestyle', 'style', 'styled', 'authentic',
  'traditional', 'famous', 'original', 'premium', 'delicious', 'tasty', 'yummy', 'our', 'the', 'a', 'an', 'of',
  'with', 'and', 'in', 'on', 'n', 'da', 'ka', 'ki', 'ke', 'wala', 'wali', 'wale', 'new', 'each', 'item',
]);

/** Words whose plural -s is part of the word or a different dish word: never folded. */
const KEEP_FINAL_S = new Set(['fries', 'chips', 'greens', 'oats', 'nuts', 'hummus', 'couscous', 'asparagus', 'peas']);

export function singular(word: string): string {
  if (word.length <= 3 || !word.endsWith('s') || word.endsWith('ss') || word.endsWith('us') || KEEP_FINAL_S.has(word)) return word;
  return word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.slice(0, -1);
}

let sizeWords: ReadonlySet<string> | null = null;

/**
 * The one-word entries of lexicon/sizes.txt (half, full, regular, large, …). Cleaning strips sizes, but not every
 * placement ("Paneer Butter Masala Half ₹220"); a size word left in a name never makes it another dish.
 */
function leftoverSizeWords(): ReadonlySet<string> {
  sizeWords ??= new Set(readList(join(KNOWLEDGE_DIR, 'lexicon', 'sizes.txt')).map(nameKey).filter((w) => w !== '' && !w.includes(' ')));
  return sizeWords;
}

/** The content words of a cleaned name as the guard compares them: lower-case, fillers and sizes dropped, plurals folded. */
export function dishWords(cleanedText: string): string[] {
  const sizes = leftoverSizeWords();
  const out: string[] = [];
  for (const w of nameKey(cleanedText).split(' ')) {
    if (w === '' || FILLER_WORDS.has(w) || sizes.has(w)) continue;
    out.push(singular(w));
  }
  return out;
}


/** The words each side has that the other lacks, in their order: [only in a, only in b]. */
export function differingWords(a: readonly string[], b: readonly string[]): [string[], string[]] {
  const inA = new Set(a), inB = new Set(b);
  return [a.filter((w) => !inB.has(w)), b.filter((w) => !inA.has(w))];
}
