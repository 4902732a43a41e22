import { join } from 'node:path';
import { readFittedFile } from './fitted-file.js';
import { linearProbability } from './logistic.js';
import type { Course, CuisineRelation } from './knowledge/index.js';
import { MODELS_DIR } from './paths.js';

/**
 * How good a menu item is as an add-on to a cart, as a fitted model: named features of one (cart, item) pair and a
 * logistic regression over them, fitted by scripts/fit-suggest-upsell.mjs on the development carts' graded candidates
 * (eval/dev/suggest_dev_upsell_grades.tsv) into models/rankers/suggest-upsell.json. The knowledge says what each
 * feature reads (the cuisine relation, the course the item fills); how much each counts is fitted.
 */
export interface UpsellEvidence {
  /** How the item's cuisine meets the cart's (cuisineRelation). */
  readonly relation: CuisineRelation;
  readonly category: Course;
  /** The cart has a main. */
  readonly cartHasMain: boolean;
  /** The cart has a main eaten with bread (a curry of a bread cuisine, not a rice or noodle dish). */
  readonly cartHasBreadMain: boolean;
  /** The cart already has an item of this category. */
  readonly categoryInCart: boolean;
  /** The cosine of the item to the cart's nearest item. */
  readonly closeness: number;
}

export interface UpsellFeature {
  readonly name: string;
  readonly about: string;
  readonly value: (e: UpsellEvidence) => number;
  /** Features this one never weighs less than (held by the fit, checked on loading). */
  readonly atLeast?: readonly string[];
}

const is = (b: boolean): number => (b ? 1 : 0);
const relationIs = (r: CuisineRelation) => (e: UpsellEvidence): number => is(e.relation === r);
const fills = (category: Course, cartHas: (e: UpsellEvidence) => boolean) => (e: UpsellEvidence): number => is(e.category === category && cartHas(e));

/** The features, in the order of the fitted weights. */
export const UPSELL_FEATURES: readonly UpsellFeature[] = [
  // The contract prefers items of the cart's cuisine: the same cuisine never counts less than a looser relation.
  { name: 'cuisine_same', about: "the item is of the cart's cuisine", value: relationIs('same'), atLeast: ['cuisine_same_family', 'cuisine_other_family'] },
  { name: 'cuisine_same_family', about: "the item is of the cart cuisine's family (Indian, East Asian, Western)", value: relationIs('same_family'), atLeast: ['cuisine_other_family'] },
  { name: 'cuisine_goes_with_anything', about: 'a drink, dessert or bake: a family that goes with anything', value: relationIs('goes_with_anything') },
  { name: 'cuisine_cart_unknown', about: "the cart's cuisine is unknown", value: relationIs('meal_unknown') },
  { name: 'cuisine_item_unknown', about: "the item's cuisine is unknown", value: relationIs('item_unknown') },
  { name: 'cuisine_other_family', about: 'the item is of another family of cuisines than the cart', value: relationIs('other_family') },
  { name: 'beverage', about: 'the item is a drink', value: (e) => is(e.category === 'beverage') },
  { name: 'bread_for_bread_main', about: 'a bread, and the cart has a main eaten with bread', value: fills('bread', (e) => e.cartHasBreadMain) },
  { name: 'bread_otherwise', about: 'a bread, and the cart has no main eaten with bread (a biryani, noodles, or no main)', value: fills('bread', (e) => !e.cartHasBreadMain) },
  { name: 'side_with_main', about: 'a side or starter, and the cart has a main', value: fills('side', (e) => e.cartHasMain) },
  { name: 'side_without_main', about: 'a side or starter, and the cart has no main', value: fills('side', (e) => !e.cartHasMain) },
  { name: 'dessert_with_main', about: 'a dessert, and the cart has a main', value: fills('dessert', (e) => e.cartHasMain) },
  { name: 'dessert_without_main', about: 'a dessert, and the cart has no main', value: fills('dessert', (e) => !e.cartHasMain) },
  { name: 'main_with_main', about: 'a main, and the cart has one already', value: fills('main', (e) => e.cartHasMain) },
  { name: 'main_without_main', about: 'a main, and the cart has none', value: fills('main', (e) => !e.cartHasMain) },
  { name: 'category_in_cart', about: 'the cart already has an item of its category (a second drink, a second side)', value: (e) => is(e.categoryInCart) },
  { name: 'closeness', about: "the cosine to the cart's nearest item (a raita near a biryani, fries near a burger)", value: (e) => e.closeness },
];

