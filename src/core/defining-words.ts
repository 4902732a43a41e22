import { join } from 'node:path';
import { readTsv } from './knowledge/tsv.js';
import { CUISINE_LABELS, HARD_NEGATIVES_HEADER } from './knowledge/dishes.js';
import { categoryOf, dietMarkers, dietOf } from './knowledge/cues.js';
import type { DishLookup } from './knowledge/lookup.js';
import type { Knowledge } from './knowledge/index.js';
import { editDistance } from './text/edit-distance.js';
import { differingWords, dishWords } from './dish-words.js';
import { parseCleanedText } from './menu-text.js';
import { soundKey } from './knowledge/transliterate.js';
import { foldSharedEquivalents, sameFoodWords } from './knowledge/equivalents.js';
import type { SpellingConventions } from './knowledge/spelling.js';
import { withoutEnding } from './text/endings.js';
import { sameWordInEnglish } from './knowledge/translate.js';

/**
 * The dish-defining word guard: whether two names are different dishes by their words alone. Used by /dedup (every
 * accepted edge and the anti-chaining split) and by the precision stage of /match (two names whose words differ only
 * by a misspelling are one name).
 */

export interface DefiningWordLexicon {
  /** Words whose presence on one side only makes a different dish (a known food word that is not optional). */
  readonly defining: ReadonlySet<string>;
  /** Every word the knowledge base knows (dish names, aliases, lexicons): a known word is never a typo of another. */
  readonly known: ReadonlySet<string>;
  /** Rare spelling → usual spelling, learned by the knowledge base from its aliases (masla → masala). */
  readonly spellingVariants: ReadonlyMap<string, string>;
  /** One-word cuisine names (the cuisine labels and lexicon/cuisine_queries.tsv): "Chinese" in a name says where a
   * dish is from, not which version of it. */
  readonly cuisineNames: ReadonlySet<string>;
  /** What an item is packed in (lexicon/variant_words.tsv packed_in): no difference on one side or swapped. */
  readonly packedIn: ReadonlySet<string>;
  /** Words that say how an item is served, not what it is: one-word serving sizes and groups (serving_words.tsv group
   * and single: Solo, Family, Bucket) and what it is served in (cleaning_words.tsv vessel and container: Bowl, Cup). */
  readonly served: ReadonlySet<string>;
  readonly spelling: SpellingConventions;
}

/**
 * Builds the defining words from the knowledge base rather than from a list of special cases:
 *   - every word by which the two sides of a hard negative differ (hard_negatives.tsv: diet, protein, style, form,
 *     variant, brand and add-on kinds: garlic/butter, dry/gravy, biryani, eggless, coke/pepsi, meal, extra, …);
 *   - the words of the course lexicon (category.tsv: biryani, naan, shake, cake, soup, …) and of the strong cuisine
 *     cues (cuisine_cues.tsv: pizza, dosa, manchurian, …), which name dish forms;
 *   - every other word of the dish names and aliases: on one menu, a food word one item has and the other lacks
 *     (Ghee Onion Rava Dosa / Onion Rava Dosa, Babycorn Mushroom Curry / Mushroom Curry) names another item;
 * minus the words the knowledge base shows to be optional (a dish listed with and without them, "Kerala Parotta" /
 * "Parotta"), the words that name no other item (lexicon/variant_words.tsv same_item: big, jumbo, plain) and filler
 * words. Words the knowledge base does not know (brand prefixes, "McSaver", "Chicago") are
 * left to the encoder: the cosine threshold decides them.
 */
