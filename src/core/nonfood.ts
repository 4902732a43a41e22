import { HeadSlot, headProbabilities, type LinearHead } from './classify.js';
import { profileItem } from './items.js';
import { join } from 'node:path';
import { getKnowledge, nameKey } from './knowledge/index.js';
import { foldMenuText } from './knowledge/cues.js';
import { readList } from './knowledge/tsv.js';
import { KNOWLEDGE_DIR } from './paths.js';
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

/** Each lexical cue: a name (stored with the head, so a retrain is forced when the list changes) and its pattern. */
const LEXICAL_CUES: readonly (readonly [string, RegExp])[] = [
  // Medicine strengths: 650 mg, 100mcg, 400 IU, "1% cream" (a bare percentage is too often "100% Whole Wheat").
  ['medicine_strength', /\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|iu)\b|\b\d+(?:\.\d+)?%\s?(?:w\/w|w\/v|cream|gel|ointment|solution|lotion|drops|shampoo)\b/],
  // Dosage forms that only medicines take.
  ['dosage_form', /\b(?:tablets?|tabs?|capsules?|suspension|injection|inj|ointment|lozenges?|inhaler|respules|softgels?|syringe|nebuli[sz]er|bandages?|eye drops?|ear drops?|nasal drops?|nasal spray|oral drops?|sr tablet)\b/],
  // Forms medicines share with food or cosmetics; weak alone.
  ['shared_form', /\b(?:syrup|drops|sachets?|gel|balm|cream|spray|powder|lotion|tonic|solution|granules|oil)\b/],
  // How pharmacies count: strip of 15, 10's, bottle of 30, 30 tablets.
  ['pharmacy_count', /\bstrip of \d+|\bbottle of \d+|\b\d+\s?'?s\b|\b\d+\s?(?:tablets|capsules|pads|sachets)\b/],
  // How shops count packs: pack of 4, set of 2, roll of 30, 1 unit.
  ['pack_count', /\b(?:pack|set|roll|box|combo pack) of \d+|\b\d+\s?(?:units?|pouch|refills?)\b|\bfamily pack\b|\bvalue pack\b|\brefill\b/],
  ['weight_size', /\b\d+(?:\.\d+)?\s?(?:kg|kgs|g|gm|gms|gram|grams)\b/],
  ['volume_size', /\b\d+(?:\.\d+)?\s?(?:l|ltr|ltrs|litre|liter|litres|liters|ml)\b/],
  // Bulk packs (2 kg or more, 2 L or more): a menu rarely sells that much of one thing.
  ['bulk_size', /\b(?:[2-9]|[1-9]\d+)(?:\.\d+)?\s?(?:kg|kgs|l|ltr|litre|liter|litres|liters)\b/],
  // Apparel sizes at the end of a name, not after a number ("1 L" is a litre).
  ['apparel_size', /(?:^|[^\d\s]\s+)(?:xs|s|m|l|xl|xxl|xxxl|2xl|3xl)\s*$|\bfree size\b|\bsize (?:xs|s|m|l|xl|xxl|\d+)\b/],
  ['garment', /\b(?:t ?-?shirts?|tees?|tee shirt|hoodies?|sweatshirts?|jackets?|shirts?|polo|kurtas?|kurtis?|sarees?|jeans|trousers|shorts|leggings|socks|caps?|beanies?|aprons?|jerseys?|onesies?|bibs?|dress|shoes|sneakers|sandals|slippers|bra|briefs|boxers)\b/],
  ['merchandise_item', /\b(?:mugs?|tumblers?|sippers?|tote|bags?|keychains?|key chains?|fridge magnets?|magnets?|coasters?|gift cards?|gift vouchers?|e-?gift|vouchers?|posters?|notebooks?|pens?|umbrellas?|watch|watches|earrings?|necklaces?|pendants?|bracelets?|wallets?|sunglasses|phone (?:case|cover)|covers?|chargers?|cables?|headphones|earphones|speakers?|lamps?|cushions?|bedsheets?|curtains?|plates? set|dinner set|cutlery set|lunch box|water bottle|flask|casserole|cookware|kadai pan|tawa pan|pressure cooker|knife|knives|spatula|containers?|jars? set|toys?|puzzles?|figurines?|candles?)\b/],
  ['household_care', /\b(?:detergent|shampoo|conditioner|soap|toothpaste|toothbrush|hand ?wash|face ?wash|body ?wash|sanitiz(?:er|ing)|sanitis(?:er|ing)|cleaner|disinfectant|dish ?wash|phenyl|tissues?|napkins?|diapers?|sanitary|deodorant|deo|moisturi[sz]er|sunscreen|serum|hair oil|razor|shaving|wipes|agarbatti|incense|mosquito|repellent|garbage bags?|bulbs?|batter(?:y|ies)|aluminium foil|cling wrap|scrubber|mop|broom|freshener|fabric|bleach|toilet|floor|kajal|lipstick|nail|perfume|talc|pet food|cat food|dog food|litter|fragrance)\b/],
  // A dry-staple word sold with a pack size ("Toor Dal 1 kg", "Sunflower Oil 1 L"): the word alone is a dish as often
  // as not (Dal Tadka, Besan Ladoo, Salt and Pepper Corn), so it only counts together with a size or a pack count.
  ['staple_pack', /\b(?:atta|maida|besan|sooji|suji|rava|flour|salt|sugar|jaggery|oil|ghee|whole|seeds|tea|coffee|powder|dal|dals|pulses|rajma|chana|moong|urad|toor|arhar|poha|sabudana|rice|basmati|vermicelli|oats|cornflakes|muesli|cashews?|almonds?|raisins|walnuts|dry fruits?|noodles|pasta|ketchup|sauce|jam|mayonnaise|pickle|honey|spices?|masala|chunks|soya)\b.*\b\d+(?:\.\d+)?\s?(?:kg|kgs|g|gm|gms|gram|grams|l|ltr|litre|liter|litres|ml)\b|\b(?:pack|jar|pouch|bottle|packet|box) of \d+/],
];

