import { join } from 'node:path';
import { readList, readTsv } from './knowledge/tsv.js';
import { HARD_NEGATIVES_HEADER } from './knowledge/dishes.js';
import { categoryOf } from './knowledge/cues.js';
import { differingWords, dishWords } from './dish-words.js';
import { foldParticiple } from './defining-words.js';
import { akinWords } from './knowledge/equivalents.js';
import { literalAlternatives, type WordLexicons } from './knowledge/words.js';
import type { Knowledge } from './knowledge/index.js';
import type { MenuText } from './menu-text.js';

/**
 * Two names of one dish family that are different items on a menu, by the knowledge base's own hard negatives:
 *   - a swapped variant word: the hard negatives of kind style, form, variant and brand that differ by exactly one
 *     word on each side teach which swaps make another dish ("Steamed Momos" / "Fried Momos": steam ↔ fried;
 *     "Chilli Paneer Dry" / "Chilli Paneer Gravy"; "Garlic Naan" / "Butter Naan"; "Coke" / "Pepsi"). A word only
 *     one side has is not a swap ("Chicken Dum Biryani" / "Chicken Biryani" stays to the models);
 *   - a combo against a single item: one text joins items with "+" or calls itself a combo or meal and the other
 *     does not ("Choco Lava Cake + Coke Combo" / "Choco Lava Cake", the hard negatives' add-on kind), or one text is
 *     the other plus a drink ("Double Down Burger & Pepsi");
 *   - an added form word (lexicon/form_words.txt): one text is the other plus a word that makes another item
 *     ("Egg Bhurji" / "Egg Bhurji Pav", "Idli" / "Fried Idli", a flavour: "Naan" / "Garlic Naan"), unless the name
 *     says it is without it ("Dal Makhani No Onion No Garlic");
 *   - a difference of the same kind on each side: two capital-letter codes ("PC" / "HC Rice Bowlz"), two counts of
 *     one ingredient ("Four" / "8-Cheese Pizza"), a bread against a rice ("[Paratha]" / "[Masala Rice] Bowl"), two
 *     form words that are not two names of one thing ("Sub" / "Wrap"; a roll and a wrap are).
 * The precision stage treats any of these as knowledge that the texts are different dishes (shared by /match, /dedup and
 * /suggest), unless the knowledge base lists both texts for one dish.
 */

const SWAP_KINDS = new Set(['style', 'form', 'variant', 'brand']);

function wordsOf(k: Knowledge, text: string): string[] {
  return dishWords(k, text).map(foldParticiple);
}

function swapKey(x: string, y: string): string {
  return x < y ? `${x}|${y}` : `${y}|${x}`;
}

/** Unordered word swaps that make another dish, from the hard negatives (`k` supplies how words are compared). */
export function loadVariantSwaps(dir: string, k: Knowledge): ReadonlySet<string> {
  const swaps = new Set<string>();
  for (const row of readTsv(join(dir, 'hard_negatives.tsv'), HARD_NEGATIVES_HEADER)) {
    const [a, b, kind] = row.cells;
    if (!a || !b || !kind || !SWAP_KINDS.has(kind)) continue;
    const wa = wordsOf(k, a), wb = wordsOf(k, b);
    const [onlyA, onlyB] = differingWords(wa, wb);
    if (onlyA.length === 1 && onlyB.length === 1 && wa.length === wb.length) swaps.add(swapKey(onlyA[0]!, onlyB[0]!));
  }
  return swaps;
}

export function loadFormWords(dir: string): ReadonlySet<string> {
  return new Set(readList(join(dir, 'lexicon', 'form_words.txt')).map((w) => w.toLowerCase()));
}

// The negators (a word after one is what the name says it is without: "no garlic", "without onion", "less spicy") and
// the bowl grains (a bowl added to a name that already has one is the dish served in a bowl, not another item: "Veg
// Chilli Garlic Noodles Bowl" is the noodles, "Egg Curry [Steamed Rice] Bowl" is egg curry rice; a bowl that brings
// the rice, "Brinjal Curry Rice Bowl" beside "Brinjal Curry", or of anything else, "Chicken Shawarma Bowl", is another
// item) are lexicon/variant_words.tsv's.

/** The words a name says it is without (the word after a negator of lexicon/variant_words.tsv), by position. */
function negatedPositions(k: Knowledge, words: readonly string[]): Set<number> {
  const out = new Set<number>();
  for (let i = 1; i < words.length; i++) if (k.words.variantNegators.has(words[i - 1]!)) out.add(i);
  return out;
}

