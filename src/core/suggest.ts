import { headProbabilities, predictCuisines, type CuisineOrUncertain, type LinearHead } from './classify.js';
import type { EncoderHeads } from './heads.js';
import { vegOrNot, type ItemProfile } from './items.js';
import type { MenuText } from './menu-text.js';
import { COURSES, cuisineRelation, type Course, type Cuisine, type CuisineTable, type Knowledge } from './knowledge/index.js';
import { literalAlternatives } from './knowledge/words.js';
import { DEFAULT_COSINE_THRESHOLD, judgePairs, type PairPrecision } from './match.js';
import { judgeNonFood } from './nonfood.js';
import type { Services } from './services.js';
import type { RemovedNoise } from './text/clean.js';
import { dot, FULL_DIMENSION } from './inference/encoder.js';
import { cosineTopK } from '../native/index.js';
import { roundScore } from './number-format.js';
import { upsellFeatures, type UpsellEvidence, type UpsellModel } from './upsell.js';

/** The width of the vectors suggestions compare (the full 384-d embedding). */
const DIMENSION = FULL_DIMENSION;

/** Unit vectors of one width as one row-major matrix. */
function rowsOf(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors.length * DIMENSION);
  vectors.forEach((v, i) => out.set(v, i * DIMENSION));
  return out;
}

/**
 * Cart upsell suggestions (POST /suggest).
 *
 * Every cart and menu item gets a category (the course: main, beverage, bread, side, dessert), a diet and a cuisine
 * from the same profile and classifier every other endpoint uses (suggestCategory fills in a course the profile could
 * only guess). The cart is summarised (cart_cuisine, cart_dietary, cart_categories), menu items are filtered, then
 * ranked greedily.
 *
 * Filters (a menu item is never suggested when):
 *  - the cart is veg and the item is not known to be veg (egg counts as non-veg; an unknown diet is not risked);
 *  - it is the same dish as a cart item: the same cleaned name (so "Coke 500ml" is "Coke"), the same knowledge-base
 *    dish (one side resolved confidently), or a same-dish verdict of the /match precision stage (noisy spellings,
 *    reorderings, size variants);
 *  - it is the same dish as a suggestion already made (menus list "Coke 300 ml" and "Coke 500 ml");
 *  - the non-food detector flags it (a menu's T-shirts and medicines are not upsells).
 *
 * Score (0–1), per remaining item, from q, the item's goodness as an add-on to this cart (0–1: the fitted upsell
 * model of upsell.ts over the cuisine relation, the course the item fills given the cart's, and its cosine to the
 * cart's nearest item):
 *  - its category is missing from the cart and from the suggestions made so far: (1 + q) / 2, so every missing
 *    category outranks every other suggestion;
 *  - otherwise q / 2 · d^n, n = suggestions already made in its category, d the model's repeatDecay (spreads the list
 *    over categories; fitted with the model).
 * The list is built by repeatedly taking the best current score, so scores never increase down the list.
 */

export const SUGGEST_CATEGORIES: readonly Course[] = ['main', 'beverage', 'bread', 'side', 'dessert'];
export type CartDietary = 'veg' | 'non_veg' | 'mixed' | 'unknown';

export interface Suggestion {
  item: string;
  category: Course;
  reason: string;
  score: number;
  cuisine_match: boolean;
}

export interface CartSuggestions {
  suggestions: Suggestion[];
  cart_cuisine: string;
  cart_dietary: CartDietary;
  cart_categories: Course[];
}

/** What the ranking knows about one text (cart or menu item). */
export interface ItemFacts {
  /** The text, read once. */
  readonly text: MenuText;
  readonly original: string;
  readonly cleaned: string;
  readonly key: string;
  readonly profile: ItemProfile;
  readonly category: Course;
  /** What filtering trusts: egg counts as non-veg, including egg by usual recipe. */
  readonly diet: 'veg' | 'non_veg' | 'unknown';
  /** What reading the cart trusts: an item that is egg only by usual recipe ("Chocolate Brownie") is unknown, so it
   * neither makes a veg cart mixed nor lets non-veg suggestions through. */
  readonly cartDiet: 'veg' | 'non_veg' | 'unknown';
  readonly cuisine: CuisineOrUncertain;
}

