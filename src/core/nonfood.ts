import { headProbabilities, type LinearHead } from './classify.js';
import type { EncoderHeads } from './heads.js';
import { nameKey, type Knowledge } from './knowledge/index.js';
import type { MenuText } from './menu-text.js';
import { CONFIDENT_DISH_SCORE } from './knowledge/lookup.js';
import { foldMenuText } from './knowledge/cues.js';
import type { WordLexicons } from './knowledge/words.js';
import type { Services } from './services.js';

/**
 * Non-food detection: which items of a "menu" are really pharmacy, grocery or merchandise listings.
 *
 * Conventions (knowledge/nonfood/*.txt): grocery is dry cooking staples, household and personal care and pet supplies;
 * pharmacy is medicines, OTC and health products; merchandise is apparel, kitchenware, gifts and gift cards. Bottled
 * drinks with a size, ready-to-eat packets, cakes and sweets by weight and fresh dairy stay food (stays_food.txt).
 *
 * Decision, per item:
 *  1. Rules: a medicine strength ("650 mg") or a dosage form only medicines take ("Tablet", "Capsule", "Suspension")
 *     → pharmacy; a garment with an apparel size ("Logo Tee Black L") → merchandise; a word no menu uses for food
 *     (UNMISTAKABLE: shampoo, eau de toilette, gift card, multivitamin…) → its category.
 *  2. A name the knowledge base knows as a dish ("Coke 500ml" → Coca-Cola, "Masala Tea") is food.
 *  3. Otherwise the non-food head (models/heads/nonfood-head.json): softmax regression over the 384-d embedding
 *     of the cleaned text plus lexical inputs read from the original text (sizes are stripped by cleaning but say a
 *     lot: pack counts, weights and volumes, staple words with a pack size, household and merchandise words) and
 *     the share of the name's words that dish names use. It is trained on the exemplar lists against every
 *     knowledge-base dish name (each also with a menu-style size, so a size alone never makes food non-food). An
 *     item is non-food when its food probability is below the head's threshold (chosen on held-out exemplars and
 *     dishes), labelled with the likeliest non-food class.
 *  4. Without a usable head, steps 1-2 answer and everything else is food.
 */

export type NonFoodCategory = 'pharmacy' | 'grocery' | 'merchandise';
export const NONFOOD_HEAD_LABELS = ['food', 'grocery', 'pharmacy', 'merchandise'] as const;

/** The names of the lexical cues, in the order of the head's inputs (stored with the head, so a retrain is forced
 * when the list changes). */
const LEXICAL_CUE_NAMES = [
  'medicine_strength', 'dosage_form', 'shared_form', 'pharmacy_count', 'pack_count', 'weight_size', 'volume_size',
  'bulk_size', 'apparel_size', 'garment', 'merchandise_item', 'household_care', 'staple_pack',
] as const;
type LexicalCue = (typeof LEXICAL_CUE_NAMES)[number];

/**
 * The patterns of the non-food cues: the word lists are lexicon/nonfood_cues.tsv's (each list's alternatives in file
 * order), the grammar around them (numbers, units, sizes) is here. Compiled once per detection run.
 */
export interface NonFoodPatterns {
  readonly lexical: readonly (readonly [LexicalCue, RegExp])[];
  readonly unmistakable: readonly (readonly [NonFoodCategory, RegExp])[];
}