export function loadDefiningWords(dir: string, k: Knowledge, lookup: DishLookup = k.lookup): DefiningWordLexicon {
  const defining = new Set<string>();
  const addAll = (words: Iterable<string>): void => {
    for (const w of words) if (!/^\d+$/.test(w)) defining.add(w);
  };
  for (const row of readTsv(join(dir, 'hard_negatives.tsv'), HARD_NEGATIVES_HEADER)) {
    const [a, b] = row.cells;
    if (!a || !b) continue;
    const wa = new Set(dishWords(k, a));
    const wb = new Set(dishWords(k, b));
    addAll([...wa].filter((w) => !wb.has(w)));
    addAll([...wb].filter((w) => !wa.has(w)));
  }
  for (const row of readTsv(join(dir, 'lexicon', 'category.tsv'), ['keyword', 'course', 'note'])) {
    if (row.cells[0]) addAll(dishWords(k, row.cells[0]));
  }
  for (const row of readTsv(join(dir, 'lexicon', 'cuisine_cues.tsv'), ['keyword', 'cuisine', 'strength'])) {
    if (row.cells[0] && row.cells[2] === 'strong') addAll(dishWords(k, row.cells[0]));
  }
  for (const w of lookup.dishesByToken.keys()) addAll(dishWords(k, w));
  const known = new Set<string>(defining);
  for (const w of lookup.optionalWords) defining.delete(k.singular(w));
  for (const w of [...k.words.sameItemWords, ...k.words.packedInWords]) defining.delete(w);
  const cuisineNames = new Set([...CUISINE_LABELS.map((c) => c.toLowerCase()), ...k.words.cuisineQueries.map(([name]) => name)].filter((n) => !n.includes(' ')));
  const served = new Set([...k.words.serving.group, ...k.words.serving.single, ...k.words.cleaning.vessel, ...k.words.cleaning.container].filter((w) => !w.includes(' ')));
  return { defining, known, spellingVariants: lookup.spellingVariants, cuisineNames, packedIn: k.words.packedInWords, served, spelling: k.words.spelling };
}

/** cheese / cheesy, spice / spicy, cream / creamy: the noun and its -y adjective name the same thing on a menu. */
function isAdjectiveForm(word: string, other: string, spelling: SpellingConventions): boolean {
  // By the ending, not the length: "cheese" and "cheesy" are both six letters.
  const [noun, adj] = other.endsWith('y') ? [word, other] : [other, word];
  if (noun.length < spelling.typoMinLetters || !adj.endsWith('y')) return false;
  return adj === `${noun}y` || (noun.endsWith('e') && adj === `${withoutEnding(noun, 'e')}y`);
}

/**
 * `word` is a spelling of `other`. Two known words are two words (tikka / tikki), never a typo of each other, unless
 * `namesOfOneDish`: the knowledge base lists both names, exactly, for one dish, so two near spellings in them are its
 * spellings (a dish whose aliases spell its main vegetable two ways).
 */
function isSpellingOf(word: string, other: string, lex: DefiningWordLexicon, namesOfOneDish = false): boolean {
  if (lex.spellingVariants.get(word) === other || lex.spellingVariants.get(other) === word) return true;
  if (isAdjectiveForm(word, other, lex.spelling)) return true;
  if (!namesOfOneDish && lex.known.has(word) && lex.known.has(other)) return false;
  // An unknown word near a known one is a misspelling of it (shahee / shahi, garlik / garlic, makhni / makhani).
  const spelling = lex.spelling;
  if (Math.min(word.length, other.length) < spelling.typoMinLetters) return false;
  // Two edits are looked at from the sound-fold length, but taken on their own only from the two-typo length.
  const max = Math.max(word.length, other.length) >= spelling.soundFoldMinLetters ? 2 : 1;
  const d = editDistance(word, other, max);
  if (d <= 1 || (d <= max && Math.min(word.length, other.length) >= spelling.twoTyposMinLetters)) return true;
  // Two edits in a short word are a third of it: only with the first letter and the consonants kept (shahee / shahi,
  // not zinger / longer, nor a consonant changed and a letter added).
  const key = soundKey(word);
  const sameSound = key === soundKey(other);
  if (d <= max && word[0] === other[0] && sameSound) return true;
  return key.length >= 3 && sameSound;
}

/** One word is a part of the other's compound ("shake" / "milkshake", "chip" / "chocochip"). */
function isCompoundPart(word: string, other: string, spelling: SpellingConventions): boolean {
  if (word.length < spelling.typoMinLetters || other.length <= word.length) return false;
  return other.startsWith(word) || other.endsWith(word);
}

/** Two words naming the same protein in two languages (murgh / chicken, gosht / mutton, jhinga / prawn). */
function isSameProtein(k: Knowledge, word: string, other: string): boolean {
  const p = parseCleanedText(k, word).cues.protein.value;
  return p !== null && p === parseCleanedText(k, other).cues.protein.value;
}