/** The words of a rice or noodle main (lexicon/no_bread_words.txt), as whole words of a cleaned name. */
function noBreadPattern(k: Knowledge): RegExp {
  return new RegExp(`\\b(?:${literalAlternatives(k.words.noBreadWords)})\\b`, 'i');
}

/** A main eaten with bread: a curry or gravy of a bread cuisine, not a biryani, pulao or noodle dish (`noBread`). */
function wantsBread(cuisines: CuisineTable, item: ItemFacts, noBread: RegExp): boolean {
  if (item.category !== 'main' || item.cuisine === 'uncertain' || !cuisines.eatenWithBread.has(item.cuisine)) return false;
  const tags = item.profile.dish?.tags ?? [];
  return !tags.includes('rice') && !tags.includes('noodles') && !noBread.test(item.cleaned);
}

export interface CartSummary {
  readonly categories: ReadonlySet<Course>;
  readonly cuisine: CuisineOrUncertain;
  readonly dietary: CartDietary;
  readonly hasBreadMain: boolean;
}

/** What the upsell model reads of one candidate (upsell.ts). */
export function upsellEvidenceOf(cuisines: CuisineTable, item: ItemFacts, cart: CartSummary, closeness: number): UpsellEvidence {
  return {
    relation: cuisineRelation(cuisines, item.cuisine, cart.cuisine),
    category: item.category,
    cartHasMain: cart.categories.has('main'),
    cartHasBreadMain: cart.hasBreadMain,
    categoryInCart: cart.categories.has(item.category),
    closeness,
  };
}

/** Plain-words reason for a suggestion. */
function reasonFor(cuisines: CuisineTable, item: ItemFacts, fillsGap: boolean, cart: CartSummary): string {
  if (fillsGap) {
    switch (item.category) {
      case 'beverage':
        return 'Adds a drink: your cart has none';
      case 'dessert':
        return 'Adds a dessert: your cart has none';
      case 'side':
        return 'Adds a side or starter: your cart has none';
      case 'bread':
        return cart.hasBreadMain ? 'Adds bread to go with your curry: your cart has none' : 'Adds bread: your cart has none';
      case 'main':
        return 'Adds a main course: your cart has none';
    }
  }
  const noun = item.category === 'main' ? 'main course' : item.category === 'beverage' ? 'drink' : item.category;
  const sameFoodCuisine = item.cuisine !== 'uncertain' && item.cuisine === cart.cuisine && cuisines.family.get(item.cuisine) !== 'anything';
  if (sameFoodCuisine) return `More ${item.cuisine}: a ${noun} to go with your order`;
  return `Another ${noun} that goes well with your order`;
}

/** veg when no item is non-veg (and one is veg); mixed when a veg dish (main or side) sits next to a non-veg one. */
export function cartDietary(cart: readonly Pick<ItemFacts, 'cartDiet' | 'category'>[]): CartDietary {
  const nonVeg = cart.some((c) => c.cartDiet === 'non_veg');
  if (!nonVeg) return cart.some((c) => c.cartDiet === 'veg') ? 'veg' : 'unknown';
  // Bread, drinks and desserts are veg in every cart; only a veg dish of its own makes a non-veg cart mixed.
  const vegDish = cart.some((c) => c.cartDiet === 'veg' && (c.category === 'main' || c.category === 'side'));
  return vegDish ? 'mixed' : 'non_veg';
}

const COURSE_WEIGHT: Readonly<Record<Course, number>> = { main: 3, side: 2, bread: 1.5, dessert: 1, beverage: 1 };

/** The cart's cuisine: a course-weighted vote, where drinks, desserts and bakery count only if nothing else does. */
export function cartCuisine(cuisines: CuisineTable, cart: readonly ItemFacts[]): CuisineOrUncertain {
  const vote = (admit: (c: Cuisine) => boolean): CuisineOrUncertain => {
    const tally = new Map<Cuisine, number>();
    for (const item of cart) {
      if (item.cuisine === 'uncertain' || !admit(item.cuisine)) continue;
      tally.set(item.cuisine, (tally.get(item.cuisine) ?? 0) + COURSE_WEIGHT[item.category]);
    }
    let best: CuisineOrUncertain = 'uncertain';
    let bestScore = 0;
    for (const [cuisine, score] of tally) {
      if (score > bestScore) {
        best = cuisine;
        bestScore = score;
      }
    }
    return best;
  };
  const food = vote((c) => cuisines.family.get(c) !== 'anything');
  return food !== 'uncertain' ? food : vote(() => true);
}