/**
 * How much of the name is food vocabulary: the share of its words that some knowledge-base dish name or alias uses,
 * whether none is, and whether the first word is not (brands come first: "Tata Sampann Chana Dal", "Yardley London
 * …"). Generic menu words (knowledge/lexicon/menu_words.txt) and numbers count neither way.
 */
const VOCABULARY_FEATURES = ['dish_word_share', 'no_dish_word', 'first_word_not_dish'] as const;

export const NONFOOD_LEXICAL_FEATURES: readonly string[] = [...LEXICAL_CUES.map(([name]) => name), ...VOCABULARY_FEATURES];

let menuWords: ReadonlySet<string> | null = null;

function genericMenuWords(): ReadonlySet<string> {
  menuWords ??= new Set(readList(join(KNOWLEDGE_DIR, 'lexicon', 'menu_words.txt')).map(nameKey));
  return menuWords;
}

/**
 * [share, none, firstUnknown] of a cleaned text's words in the dish vocabulary. `excludeDishId` leaves one dish out
 * of the vocabulary, so that training rows made from a dish's own names measure what an unseen dish would look like.
 */
export function dishVocabularyFeatures(cleaned: string, excludeDishId?: number): [number, number, number] {
  const byToken = getKnowledge().lookup.dishesByToken;
  const generic = genericMenuWords();
  const words = nameKey(cleaned).split(' ').filter((w) => w.length >= 2 && !/^\d+$/.test(w) && !generic.has(w));
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
export function nonFoodLexicalFeatures(original: string, cleaned: string, excludeDishId?: number): Float32Array {
  const text = `${lexicalForm(original)} | ${lexicalForm(cleaned)}`;
  const lastPart = lexicalForm(original);
  const out = new Float32Array(NONFOOD_LEXICAL_FEATURES.length);
  out.set(dishVocabularyFeatures(cleaned, excludeDishId), LEXICAL_CUES.length);
  LEXICAL_CUES.forEach(([name, pattern], i) => {
    // Apparel sizes are read at the end of the original only; elsewhere "s"/"m"/"l" are just letters.
    const hit = name === 'apparel_size' ? pattern.test(lastPart) : pattern.test(text);
    out[i] = hit ? 1 : 0;
  });
  return out;
}

const FEATURE = Object.fromEntries(NONFOOD_LEXICAL_FEATURES.map((n, i) => [n, i])) as Record<string, number>;

/**
 * Words no menu uses for something to eat, by the category they prove. They decide on their own, before the
 * knowledge base and the head: the exemplar lists cannot cover every perfume, hair colour or gift card, and a
 * product like "Nike Man Eau De Toilette" would otherwise be judged by words that also name food (Man, Hub).
 * Words that double as food on real menus stay out: mug (mug cake), tumbler (tumbler coffee), cap (mushroom caps),
 * powder (gunpowder idli), oil, cream, gel, bottle, box, jar, flask.
 */
const UNMISTAKABLE: readonly (readonly [NonFoodCategory, RegExp])[] = [
  ['pharmacy', /\b(?:multivitamins?|supplements?|churna|thermometer|glucometer|bp monitor|test strips|pregnancy test|condoms?|first aid|antiseptic|pain relief|skin cream|cough syrup|cold syrup|antacid)\b/],
  ['merchandise', /\b(?:t ?-?shirts?|tee shirts?|hoodies?|sweatshirts?|gift cards?|gift vouchers?|e-?gift cards?|keychains?|key chains?|key rings?|fridge magnets?|tote bags?|aprons?|baseball caps?|sunglasses|earrings?|necklaces?|bracelets?|wallets?|phone (?:case|cover)s?|headphones|earphones|chargers?|umbrellas?|candles?|balloons?|soft toys?|stationery|boots|loafers|sneakers|stockings|camisoles?|nighty|nighties|dungarees?|brooch(?:es)?|gold diamond|diamond rings?|usb|routers?|motherboards?|laptops?|smartphones?|mobile (?:phone|cover|case)s?|womens|mens|girls|boys|unisex)\b/],
  ['grocery', /\b(?:shampoo|toothpaste|toothbrush|detergent|dish ?wash|face ?wash|hand ?wash|body ?wash|sanitiz(?:er|ing)|sanitis(?:er|ing)|deodorants?|deo|perfume|eau de (?:toilette|parfum|cologne)|edt|edp|body spray|hair (?:colou?r|dye|oil|serum|gel|conditioner)|conditioner|moisturi[sz]er|sunscreen|sun screen|sheet mask|peel off mask|face mask|facial kit|face pack|cleansing milk|face cream|body lotion|bathing bar|toilet cleaner|floor cleaner|phenyl|agarbatt?h?is?|incense|mosquito|repellent|diapers?|sanitary (?:pads?|napkins?)|panty liners?|wet wipes|garbage bags?|air freshener|kajal|lipstick|nail (?:polish|paint)|talc|razors?|shaving (?:cream|foam|gel)|after ?shave|cat food|dog food|cat litter|pet food|scrub pad|scrubber)\b/],
];

/** The category an unmistakable non-food word proves, or null. */
function unmistakableCategory(original: string, cleaned: string): NonFoodCategory | null {
  const text = `${lexicalForm(original)} | ${lexicalForm(cleaned)}`;
  for (const [category, pattern] of UNMISTAKABLE) if (pattern.test(text)) return category;
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

const nonFoodSlot = new HeadSlot('nonfood-head.json', (head: LinearHead) => {
  if (head.labels.join('|') !== NONFOOD_HEAD_LABELS.join('|')) {
    throw new Error('labels differ from NONFOOD_HEAD_LABELS; retrain');
  }
  if (head.extraFeatures.join('|') !== NONFOOD_LEXICAL_FEATURES.join('|')) {
    throw new Error('lexical features differ from NONFOOD_LEXICAL_FEATURES; retrain');
  }
});

/** Status of the non-food head ("ready (…)" or null), for diagnostics. */
export function nonFoodStatus(encoderId: string | null): string | null {
  const head = nonFoodSlot.forEncoder(encoderId);
  return head ? `ready (${head.name} on ${head.encoder}, food below ${head.threshold} is non-food)` : null;
}

export interface NonFoodVerdict {
  readonly category: NonFoodCategory | null;
  /** Probability that the item is food (1 when a rule decided food, 0 when a rule decided non-food). */
  readonly foodProbability: number;
  readonly source: 'dish' | 'head' | 'cue' | 'default';
}

/** Knows the cleaned text as a dish (exactly, or confidently fuzzy, or an ambiguous name of several dishes). */
function isKnownDish(cleaned: string): boolean {
  const p = profileItem(cleaned);
  if (p.dish && (p.dishHow === 'exact' || p.dishScore >= 0.85)) return true;
  return !p.dish && getKnowledge().lookup.dishCandidates(cleaned).length > 0;
}

/** Per-item verdicts with their evidence (detectNonFood returns only the categories). */
export function judgeNonFood(
  encoderId: string | null,
  items: readonly { original: string; cleaned: string }[],
  vectors384: readonly Float32Array[],
): NonFoodVerdict[] {
  if (items.length !== vectors384.length) throw new Error('judgeNonFood: one vector per item');
  const head = nonFoodSlot.forEncoder(encoderId);
  return items.map((item, i) => {
    const f = nonFoodLexicalFeatures(item.original, item.cleaned);
    // Medicine strengths and dosage forms, garments with a size, and unmistakable non-food words decide alone.
    const ruled = medicineCue(f) ? 'pharmacy' : garmentCue(f) ? 'merchandise' : unmistakableCategory(item.original, item.cleaned);
    if (ruled) return { category: ruled, foodProbability: 0, source: 'cue' };
    if (isKnownDish(item.cleaned)) return { category: null, foodProbability: 1, source: 'dish' };
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
 * Non-food category of each item (null = food). `items[i].cleaned` is the cleaned text whose 384-d vector is
 * `vectors384[i]` (services.embedTexts(originals, 384)). Shared by /report and /suggest.
 */
export async function detectNonFood(
  services: Services,
  items: { original: string; cleaned: string }[],
  vectors384: Float32Array[],
): Promise<('pharmacy' | 'grocery' | 'merchandise' | null)[]> {
  return judgeNonFood(services.modelId, items, vectors384).map((v) => v.category);
}