/** A word `a` says it is without that `b` names as one of its own (not after a negator): [negator and word, word], or null. */
function saysWithoutWhatOtherNames(k: Knowledge, a: readonly string[], b: readonly string[]): [string, string] | null {
  const negatedA = negatedPositions(k, a);
  if (negatedA.size === 0) return null;
  const negatedB = negatedPositions(k, b);
  for (const i of negatedA) {
    const word = a[i]!;
    if (b.some((w, j) => w === word && !negatedB.has(j))) return [`${a[i - 1]} ${word}`, word];
  }
  return null;
}

/** The words a name counts ("four cheese", "8 layer"): word → count (lexicon/number_words.tsv's counted words). */
function countedWords(k: Knowledge, words: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < words.length; i++) {
    const w = words[i]!;
    const n = /^\d{1,2}$/.test(w) ? Number(w) : k.words.numbers.counted.get(w);
    const next = words[i + 1]!;
    if (n !== undefined && /^\p{L}+$/u.test(next)) out.set(next, n);
  }
  return out;
}

/** Capital-letter codes of two or three letters ("PC", "HC", "EVM") in a name written in lower case otherwise: in a
 * name all in capitals ("PAV BHAJI", "PAO BHAJI") short words are words. */
function letterCodes(text: string): string[] {
  return /\p{Ll}/u.test(text) ? (text.match(/\b[A-Z]{2,3}\b/g) ?? []) : [];
}

/**
 * The pattern of a combo (lexicon/combo_words.tsv): a cleaned text that joins items with "+" or calls itself a combo,
 * combination or meal ("Veg Hakka Combination"), or a chain's meal by its letters: EVM (extra value meal), HM (Happy
 * Meal): "EVM Veg Surprise", "HM Chicken McGrill" (cleaning already spells a plain "VM" out as "Value Meal").
 */
export function comboPattern(words: WordLexicons): RegExp {
  const whole = (w: string): string => `\\b${literalAlternatives([w])}\\b`;
  return new RegExp(['\\+', ...words.combo.marker.map(whole), ...words.combo.chainMealCode.map(whole)].join('|'), 'i');
}

export function isCombo(k: Knowledge, text: string): boolean {
  return k.comboPattern.test(text);
}

/**
 * Why two texts of one family are two items: one is a combo and the other not; a word of one swaps for a word of the
 * other ("steam"/"fried"); or one is the other plus a word that makes another item ("garlic" in "Garlic Naan").
 */
export type VariantDifference =
  | { readonly kind: 'combo' }
  | { readonly kind: 'swap'; readonly words: readonly [string, string] }
  | { readonly kind: 'added'; readonly word: string };

/** A variant difference as one short string ("combo", "steam/fried", "+garlic"), for logs and tests. */
export function describeDifference(d: VariantDifference | null): string | null {
  if (d === null) return null;
  return d.kind === 'combo' ? 'combo' : d.kind === 'swap' ? `${d.words[0]}/${d.words[1]}` : `+${d.word}`;
}

/**
 * Two names alike but for one word, where one has a serving word (serving_words.tsv, kinds group and single: Feast,
 * Family, Solo) and the other a filler word the word guards drop (filler_words.tsv dish_words: Fresh, Classic): a
 * chain's two product lines ("X Feast Momo" / "X Fresh Momo"), not one dish in two servings. Returns the two words.
 */
function servingInPlaceOfFiller(k: Knowledge, keyA: string, keyB: string): [string, string] | null {
  const a = keyA.split(' '), b = keyB.split(' ');
  if (a.length !== b.length) return null;
  const at = a.flatMap((w, i) => (w === b[i] ? [] : [i]));
  if (at.length !== 1) return null;
  const [x, y] = [a[at[0]!]!, b[at[0]!]!];
  const serving = (w: string): boolean => k.words.serving.group.includes(w) || k.words.serving.single.includes(w);
  const filler = k.words.dishWordFiller;
  return (serving(x) && filler.has(y)) || (serving(y) && filler.has(x)) ? [x, y] : null;
}

/**
 * Why two menu texts are two items of one family, or null when their words do not say.
 */