/**
 * Why two cleaned names are different dishes by their words, or null when their words allow them to be one.
 *
 * Words only one side has are compared after fillers, plurals, word order and compound spacing (Milk Shake /
 * Milkshake) are set aside, and misspellings and -y adjectives (Cheese / Cheesy) are paired with their word. Then:
 *   - each side has a word the other lacks (Garlic / Butter Naan, Dry / Gravy, Coke / Pepsi, Lahori / Zesty Chicken
 *     Pizza): two variants, different dishes;
 *   - one side adds a defining word (X / X Biryani, Eggless X / X, Ghee Onion Rava Dosa / Onion Rava Dosa) or a
 *     number (Chicken 65 / Chicken 555, Combo 1 / Combo 2): different dishes;
 *   - one side adds only words the knowledge base does not know (McSaver, Chicago): left to the cosine threshold.
 * With `synonyms` (the knowledge base lists both names, exactly, for one dish) the names are one dish when they share
 * no content word (a translation: Butter Chicken / Murgh Makhani), when one only adds words that say what the dish is
 * or where it is from (a fuller form: Cappuccino / Cappuccino Coffee, or a cuisine name; a food word that makes a
 * version still differs), or when the swapped words are compound parts or one protein in two languages
 * (Chocolate Shake / Chocolate Milkshake, Murgh Tikka / Chicken Tikka). Two named variants the knowledge base files
 * under one dish (Chilli Thattai / Pepper Thattai, Malai Peda / Doodh Peda) still differ: a menu listing both sells
 * two things.
 */
export function definingWordDifference(k: Knowledge, a: string, b: string, synonyms = false): string | null {
  return wordDifference(k, dishWords(k, a), dishWords(k, b), synonyms);
}

/** definingWordDifference on names already split by dishWords (dedup splits each name once). */
export function wordDifference(k: Knowledge, wa: readonly string[], wb: readonly string[], synonyms: boolean): string | null {
  const lex = k.definingWords;
  if (wa.join('') === wb.join('')) return null;
  const negation = negatedWord(wa, wb, lex.spelling) ?? negatedWord(wb, wa, lex.spelling);
  if (negation !== null) return negation;
  // The course of a name is read from its own words, not from the group tokens that stand for them.
  const [namedA, namedB] = [wa, wb];
  const { folded, onlyA, restA, restB } = unmatchedWords(k, wa, wb, synonyms
    ? (w, o) => isCompoundPart(w, o, lex.spelling) || isCompoundPart(o, w, lex.spelling) || isSameProtein(k, w, o) || isSpellingOf(w, o, lex, true)
    : null);
  if (restA.length === 0 && restB.length === 0) return null;
  const isDefining = (w: string): boolean => /^\d+$/.test(w) || lex.defining.has(w);
  if (synonyms) {
    const shared = onlyA.length < folded.length;
    if (!shared) return null;
    if (restA.length > 0 && restB.length > 0) return restA.find(isDefining) ?? restB.find(isDefining) ?? null;
    // One name is the other plus words: a fuller form when the words say what the dish is ("Cappuccino Coffee") or
    // where it is from ("Veg Chinese Fried Rice"); a food word that makes a version of it ("Ghee Uttapam", "Dry Fruit
    // Rabdi") is a second item, though the knowledge base files both names under one dish.
    const [added, base] = restA.length > 0 ? [restA, namedB] : [restB, namedA];
    const course = categoryOf(k.cues, base.join(' ')).value;
    const namesCourse = (w: string): boolean => {
      const cue = categoryOf(k.cues, w);
      return cue.evidence.length > 0 && cue.value === course;
    };
    // A veg marker added to a name that reads veg by its own words (a kebab of greens) says nothing new; added to one
    // that does not (a manchurian, made with chicken too), it names the veg one of two.
    // Read only for an added veg marker: most pairs the judge sees have none, and this runs per candidate pair.
    let baseIsVeg: boolean | undefined;
    const redundantMarker = (w: string): boolean =>
      dietMarkers(k.cues, w).vegOrNonVeg && dietOf(k.cues, w).value === 'veg' && (baseIsVeg ??= dietOf(k.cues, base.join(' ')).value === 'veg');
    return added.find((w) => lex.defining.has(w) && !lex.cuisineNames.has(w) && !namesCourse(w) && !redundantMarker(w)) ?? null;
  }
  if (restA.length > 0 && restB.length > 0) return restA[0]!;
  return restA.find(isDefining) ?? restB.find(isDefining) ?? null;
}

/**
 * What the guard and the swap read of two names: the words each alone has once the names menus use for one food are
 * folded (`folded`: the first name so). A misspelling, a form word's participle (Steam / Steamed), another name of one
 * food, the same food word in another language (a `same` translation: Macchi / Fish) and what `alsoPairs` pairs are
 * paired with the other side's word, and packaging is set aside (one drink in a can or a bottle is one drink, on one
 * side or swapped).
 */