const HAS_LETTER = /\p{L}/u;


/** Throws why a course head (models/heads/course-head.json: course from the embedding, for names with no course
 * word) does not fit this code. */
export function checkCourseHead(head: LinearHead): void {
  if (head.labels.join('|') !== COURSES.join('|') || head.extraFeatures.length !== 0) {
    throw new Error('labels or inputs differ from COURSES; retrain');
  }
}

/** A size in millilitres or litres ("300 ml", "1.25 L"; cleaning_words.tsv volume_unit rows): what drinks are sold by. */
function volumeSize(k: Knowledge): RegExp {
  return k.memo('volume-size pattern', '', () => new RegExp(`\\d\\s*(?:${literalAlternatives(k.words.cleaning.volumeUnit, '\\s?')})s?\\b`, 'i'));
}

/**
 * The item's category: its profile's course, except when the profile had no course word and no dish to go on
 * (course "main" by default). Then, in order: a volume size that cleaning stripped ("Mighty Mango (200ml)") makes it
 * a drink; the course head answers when its calibrated confidence clears its threshold (chosen on held-out dishes
 * for ≥ 0.90 accuracy); a classifier cuisine of Beverages or Desserts makes it a drink or a dessert.
 */
export function suggestCategory(
  k: Knowledge,
  profile: ItemProfile,
  removed: readonly RemovedNoise[],
  cuisine: CuisineOrUncertain,
  vector384: Float32Array,
  heads: EncoderHeads,
): Course {
  const guessed = !profile.courseKnown;
  if (!guessed) return profile.course;
  const volume = volumeSize(k);
  if (removed.some((r) => r.kind === 'size' && volume.test(r.text))) return 'beverage';
  const head = heads.course();
  if (head) {
    const p = headProbabilities(head, vector384, []);
    let best = 0;
    for (let r = 1; r < p.length; r++) if (p[r]! > p[best]!) best = r;
    if (p[best]! >= head.threshold) return head.labels[best] as Course;
  }
  if (cuisine === 'Beverages') return 'beverage';
  if (cuisine === 'Desserts') return 'dessert';
  return profile.course;
}


/**
 * True when two profiled items are the same dish by name or by the knowledge base (no embedding needed), however
 * sure the resolutions: "Garlic Lachha Paratha" (read as Laccha Paratha by its contained words) is another item to
 * /match, and so is a second flavour of a roll the knowledge base knows, but offering either beside the cart's
 * is offering the cart its own dish again.
 */
function sameByName(a: ItemFacts, b: ItemFacts): boolean {
  if (a.key === b.key) return true;
  const da = a.profile.dish;
  const db = b.profile.dish;
  return da !== null && db !== null && da.id === db.id;
}

/**
 * For each candidate pair (i, j) with cosine ≥ the match cosine gate (MatchGates.cosineGate), the /match precision stage's verdict (below its own
 * gate the judge answers "different" unless the names agree); pairs that agree by name are the same dish without asking.
 */
async function sameDishPairs(
  k: Knowledge,
  precision: PairPrecision,
  pairs: readonly (readonly [ItemFacts, ItemFacts, number])[],
): Promise<boolean[]> {
  const judged = pairs.map(([a, b, cos]) => (sameByName(a, b) ? true : cos >= precision.gates.cosineGate ? null : false));
  const ask = judged.flatMap((j, k) => (j === null ? [k] : []));
  if (ask.length > 0) {
    const verdicts = await judgePairs(
      k,
      ask.map((k) => [pairs[k]![0].text, pairs[k]![1].text] as const),
      ask.map((k) => pairs[k]![2]),
      DEFAULT_COSINE_THRESHOLD,
      precision,
    );
    ask.forEach((k, n) => (judged[k] = verdicts[n]!.match));
  }
  return judged as boolean[];
}