export function nonFoodPatterns(words: WordLexicons): NonFoodPatterns {
  const list = (name: string): string => (words.nonFoodCues.get(name) ?? []).join('|');
  const whole = (name: string): RegExp => new RegExp(`\\b(?:${list(name)})\\b`);
  const lexical: Record<LexicalCue, RegExp> = {
    // Medicine strengths: 650 mg, 100mcg, 400 IU, "1% cream" (a bare percentage is too often "100% Whole Wheat").
    medicine_strength: new RegExp(`\\b\\d+(?:\\.\\d+)?\\s?(?:mg|mcg|µg|iu)\\b|\\b\\d+(?:\\.\\d+)?%\\s?(?:${list('strength_form')})\\b`),
    // Dosage forms that only medicines take.
    dosage_form: whole('dosage_form'),
    // Forms medicines share with food or cosmetics; weak alone.
    shared_form: whole('shared_form'),
    // How pharmacies count: strip of 15, 10's, bottle of 30, 30 tablets.
    pharmacy_count: new RegExp(`\\bstrip of \\d+|\\bbottle of \\d+|\\b\\d+\\s?'?s\\b|\\b\\d+\\s?(?:${list('pharmacy_count_unit')})\\b`),
    // How shops count packs: pack of 4, set of 2, roll of 30, 1 unit.
    pack_count: new RegExp(`\\b(?:${list('pack_noun')}) of \\d+|\\b\\d+\\s?(?:units?|pouch|refills?)\\b|\\bfamily pack\\b|\\bvalue pack\\b|\\brefill\\b`),
    weight_size: /\b\d+(?:\.\d+)?\s?(?:kg|kgs|g|gm|gms|gram|grams)\b/,
    volume_size: /\b\d+(?:\.\d+)?\s?(?:l|ltr|ltrs|litre|liter|litres|liters|ml)\b/,
    // Bulk packs (2 kg or more, 2 L or more): a menu rarely sells that much of one thing.
    bulk_size: /\b(?:[2-9]|[1-9]\d+)(?:\.\d+)?\s?(?:kg|kgs|l|ltr|litre|liter|litres|liters)\b/,
    // Apparel sizes at the end of a name, not after a number ("1 L" is a litre).
    apparel_size: /(?:^|[^\d\s]\s+)(?:xs|s|m|l|xl|xxl|xxxl|2xl|3xl)\s*$|\bfree size\b|\bsize (?:xs|s|m|l|xl|xxl|\d+)\b/,
    garment: whole('garment'),
    merchandise_item: whole('merchandise_item'),
    household_care: whole('household_care'),
    // A dry-staple word sold with a pack size ("Toor Dal 1 kg", "Sunflower Oil 1 L"): the word alone is a dish as often
    // as not (Dal Tadka, Besan Ladoo, Salt and Pepper Corn), so it only counts together with a size or a pack count.
    staple_pack: new RegExp(`\\b(?:${list('staple_word')})\\b.*\\b\\d+(?:\\.\\d+)?\\s?(?:kg|kgs|g|gm|gms|gram|grams|l|ltr|litre|liter|litres|ml)\\b|\\b(?:${list('staple_pack_noun')}) of \\d+`),
  };
  return {
    lexical: LEXICAL_CUE_NAMES.map((name) => [name, lexical[name]] as const),
    // Words no menu uses for something to eat, by the category they prove (see lexicon/nonfood_cues.tsv).
    unmistakable: (['pharmacy', 'merchandise', 'grocery'] as const).map((c) => [c, whole(`unmistakable_${c}`)] as const),
  };
}

/**
 * How much of the name is food vocabulary: the share of its words that some knowledge-base dish name or alias uses,
 * whether none is, and whether the first word is not (brands come first: "Tata Sampann Chana Dal", "Yardley London
 * …"). Generic menu words (knowledge/lexicon/menu_words.txt) and numbers count neither way.
 */
const VOCABULARY_FEATURES = ['dish_word_share', 'no_dish_word', 'first_word_not_dish'] as const;

export const NONFOOD_LEXICAL_FEATURES: readonly string[] = [...LEXICAL_CUE_NAMES, ...VOCABULARY_FEATURES];

/**
 * [share, none, firstUnknown] of a cleaned text's words in the dish vocabulary. `excludeDishId` leaves one dish out
 * of the vocabulary, so that training rows made from a dish's own names measure what an unseen dish would look like.
 */
export function dishVocabularyFeatures(k: Knowledge, cleaned: string, excludeDishId?: number): [number, number, number] {
  return vocabularyFeaturesOfKey(k, nameKey(cleaned), excludeDishId);
}

/** dishVocabularyFeatures of a name already keyed by nameKey (MenuText.key). */
function vocabularyFeaturesOfKey(k: Knowledge, key: string, excludeDishId?: number): [number, number, number] {
  const byToken = k.lookup.dishesByToken;
  const generic = k.menuWords;
  const words = key.split(' ').filter((w) => w.length >= 2 && !/^\d+$/.test(w) && !generic.has(w));
  if (words.length === 0) return [1, 0, 0];
  const known = words.map((w) => {
    const ids = byToken.get(w);
    return ids !== undefined && (excludeDishId === undefined || ids.some((id) => id !== excludeDishId));
  });
  const share = known.filter(Boolean).length / words.length;
  return [share, share === 0 ? 1 : 0, known[0] ? 0 : 1];
}