function unmatchedWords(k: Knowledge, wa: readonly string[], wb: readonly string[], alsoPairs: ((w: string, o: string) => boolean) | null) {
  const lex = k.definingWords;
  const [folded, foldedB] = foldSharedEquivalents(k.equivalents, wa, wb);
  const [onlyA, onlyB] = differingWords(folded, foldedB);
  const [pairedA, pairedB] = unpaired(onlyA, onlyB, (w, o) => foldParticiple(w) === foldParticiple(o) || isSpellingOf(w, o, lex) || sameFoodWords(k.equivalents, w, o) || sameWordInEnglish(k.translations, w, o) || (alsoPairs?.(w, o) ?? false));
  return { folded, onlyA, restA: pairedA.filter((w) => !lex.packedIn.has(w)), restB: pairedB.filter((w) => !lex.packedIn.has(w)) };
}

/** steamed → steam, grilled → grill: a form word and its participle are one word ("Steam Momo" / "Steamed Momos"). */
export function foldParticiple(word: string): string {
  return word.length > 5 && word.endsWith('ed') ? word.slice(0, -2) : word;
}

/**
 * Two names that each put one dish-defining word where the other has another ("Malai Kofta" / "Malai Korma"): two
 * dishes by the knowledge base's words, whatever else their names share. Misspellings, participles, the names a menu
 * uses for one food, packaging and the words that say how it is served are set aside first. Null unless exactly one
 * word on each side is left and both are defining (a brand or a house name is left to the models).
 */
export function swappedDefiningWords(k: Knowledge, wa: readonly string[], wb: readonly string[]): readonly [string, string] | null {
  const lex = k.definingWords;
  if (wa.join('') === wb.join('')) return null;
  const unmatched = unmatchedWords(k, wa.map(foldParticiple), wb.map(foldParticiple), null);
  const restA = unmatched.restA.filter((w) => !lex.served.has(w));
  const restB = unmatched.restB.filter((w) => !lex.served.has(w));
  if (restA.length !== 1 || restB.length !== 1) return null;
  const [a, b] = [restA[0]!, restB[0]!];
  return lex.defining.has(a) && lex.defining.has(b) ? [a, b] : null;
}

/**
 * A word `a` says the dish is without and `b` says it is with ("Boneless" or "Bone Less" / "Bone", "Sugarless" /
 * "Sugar"): a menu listing both sells two items, whatever the knowledge base files the names under.
 */
function negatedWord(a: readonly string[], b: readonly string[], spelling: SpellingConventions): string | null {
  const plain = new Set(b.filter((w, i) => b[i + 1] !== 'less'));
  for (let i = 0; i < a.length; i++) {
    const w = a[i]!;
    const stem = a[i + 1] === 'less' ? w : w.endsWith('less') ? withoutEnding(w, 'less') : '';
    if (stem.length >= spelling.wordPartMinLetters && plain.has(stem)) return a[i + 1] === 'less' ? `${w} less` : w;
  }
  return null;
}

/** The words each side alone has that pair with no word the other side alone has (`pairsWith(word, otherSideWord)`). */
function unpaired(onlyA: readonly string[], onlyB: readonly string[], pairsWith: (w: string, o: string) => boolean): [string[], string[]] {
  const rest = (mine: readonly string[], theirs: readonly string[]) => mine.filter((w) => !theirs.some((o) => pairsWith(w, o)));
  return [rest(onlyA, onlyB), rest(onlyB, onlyA)];
}

/**
 * Whether two names (their dishWords) are one name but for misspellings: each word only one side has pairs with a word only the other
 * has as a spelling of it (an unknown word near a known one: "Mughalaih" / "Mughlai", a rare spelling the knowledge
 * base learned from its aliases, a -y adjective). Two known words never pair ("Kofta" / "Korma", "Keema" / "Kebab"),
 * and the names must share a word, so a lone typo is not read into a lone word.
 */
export function spelledAlike(k: Knowledge, wa: readonly string[], wb: readonly string[]): boolean {
  const lex = k.definingWords;
  if (wa.join('') === wb.join('')) return false;
  const [onlyA, onlyB] = differingWords(wa, wb);
  if (onlyA.length === 0 || onlyA.length !== onlyB.length || onlyA.length >= wa.length) return false;
  const [restA, restB] = unpaired(onlyA, onlyB, (w, o) => isSpellingOf(w, o, lex));
  return restA.length === 0 && restB.length === 0;
}