/** Suggestions for a cart from a menu; `topK` suggestions at most. */
export async function suggestForCart(
  services: Services,
  cart: readonly string[],
  menu: readonly string[],
  topK: number,
): Promise<CartSuggestions> {
  return (await suggestWithDetail(services, cart, menu, topK)).result;
}

/**
 * suggestForCart plus what the eval needs to explain a miss: the categories of the menu, those left after the
 * non-food filter, after the diet filter too, and after removing the cart's own dishes as well.
 */
export async function suggestWithDetail(
  services: Services,
  cart: readonly string[],
  menu: readonly string[],
  topK: number,
  /** The upsell model to rank with (default services.upsellModel; the fit script tries its own). */
  model: UpsellModel = services.upsellModel,
): Promise<{
  result: CartSuggestions;
  eligibleCategories: ReadonlySet<Course>;
  afterDietCategories: ReadonlySet<Course>;
  afterNonFoodCategories: ReadonlySet<Course>;
  menuCategories: ReadonlySet<Course>;
  /** What the upsell model read of each candidate left after the filters (scripts/fit-suggest-upsell.mjs fits on it). */
  candidates: readonly { item: string; evidence: UpsellEvidence }[];
}> {
  const k = services.knowledge;
  // Every cart item meets every menu item here: the calibrated cosine judges them, not the cross-encoder's cost.
  const precision = services.pairPrecision({ model: false });
  const { texts, vectors } = await services.embedTexts([...cart, ...menu], DIMENSION);
  const cuisines = predictCuisines(k, services.heads, texts, vectors);
  const facts: ItemFacts[] = texts.map((c, i) => {
    const profile = c.profile;
    return {
      text: c,
      original: i < cart.length ? cart[i]! : menu[i - cart.length]!,
      cleaned: c.text,
      key: c.key,
      profile,
      category: suggestCategory(k, profile, c.removed, cuisines[i]!.cuisine, vectors[i]!, services.heads),
      diet: vegOrNot(profile.diet),
      cartDiet: profile.eggByRecipeOnly ? 'unknown' : vegOrNot(profile.diet),
      cuisine: cuisines[i]!.cuisine,
    };
  });
  const cartFacts = facts.slice(0, cart.length);
  const menuFacts = facts.slice(cart.length);
  // A text with no letters left after cleaning ("₹99", "") names nothing: it neither describes the cart nor is offered.
  const named = (f: ItemFacts): boolean => HAS_LETTER.test(f.cleaned);
  const namedCart = cartFacts.filter(named);
  const cartVectors = vectors.slice(0, cart.length);
  const menuVectors = vectors.slice(cart.length);

  // A combo in the cart brings its accompaniments' courses too: a curry sold with rotis leaves no bread to offer.
  const categories = new Set(namedCart.flatMap((c) => [c.category, ...c.profile.comesWith]));
  const noBread = noBreadPattern(k);
  const kitchens = k.book.cuisines;
  const cuisine = cartCuisine(kitchens, namedCart);
  const summary: CartSummary = {
    categories,
    cuisine,
    dietary: cartDietary(namedCart),
    hasBreadMain: namedCart.some((item) => wantsBread(kitchens, item, noBread)),
  };

  // Filters that need no ranking: diet, non-food, same dish as a cart item.
  const nonFood = judgeNonFood(
    k,
    services.heads,
    menuFacts.map((m) => m.text),
    menuVectors,
  );
  // Every menu item against every cart item once (the vector addon, best first): the nearest gives an item's closeness
  // to the cart, and each pair's cosine feeds the same-dish test below.
  const cartCount = cartVectors.length;
  const allCart = cosineTopK(rowsOf(menuVectors), rowsOf(cartVectors), DIMENSION, cartCount);
  const cartCosine = new Float32Array(menuVectors.length * cartCount);
  for (let q = 0; q < menuVectors.length; q++) {
    for (let r = 0; r < cartCount; r++) cartCosine[q * cartCount + allCart.indices[q * cartCount + r]!] = allCart.scores[q * cartCount + r]!;
  }
  const closeness = menuVectors.map((_, i) => (cartCount > 0 ? allCart.scores[i * cartCount]! : -1));
  let candidates = menuFacts
    .map((m, i) => ({ m, i }))
    .filter(({ m, i }) => named(m) && nonFood[i]!.category === null && (summary.dietary !== 'veg' || m.diet === 'veg'));
  const afterDietCategories = new Set(candidates.map(({ m }) => m.category));
  const afterNonFoodCategories = new Set(menuFacts.filter((m, i) => named(m) && nonFood[i]!.category === null).map((m) => m.category));
  const cartPairs = candidates.flatMap(({ m, i }) => cartFacts.map((c, j) => [m, c, cartCosine[i * cartCount + j]!] as const));
  const inCart = await sameDishPairs(k, precision, cartPairs);
  const excluded = new Set<number>();
  candidates.forEach(({ i }, n) => {
    for (let j = 0; j < cartFacts.length; j++) if (inCart[n * cartFacts.length + j]) excluded.add(i);
  });
  candidates = candidates.filter(({ i }) => !excluded.has(i));

  const quality = new Map<number, number>();
  const evidence = candidates.map(({ m, i }) => ({ item: m.original, evidence: upsellEvidenceOf(kitchens, m, summary, closeness[i]!) }));
  candidates.forEach(({ i }, n) => quality.set(i, model.goodness(upsellFeatures(evidence[n]!.evidence))));

  // Greedy: take the best current score; a category stops counting as missing once a suggestion covers it.
  const covered = new Set<Course>(categories);
  const perCategory = new Map<Course, number>();
  const picked: { i: number; score: number; fillsGap: boolean }[] = [];
  const remaining = new Set(candidates.map(({ i }) => i));
  const scoreOf = (i: number): { score: number; fillsGap: boolean } => {
    const m = menuFacts[i]!;
    const q = quality.get(i)!;
    if (!covered.has(m.category)) return { score: (1 + q) / 2, fillsGap: true };
    return { score: (q / 2) * model.repeatDecay ** (perCategory.get(m.category) ?? 0), fillsGap: false };
  };
  while (picked.length < topK && remaining.size > 0) {
    let best = -1;
    let bestScore = -1;
    let bestFills = false;
    for (const i of remaining) {
      const { score, fillsGap } = scoreOf(i);
      // Ties go to the earlier menu item, so the answer does not depend on set order.
      if (score > bestScore + 1e-12 || (Math.abs(score - bestScore) <= 1e-12 && i < best)) {
        best = i;
        bestScore = score;
        bestFills = fillsGap;
      }
    }
    remaining.delete(best);
    // A second listing of a dish already suggested ("Coke 300 ml" after "Coke 500 ml") is skipped.
    const chosen = menuFacts[best]!;
    const pairs = picked.map((p) => [chosen, menuFacts[p.i]!, dot(menuVectors[best]!, menuVectors[p.i]!)] as const);
    if ((await sameDishPairs(k, precision, pairs)).some(Boolean)) continue;
    picked.push({ i: best, score: bestScore, fillsGap: bestFills });
    covered.add(chosen.category);
    perCategory.set(chosen.category, (perCategory.get(chosen.category) ?? 0) + 1);
  }

  const result: CartSuggestions = {
    suggestions: picked.map(({ i, score, fillsGap }) => {
      const m = menuFacts[i]!;
      return {
        item: m.original,
        category: m.category,
        reason: reasonFor(kitchens, m, fillsGap, summary),
        score: roundScore(Math.min(1, Math.max(0, score))),
        cuisine_match: cuisine !== 'uncertain' && m.cuisine === cuisine,
      };
    }),
    cart_cuisine: cuisine,
    cart_dietary: summary.dietary,
    cart_categories: SUGGEST_CATEGORIES.filter((c) => categories.has(c)),
  };
  return {
    result,
    eligibleCategories: new Set(candidates.map(({ m }) => m.category)),
    afterDietCategories,
    afterNonFoodCategories,
    menuCategories: new Set(menuFacts.map((m) => m.category)),
    candidates: evidence,
  };
}