export const UPSELL_FEATURE_NAMES: readonly string[] = UPSELL_FEATURES.map((f) => f.name);

/** The declared orders, as [stronger, weaker] indices into UPSELL_FEATURES. */
export const UPSELL_ORDERS: readonly (readonly [number, number])[] = UPSELL_FEATURES.flatMap((f, i) => (f.atLeast ?? []).map((name) => {
  const weaker = UPSELL_FEATURE_NAMES.indexOf(name);
  if (weaker < 0) throw new Error(`upsell feature ${f.name}: atLeast names no feature "${name}"`);
  return [i, weaker] as const;
}));

export function upsellFeatures(e: UpsellEvidence): Float64Array {
  return Float64Array.from(UPSELL_FEATURES, (f) => f.value(e));
}

export const UPSELL_FORMAT = 'menu-intelligence/suggest-upsell@1';
export const UPSELL_MODEL_PATH = join(MODELS_DIR, 'rankers', 'suggest-upsell.json');

export interface UpsellModel {
  /** The encoder whose cosines (closeness) it was fitted on. */
  readonly encoder: string;
  readonly weights: Float64Array;
  readonly bias: number;
  /**
   * How a list is spread over categories: each further suggestion of a category the cart or the list already has is
   * worth this share of the one before. Chosen by the same fit, for the best mean grade of the dev carts' top 5.
   */
  readonly repeatDecay: number;
  /** The probability-like goodness of an add-on, 0–1: the fitted logistic over the features. */
  goodness(features: Float64Array): number;
}

export function upsellModel(encoder: string, weights: Float64Array, bias: number, repeatDecay: number): UpsellModel {
  return {
    encoder, weights, bias, repeatDecay,
    goodness: (features) => linearProbability(weights, bias, features),
  };
}

/** Reads and checks the fitted model: its features must be UPSELL_FEATURES by name and in order, its orders held. */
export function readUpsellModel(path: string = UPSELL_MODEL_PATH): UpsellModel {
  const { raw, where } = readFittedFile<{ format?: string; encoder?: string; features?: string[]; weights?: number[]; bias?: number; repeat_decay?: number }>(path, UPSELL_FORMAT);
  const names = UPSELL_FEATURE_NAMES;
  const features = raw.features ?? [];
  if (features.length !== names.length || features.some((f, i) => f !== names[i])) {
    throw new Error(`${where}: fitted on features [${features.join(', ')}], the code computes [${names.join(', ')}]: refit with scripts/fit-suggest-upsell.mjs`);
  }
  const weights = raw.weights ?? [];
  if (weights.length !== names.length || !weights.every(Number.isFinite) || !Number.isFinite(raw.bias) || typeof raw.encoder !== 'string') {
    throw new Error(`${where}: needs an encoder, ${names.length} finite weights and a finite bias`);
  }
  for (const [stronger, weaker] of UPSELL_ORDERS) {
    if (weights[stronger]! < weights[weaker]!) throw new Error(`${where}: ${names[stronger]} weighs less than ${names[weaker]}, against its declared order`);
  }
  const decay = raw.repeat_decay;
  if (typeof decay !== 'number' || !(decay > 0 && decay <= 1)) throw new Error(`${where}: repeat_decay must be a share in (0, 1]: refit with scripts/fit-suggest-upsell.mjs`);
  return upsellModel(raw.encoder, Float64Array.from(weights), raw.bias!, decay);
}