export function variantDifference(ta: MenuText, tb: MenuText): VariantDifference | null {
  const k = ta.knowledge;
  const a = ta.text, b = tb.text;
  const swaps = k.variantSwaps, formWords = k.formWords;
  if (ta.isCombo !== tb.isCombo) return { kind: 'combo' };
  const wa = ta.dishWords, wb = tb.dishWords;
  const [onlyA, onlyB] = differingWords(wa.map(foldParticiple), wb.map(foldParticiple));
  for (const x of onlyA) for (const y of onlyB) if (swaps.has(swapKey(x, y))) return { kind: 'swap', words: [x, y] };
  // Two different letter codes in one place are two of a chain's items ("PC Rice Bowlz" / "HC Rice Bowlz").
  const ca = letterCodes(a), cb = letterCodes(b);
  if (ca.length > 0 && cb.length > 0 && !ca.some((c) => cb.includes(c))) return { kind: 'swap', words: [ca.join(' '), cb.join(' ')] };
  const servingForFiller = servingInPlaceOfFiller(k, ta.key, tb.key);
  if (servingForFiller !== null) return { kind: 'swap', words: servingForFiller };
  // A count of one ingredient that differs is another recipe: "Four Cheese Pizza" / "8-Cheese Pizza".
  const countA = countedWords(k, wa), countB = countedWords(k, wb);
  for (const [word, n] of countA) {
    const m = countB.get(word);
    if (m !== undefined && m !== n) return { kind: 'swap', words: [`${n} ${word}`, `${m} ${word}`] };
  }
  // One name says it is without what the other names: "Salad (without Chicken)" / "Salad with Grilled Chicken".
  const withoutNamed = saysWithoutWhatOtherNames(k, wa, wb) ?? saysWithoutWhatOtherNames(k, wb, wa);
  if (withoutNamed !== null) return { kind: 'swap', words: withoutNamed };
  // One dish served on a bread against the same dish on rice is two items: "Kake Da Butter Chicken [Paratha] Bowl" /
  // "[Masala Rice] Bowl", "Chole Bhature" / "Chole Chawal".
  const servedOn = (only: readonly string[]): 'rice' | 'bread' | null =>
    only.some((w) => k.words.bowlGrains.has(w)) ? 'rice' : only.length > 0 && categoryOf(k.cues, only.join(' ')).value === 'bread' ? 'bread' : null;
  const sa = servedOn(onlyA), sb = servedOn(onlyB);
  if (sa !== null && sb !== null && sa !== sb) return { kind: 'swap', words: [onlyA.join(' '), onlyB.join(' ')] };
  // Each name served as or in its own thing: "Devil's Chicken Sub" / "Devil's Chicken Wrap". Two names of one thing
  // (a wrap and a kathi roll, lexicon/search_equivalents.tsv) are not two forms.
  const formA = onlyA.filter((w) => formWords.has(w)), formB = onlyB.filter((w) => formWords.has(w));
  if (formA.length > 0 && formB.length > 0 && !formA.some((x) => formB.some((y) => akinWords(k.equivalents, x, y)))) {
    return { kind: 'swap', words: [formA.join(' '), formB.join(' ')] };
  }
  // One name is the other plus words: another item when a word is a form word, or when the words are a drink. Words
  // are compared as written here: "Grilled" is a cooking method, the "Grill" of "(Flame & Grill)" a chain's name.
  const [addedA, addedB] = differingWords(wa, wb);
  const added = addedB.length === 0 ? addedA : addedA.length === 0 ? addedB : [];
  if (added.length === 0 || added.length === Math.max(wa.length, wb.length)) return null;
  // "Dal Makhani No Onion No Garlic" is the Jain way of the same dish: a word the name says it is without adds nothing.
  const [longer, shorter] = addedB.length === 0 ? [wa, wb] : [wb, wa];
  const negated = new Set(longer.filter((_, i) => i > 0 && k.words.variantNegators.has(longer[i - 1]!)));
  // "non" makes another item only as "non veg": a "Non Alcoholic Beer - Peach" is the brand's peach drink.
  const nonVeg = longer.some((w, i) => w === 'non' && longer[i + 1] === 'veg');
  const form = added.find((w) => formWords.has(w) && !negated.has(w) && !(w === 'bowl' && shorter.some((x) => k.words.bowlGrains.has(x))) && (w !== 'non' || nonVeg));
  if (form) return { kind: 'added', word: form };
  // A drink added to a drink is its name ("Masala Chai Tea"); added to food it is a combo.
  const addOn = categoryOf(k.cues, added.join(' '));
  const base = (addedB.length === 0 ? tb : ta).cues.course;
  return addOn.value === 'beverage' && addOn.named && base.value !== 'beverage' ? { kind: 'combo' } : null;
}