/** Lower-case, accents folded, and "T-Shirt" / "500ml" spelled the way the patterns expect. */
function lexicalForm(text: string): string {
  return foldMenuText(text)
    .replace(/[‐-―]/g, '-')
    .replace(/(\d)\s*(?=[a-z])/g, '$1 ')
    .replace(/(\d) (mg|mcg|iu|kg|kgs|g|gm|gms|ml|l|ltr|ltrs|s)\b/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The lexical inputs of one item for the head (order: NONFOOD_LEXICAL_FEATURES): 0/1 cues read from the original text
 * and the cleaned text together (cleaning strips the sizes), then the dish-vocabulary features of the cleaned text.
 */
export function nonFoodLexicalFeatures(
  k: Knowledge,
  patterns: NonFoodPatterns,
  original: string,
  cleaned: string,
  excludeDishId?: number,
): Float32Array {
  return lexicalFeaturesOf(k, patterns, lexicalForms(original, cleaned), nameKey(cleaned), excludeDishId);
}

/** An item's original and cleaned text as the cue patterns read them, and the original alone (for apparel sizes). */
interface LexicalForms {
  readonly both: string;
  readonly original: string;
}

function lexicalForms(original: string, cleaned: string): LexicalForms {
  const form = lexicalForm(original);
  return { both: `${form} | ${lexicalForm(cleaned)}`, original: form };
}

function lexicalFeaturesOf(k: Knowledge, patterns: NonFoodPatterns, forms: LexicalForms, key: string, excludeDishId?: number): Float32Array {
  const text = forms.both;
  const lastPart = forms.original;
  const out = new Float32Array(NONFOOD_LEXICAL_FEATURES.length);
  out.set(vocabularyFeaturesOfKey(k, key, excludeDishId), patterns.lexical.length);
  patterns.lexical.forEach(([name, pattern], i) => {
    // Apparel sizes are read at the end of the original only; elsewhere "s"/"m"/"l" are just letters.
    const hit = name === 'apparel_size' ? pattern.test(lastPart) : pattern.test(text);
    out[i] = hit ? 1 : 0;
  });
  return out;
}

const FEATURE = Object.fromEntries(NONFOOD_LEXICAL_FEATURES.map((n, i) => [n, i])) as Record<string, number>;

/** The category an unmistakable non-food word proves, or null. */
function unmistakableCategory(patterns: NonFoodPatterns, forms: LexicalForms): NonFoodCategory | null {
  for (const [category, pattern] of patterns.unmistakable) if (pattern.test(forms.both)) return category;
  return null;
}

/** True when the cues name a medicine outright: a strength, or a dosage form only medicines take. */
function medicineCue(f: Float32Array): boolean {
  return f[FEATURE['medicine_strength']!] === 1 || f[FEATURE['dosage_form']!] === 1;
}

/** True when the cues name wearable merchandise: a garment word with an apparel size after it. */
function garmentCue(f: Float32Array): boolean {
  return f[FEATURE['garment']!] === 1 && f[FEATURE['apparel_size']!] === 1;
}

/** Throws why a non-food head does not fit this code (its labels or its lexical inputs differ). */
export function checkNonFoodHead(head: LinearHead): void {
  if (head.labels.join('|') !== NONFOOD_HEAD_LABELS.join('|')) {
    throw new Error('labels differ from NONFOOD_HEAD_LABELS; retrain');
  }
  if (head.extraFeatures.join('|') !== NONFOOD_LEXICAL_FEATURES.join('|')) {
    throw new Error('lexical features differ from NONFOOD_LEXICAL_FEATURES; retrain');
  }
}

/** Status of the non-food head ("ready (…)" or null), for diagnostics. */
export function nonFoodStatus(heads: EncoderHeads): string | null {
  const head = heads.nonFood();
  return head ? `ready (${head.name} on ${head.encoder}, food below ${head.threshold} is non-food)` : null;
}

export interface NonFoodVerdict {
  readonly category: NonFoodCategory | null;
  /** Probability that the item is food (1 when a rule decided food, 0 when a rule decided non-food). */
  readonly foodProbability: number;
  readonly source: 'dish' | 'head' | 'cue' | 'default';
}

/** Knows the cleaned text as a dish (exactly, or confidently fuzzy, or an ambiguous name of several dishes). */
function isKnownDish(text: MenuText): boolean {
  const p = text.profile;
  if (p.dish && (p.dishHow === 'exact' || p.dishScore >= CONFIDENT_DISH_SCORE)) return true;
  return !p.dish && text.candidates.length > 0;
}

/** Per-item verdicts with their evidence (detectNonFood returns only the categories). */
export function judgeNonFood(
  k: Knowledge,
  heads: EncoderHeads,
  items: readonly MenuText[],
  vectors384: readonly Float32Array[],
): NonFoodVerdict[] {
  if (items.length !== vectors384.length) throw new Error('judgeNonFood: one vector per item');
  const head = heads.nonFood();
  const patterns = nonFoodPatterns(k.words);
  return items.map((item, i) => {
    const forms = lexicalForms(item.original, item.text);
    const f = lexicalFeaturesOf(k, patterns, forms, item.key);
    // Medicine strengths and dosage forms, garments with a size, and unmistakable non-food words decide alone.
    const ruled = medicineCue(f) ? 'pharmacy' : garmentCue(f) ? 'merchandise' : unmistakableCategory(patterns, forms);
    if (ruled) return { category: ruled, foodProbability: 0, source: 'cue' };
    if (isKnownDish(item)) return { category: null, foodProbability: 1, source: 'dish' };
    if (!head) return { category: null, foodProbability: 1, source: 'default' };
    const p = headProbabilities(head, vectors384[i]!, f);
    const food = p[0]!;
    if (food >= head.threshold) return { category: null, foodProbability: food, source: 'head' };
    let best = 1;
    for (let r = 2; r < p.length; r++) if (p[r]! > p[best]!) best = r;
    return { category: head.labels[best] as NonFoodCategory, foodProbability: food, source: 'head' };
  });
}

/**
 * Non-food category of each item (null = food). `vectors384[i]` is the 384-d vector of `items[i]`'s cleaned text
 * (services.embedTexts(originals, 384)). Shared by /report and /suggest.
 */
export async function detectNonFood(
  services: Services,
  items: readonly MenuText[],
  vectors384: readonly Float32Array[],
): Promise<('pharmacy' | 'grocery' | 'merchandise' | null)[]> {
  return judgeNonFood(services.knowledge, services.heads, items, vectors384).map((v) => v.category);
}
