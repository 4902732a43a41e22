import { join } from 'node:path';
import { KNOWLEDGE_DIR } from './paths.js';
import { readTsv } from './knowledge/tsv.js';
import { differingWords, dishWords } from './dish-words.js';

/**
 * Two names of one dish family that are different items on a menu, by the knowledge base's own hard negatives:
 *   - a swapped variant word: the hard negatives of kind style, form, variant and brand that differ by exactly one
 *     word on each side teach which swaps make another dish ("Steamed Momos" / "Fried Momos": steam ↔ fried;
 *     "Chilli Paneer Dry" / "Chilli Paneer Gravy"; "Garlic Naan" / "Butter Naan"; "Coke" / "Pepsi"). A word only
 *     one side has is not a swap ("Chicken Dum Biryani" / "Chicken Biryani" stays to the models);
 *   - a combo against a single item: one text joins items with "+" or calls itself a combo or meal and the other
 *     does not ("Choco Lava Cake + Coke Combo" / "Choco Lava Cake", the hard negatives' add-on kind).
 * The precision stage treats either as knowledge that the texts are different dishes (shared by /match, /dedup and
 * /suggest), unless the knowledge base lists both texts for one dish.
 */

const SWAP_KINDS = new Set(['style', 'form', 'variant', 'brand']);

/** steamed → steam, grilled → grill: a form word and its participle are one word here ("Steam Momo" / "Steamed Momos"). */
function foldParticiple(word: string): string {
  return word.length > 5 && word.endsWith('ed') ? word.slice(0, -2) : word;
}

function wordsOf(text: string): string[] {
  return dishWords(text).map(foldParticiple);
}

function swapKey(x: string, y: string): string {
  return x < y ? `${x}|${y}` : `${y}|${x}`;
}

/** Unordered word swaps that make another dish, from the hard negatives. */
export function loadVariantSwaps(dir: string = KNOWLEDGE_DIR): ReadonlySet<string> {
  const swaps = new Set<string>();
  for (const row of readTsv(join(dir, 'hard_negatives.tsv'), ['text_a', 'text_b', 'kind', 'note'])) {
    const [a, b, kind] = row.cells;
    if (!a || !b || !kind || !SWAP_KINDS.has(kind)) continue;
    const wa = wordsOf(a), wb = wordsOf(b);
    const [onlyA, onlyB] = differingWords(wa, wb);
    if (onlyA.length === 1 && onlyB.length === 1 && wa.length === wb.length) swaps.add(swapKey(onlyA[0]!, onlyB[0]!));
  }
  return swaps;
}

let sharedSwaps: ReadonlySet<string> | null = null;

const COMBO = /\+|\bcombo\b|\bmeal\b/i;

/** A text that joins items with "+" or calls itself a combo or meal. */
export function isCombo(text: string): boolean {
  return COMBO.test(text);
}

/**
 * Why two cleaned texts are two items of one family ("steam/fried", "combo"), or null when their words do not say.
 */
export function variantDifference(a: string, b: string, swaps: ReadonlySet<string> = (sharedSwaps ??= loadVariantSwaps())): string | null {
  if (isCombo(a) !== isCombo(b)) return 'combo';
  const [onlyA, onlyB] = differingWords(wordsOf(a), wordsOf(b));
  for (const x of onlyA) for (const y of onlyB) if (swaps.has(swapKey(x, y))) return `${x}/${y}`;
  return null;
}
