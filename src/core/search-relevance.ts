import { readFittedFile } from './fitted-file.js';
import { linearProbability } from './logistic.js';
import { join } from 'node:path';
import { courseGroup, type Dish, type Protein } from './knowledge/dishes.js';
import type { Knowledge } from './knowledge/index.js';
import { conflicts, vegOrNot } from './items.js';
import { parseCleanedText } from './menu-text.js';
import { MODELS_DIR } from './paths.js';
import { servingsAgree } from './servings.js';
import { hasWord, holdsAll, namesTerms, namesWords, isProteinWord, qualitiesKnown, kindOnlyByName, rulesOutOnly, clearOfRuledOut, type QueryUnderstanding, type SearchItem } from './search.js';

/**
 * /search's precision stage as a fitted model: named features of one (query, item) pair, each a small pure function of
 * what the query asks (QueryUnderstanding) and what the item is (SearchItem), and a logistic regression over them
 * whose weights, bias and result gates are fitted on the development sets' graded queries by
 * scripts/fit-search-ranker.mjs into models/rankers/search-relevance.json. The knowledge decides what each feature
 * reads; how much each counts is fitted, never typed here.
 *
 * A feature is 0 when it does not apply. Features named `…_abstract` are their base feature times the query's
 * abstractness (0 for a dish name, 1 for a pure need): how much a need ("spicy", "dessert", "chinese") counts grows
 * with how much of the query it is.
 */
export interface RelevanceFeature {
  readonly name: string;
  readonly about: string;
  readonly value: (e: PairEvidence) => number;
  /**
   * Features this one never weighs less than: kinds of one evidence where this kind is the stronger answer, all else
   * equal. The fit holds the order (a prior, not a weight); the committed weights are checked against it.
   */
  readonly atLeast?: readonly string[];
}

/** What the features read, computed once per (query, item). */
export interface PairEvidence {
  readonly k: Knowledge;
  readonly q: QueryUnderstanding;
  readonly item: SearchItem;
  readonly cosine: number;
  /** The query says only how many it is for: no words, concept, course or cuisine for the cosine to measure. */
  readonly servingOnly: boolean;
  readonly sameDish: boolean;
  /** The item's name holds every content word of the query, or every word of a name of the dish the query names. */
  readonly containsWords: boolean;
  /** The item's name holds the query's terms (its words by the names menus use for them: lexicon/search_equivalents.tsv). */
  readonly containsTerms: boolean;
  /** Which way the query's words and dish meet the item's (the first that holds, strongest first). */
  readonly dishEvidence: DishEvidence;
  readonly tagHits: number;
  readonly namedTagHits: number;
  /** The item is known and has none of the asked tags. */
  readonly tagMiss: boolean;
  /** The item has a tag the query rules out ("not spicy"). */
  readonly avoidedTag: boolean;
  /** Whether the item feeds as many as the query asks; null when either does not say. */
  readonly servingAgrees: boolean | null;
  readonly courseFit: 'other_group' | 'other_food' | 'match' | null;
  /** The item contradicts the diet the query states. */
  readonly dietConflict: boolean;
  readonly proteinConflict: boolean;
  /** The query states a protein and the item is of it (proteinAnswers: a protein kind is answered by its proteins). */
  readonly proteinAsked: boolean;
}

/** How the item's name and dish answer the words and dish of the query, one kind per pair. */
export type DishEvidence =
  | 'words_same_dish' | 'words_other_dish' | 'terms_in_dish_names' | 'terms_in_item' | 'same_dish'
  | 'one_word_other_dish' | 'dish_of_query_part' | 'dish_same_family' | 'dish_other' | 'none';

function dishEvidenceOf(k: Knowledge, q: QueryUnderstanding, item: SearchItem, sameDish: boolean, containsWords: boolean, containsTerms: boolean): DishEvidence {
  const qDish = q.profile.dish;
  if (containsWords) return sameDish ? 'words_same_dish' : 'words_other_dish';
  // "bitter gourd" asks for "Karela Fried": the query's words are all in one of the names the knowledge base knows the
  // item's dish by. Only for a query that names no dish itself ("paneer tikka" is Paneer Tikka, not the Paneer *Tikka*
  // Lababdar), and not when its only words are a protein (every chicken dish has "chicken" in a name).
  if (!qDish && q.terms.length > 0 && item.dish && !q.words.every((w) => isProteinWord(k, w))
    && namesTerms(k, item.dish).some((names) => q.terms.every((w) => hasWord(k, names, w)))) return 'terms_in_dish_names';
  if (containsTerms && !sameDish) return 'terms_in_item';
  if (!qDish || !item.dish) return 'none';
  if (sameDish) return 'same_dish';
  // A one-word query ("anda", "paneer") names a family of dishes, so another dish is not a mismatch.
  if (q.words.length <= 1) return 'one_word_other_dish';
  if (partOfQuery(k, q, item.dish)) return 'dish_of_query_part';
  return sameFamily(k, qDish, item.dish) ? 'dish_same_family' : 'dish_other';
}

/** The item's dish is named by the first words of the query ("Idli" for "idli sambar"), not by all of them. */
function partOfQuery(k: Knowledge, q: QueryUnderstanding, dish: Dish): boolean {
  const first = namesWords(k, dish)[0];
  return !!first && first.size < q.words.length && [...first].every((w, i) => q.words[i] !== undefined && hasWord(k, new Set([q.words[i]!]), w));
}

/** Two dishes whose names end in the same head word ("Onion Uthappam" / "Podi Uthappam"): of one family. */
function sameFamily(k: Knowledge, a: Dish, b: Dish): boolean {
  const head = (d: Dish): string => k.singular(d.keys[0]?.split(' ').at(-1) ?? '');
  return head(a) !== '' && head(a) === head(b);
}

/**
 * Whether an item of protein `item` is of the protein a query asks for: the same protein, or one of the kind the asked
 * protein names (lexicon/proteins.tsv: a protein named after its own kind stands for every protein of that kind). /match
 * keeps the two apart: a platter of several sea proteins is not a fry of one.
 */
export function proteinAnswers(k: Knowledge, asked: Protein | null, item: Protein | null): boolean {
  if (asked === null || item === null) return false;
  return asked === item || (asked === k.cues.proteinKinds.get(asked) && k.cues.proteinKinds.get(item) === asked);
}

/**
 * A word naming a kind of protein by the kind's own name ("seafood": lexicon/proteins.tsv) is held by an item of a
 * protein of that kind, as a prawn or a fish dish holds it in all but the word.
 */
function namesProteinOfKind(k: Knowledge, word: string, item: SearchItem): boolean {
  if (item.protein === null) return false;
  const asked = parseCleanedText(k, word).cues.protein.value;
  return asked !== null && asked === k.cues.proteinKinds.get(asked) && proteinAnswers(k, asked, item.protein);
}

/** The evidence of one (query, item) pair, each reading made once for every feature that uses it. */
export function pairEvidence(k: Knowledge, q: QueryUnderstanding, item: SearchItem, cosine: number): PairEvidence {
  const servingOnly = q.serving !== null && q.terms.length === 0 && q.tags.length === 0 && !q.course && !q.cuisine;
  const qDish = q.profile.dish;
  const sameDish = !!qDish && !!item.dish && qDish.id === item.dish.id;
  const flags = conflicts(k, q.stated, item);
  const proteinAsked = proteinAnswers(k, q.stated.protein, item.protein);
  // "minced mutton" is Mutton Keema, so "Mutton Keema Kaleji" holds the dish the query names: a form of it. A name of
  // the dish that leaves its meat unsaid is not held by an item of another protein (a paneer one, for a mutton dish).
  const containsWords = q.words.length > 0 && (q.words.every((w) => hasWord(k, item.words, w) || namesProteinOfKind(k, w, item)) || (!sameDish && !flags.protein_conflict && q.dishNames.some((names) => holdsAll(k, item.words, names))));
  const containsTerms = !containsWords && q.terms.length > 0 && (q.anyOf ? q.terms.some((w) => hasWord(k, item.words, w)) : q.terms.every((w) => hasWord(k, item.words, w)));
  const tagHits = q.tags.filter((t) => item.tags.has(t)).length;
  return {
    k, q, item, cosine, servingOnly, sameDish, containsWords, containsTerms,
    dishEvidence: dishEvidenceOf(k, q, item, sameDish, containsWords, containsTerms),
    tagHits,
    namedTagHits: q.tags.filter((t) => item.namedTags.has(t)).length,
    tagMiss: q.tags.length > 0 && tagHits === 0 && qualitiesKnown(k, item),
    avoidedTag: q.avoid.some((t) => item.tags.has(t) && !kindOnlyByName(k, item, t)),
    servingAgrees: q.serving !== null && item.serving !== null ? servingsAgree(k.servings.portions, q.serving, item.serving) : null,
    courseFit: courseFitOf(q, item),
    dietConflict: flags.dietary_conflict && vegOrNot(q.stated.diet) !== 'unknown',
    proteinConflict: flags.protein_conflict && !proteinAsked,
    proteinAsked,
  };
}

function courseFitOf(q: QueryUnderstanding, item: SearchItem): PairEvidence['courseFit'] {
  if (!q.course) return null;
  const sameGroup = courseGroup(q.course) === courseGroup(item.course) && (q.course !== 'bread' || item.course === 'bread');
  if (!sameGroup) return 'other_group';
  // A snack query asks for the side course, and a sandwich (a main on the menu) tagged snack answers it as well.
  const snackAsSide = q.course === 'side' && item.tags.has('snack');
  return (q.course === 'side' || q.course === 'main') && item.course !== q.course && !snackAsSide ? 'other_food' : 'match';
}

const is = (b: boolean): number => (b ? 1 : 0);
const dishIs = (kind: DishEvidence) => (e: PairEvidence): number => is(e.dishEvidence === kind);
const contains = (e: PairEvidence): boolean => e.containsWords || e.containsTerms;
const tagShare = (e: PairEvidence): number => (e.tagHits > 0 ? e.tagHits / e.q.tags.length : 0);
const headWordOnly = (e: PairEvidence): boolean => {
  // The head word names the query's kind of dish only within its diet and protein: a veg or a fish one of that kind
  // does not answer a query whose dish is chicken or paneer.
  if (contains(e) || e.q.terms.length < 2 || e.dietConflict || e.proteinConflict) return false;
  // Its last word, a dish type, not a protein: "butter chicken" does not ask for every chicken dish.
  const head = e.q.terms.at(-1)!;
  return hasWord(e.k, e.item.words, head) && !isProteinWord(e.k, head);
};
/**
 * The query's whole ask is one category, with no dish words or serving, and the item is in it. The category is a
 * cuisine, a course or one tag ("chinese food", "soup", "starters"), or, for a query that only rules tags out, the
 * known items without them. Menus' graded category queries count every member relevant, however far its name is from
 * the query's words (a fried rice for "chinese food"); a query that only says what it does not want has no words for
 * the cosine to follow, so membership is all there is to go on.
 */
function inAskedCategory(e: PairEvidence): boolean {
  const q = e.q;
  if (rulesOutOnly(q)) return !e.avoidedTag && clearOfRuledOut(e.item);
  if (q.words.length > 0 || q.avoid.length > 0 || q.serving !== null) return false;
  const asks = (q.cuisine ? 1 : 0) + (q.course ? 1 : 0) + q.tags.length;
  if (asks !== 1) return false;
  if (q.cuisine) return e.item.cuisine === q.cuisine;
  if (q.course) return e.courseFit === 'match';
  return e.tagHits > 0;
}

/** The features, in the order of the fitted weights (the weights file names them, and loading checks the order). */
export const RELEVANCE_FEATURES: readonly RelevanceFeature[] = [
  { name: 'cosine', about: 'cosine of the (concept-blended) query and the item, for a query with words or a need', value: (e) => (e.servingOnly ? 0 : e.cosine) },
  { name: 'cosine_serving_only', about: 'the cosine, for a query that says only how many it feeds', value: (e) => (e.servingOnly ? e.cosine : 0) },
  { name: 'serving_only', about: 'the query says only how many it feeds', value: (e) => is(e.servingOnly) },
  { name: 'words_same_dish', about: "the item is the query's dish and its name holds the query's words", value: dishIs('words_same_dish'), atLeast: ['words_other_dish'] },
  { name: 'words_other_dish', about: "the item's name holds the query's words (or a name of its dish), another dish or none", value: dishIs('words_other_dish') },
  { name: 'terms_in_dish_names', about: "a name of the item's dish holds the query's terms (the query names no dish)", value: dishIs('terms_in_dish_names') },
  { name: 'terms_in_item', about: "the item's name holds the query's words by the names menus use for them", value: dishIs('terms_in_item') },
  { name: 'same_dish', about: 'the item resolves to the dish the query names, in other words', value: dishIs('same_dish'), atLeast: ['terms_in_item', 'dish_same_family'] },
  { name: 'one_word_other_dish', about: 'another dish, for a one-word query (a family: "paneer")', value: dishIs('one_word_other_dish') },
  { name: 'dish_of_query_part', about: 'the item is the dish the first words of the query name ("Idli" for "idli sambar")', value: dishIs('dish_of_query_part') },
  { name: 'dish_same_family', about: "another dish of the query dish's family (same head word)", value: dishIs('dish_same_family'), atLeast: ['dish_other'] },
  { name: 'dish_other', about: 'another known dish than the one the query names', value: dishIs('dish_other') },
  { name: 'head_word', about: "the item's name holds the query's head word only (not a protein)", value: (e) => is(headWordOnly(e)) },
  { name: 'protein_asked_one_word', about: 'a one-word query naming a protein, and the item is of it without holding the word', value: (e) => is(e.proteinAsked && !contains(e) && e.q.words.length <= 1) },
  { name: 'protein_asked', about: 'a longer query naming a protein, and the item is of it without holding its words', value: (e) => is(e.proteinAsked && !contains(e) && e.q.words.length > 1) },
  { name: 'tag_hit', about: 'the item has one of the asked tags at least', value: (e) => is(e.tagHits > 0) },
  { name: 'tag_share', about: 'share of the asked tags the item has (0 for none, 1 for all)', value: tagShare },
  { name: 'tag_hit_abstract', about: 'tag_hit times abstractness', value: (e) => is(e.tagHits > 0) * e.q.abstractness },
  { name: 'tag_share_abstract', about: 'tag_share times abstractness', value: (e) => tagShare(e) * e.q.abstractness },
  { name: 'named_tags_abstract', about: "share of the asked tags the item's own name says, times abstractness", value: (e) => (e.tagHits > 0 ? (e.namedTagHits / e.q.tags.length) * e.q.abstractness : 0) },
  { name: 'tag_miss', about: 'the item is known and has none of the asked tags', value: (e) => is(e.tagMiss) },
  { name: 'tag_miss_abstract', about: 'tag_miss times abstractness', value: (e) => is(e.tagMiss) * e.q.abstractness },
  { name: 'avoided_tag', about: 'the item has a tag the query rules out ("not spicy")', value: (e) => is(e.avoidedTag) },
  { name: 'avoided_tag_abstract', about: 'avoided_tag times abstractness', value: (e) => is(e.avoidedTag) * e.q.abstractness },
  { name: 'avoid_clear_abstract', about: 'a known item without the ruled-out tags, times abstractness', value: (e) => is(e.q.avoid.length > 0 && !e.avoidedTag && qualitiesKnown(e.k, e.item)) * e.q.abstractness },
  { name: 'serving_agrees', about: 'the item feeds as many as the query asks', value: (e) => is(e.servingAgrees === true) },
  { name: 'serving_agrees_abstract', about: 'serving_agrees times abstractness', value: (e) => is(e.servingAgrees === true) * e.q.abstractness },
  { name: 'serving_disagrees', about: 'the item says it feeds another number', value: (e) => is(e.servingAgrees === false) },
  { name: 'order_for_several', about: 'an order for several of a dish ("2 McVeggie Burger") for a query that names no serving', value: (e) => is(e.servingAgrees === null && e.q.serving === null && e.q.words.length > 0 && (e.item.orderCount ?? 0) > 1) },
  { name: 'course_other_group', about: 'the query asks for a course and the item is of another group (a drink for a dessert query)', value: (e) => is(e.courseFit === 'other_group') },
  { name: 'course_other_food', about: 'the query asks for starters or mains and the item is the other food course', value: (e) => is(e.courseFit === 'other_food') },
  { name: 'course_match', about: 'the item is of the course the query asks for', value: (e) => is(e.courseFit === 'match') },
  { name: 'course_match_abstract', about: 'course_match times abstractness', value: (e) => is(e.courseFit === 'match') * e.q.abstractness },
  { name: 'meal_not_food', about: 'a meal query ("meal for two") and the item is no food (a drink, a dessert)', value: (e) => is(e.q.meal && courseGroup(e.item.course) !== 'food') },
  { name: 'meal_light_side', about: 'a meal query and the item is a side that is not filling', value: (e) => is(e.q.meal && courseGroup(e.item.course) === 'food' && e.item.course === 'side' && !e.item.tags.has('filling')) },
  { name: 'kind_word', about: 'the item is named with a one-word category query\'s word ("Oreo Shake" for "shakes")', value: (e) => is(e.q.kindWords.some((w) => hasWord(e.k, e.item.words, w))) },
  { name: 'combo_for_dish', about: 'a combo or meal, for a query for a dish', value: (e) => is(e.q.words.length > 0 && !e.q.query.isCombo && e.item.isCombo) },
  { name: 'cuisine_match', about: 'the item is of the cuisine the query asks for', value: (e) => is(!!e.q.cuisine && e.item.cuisine === e.q.cuisine) },
  { name: 'cuisine_match_abstract', about: 'cuisine_match times abstractness', value: (e) => is(!!e.q.cuisine && e.item.cuisine === e.q.cuisine) * e.q.abstractness },
  { name: 'cuisine_other_abstract', about: 'the item is of another cuisine than the one asked, times abstractness', value: (e) => is(!!e.q.cuisine && e.item.cuisine !== e.q.cuisine) * e.q.abstractness },
  { name: 'in_asked_category', about: 'the query asks for one category and nothing else (a cuisine, a course or one tag: "chinese food", "soup"; or only rules tags out: the items whose dish is known to be without them) and the item is in it', value: (e) => is(inAskedCategory(e)) },
  { name: 'diet_conflict', about: 'the item contradicts the diet the query states', value: (e) => is(e.dietConflict) },
  { name: 'diet_conflict_abstract', about: 'diet_conflict times abstractness', value: (e) => is(e.dietConflict) * e.q.abstractness },
  { name: 'protein_conflict', about: 'the item is of another protein than the one the query states', value: (e) => is(e.proteinConflict) },
  { name: 'protein_missing', about: 'the query states a protein the item does not name (and no conflict)', value: (e) => is(!e.proteinConflict && !!e.q.stated.protein && !e.proteinAsked) },
];

export const RELEVANCE_FEATURE_NAMES: readonly string[] = RELEVANCE_FEATURES.map((f) => f.name);

/** The declared orders between features, as [stronger, weaker] indices into RELEVANCE_FEATURES. */
export const RELEVANCE_ORDERS: readonly (readonly [number, number])[] = RELEVANCE_FEATURES.flatMap((f, i) => (f.atLeast ?? []).map((name) => {
  const weaker = RELEVANCE_FEATURE_NAMES.indexOf(name);
  if (weaker < 0) throw new Error(`relevance feature ${f.name}: atLeast names no feature "${name}"`);
  return [i, weaker] as const;
}));

/** The feature vector of one (query, item) pair, in RELEVANCE_FEATURES order. */
export function relevanceFeatures(k: Knowledge, q: QueryUnderstanding, item: SearchItem, cosine: number): Float64Array {
  const e = pairEvidence(k, q, item, cosine);
  const out = new Float64Array(RELEVANCE_FEATURES.length);
  for (let i = 0; i < out.length; i++) out[i] = RELEVANCE_FEATURES[i]!.value(e);
  return out;
}

export const RANKER_FORMAT = 'menu-intelligence/search-relevance@2';
/** Where the fitted model lives: committed, refitted by scripts/fit-search-ranker.mjs when the encoder or the features change. */
export const SEARCH_RANKER_PATH = join(MODELS_DIR, 'rankers', 'search-relevance.json');

/**
 * How search reads an item's course from the menu around it (search.ts: menuSections, usualCourse), chosen on the
 * development queries with the ranker (scripts/fit-search-ranker.mjs).
 */
export interface MenuContextRule {
  /** Below this course confidence an item's course is open: its section's or its menu's usual course is taken. */
  readonly openCourse: number;
  /** From this course confidence an item's course is sure: what a section or a menu's usual course is read from. */
  readonly sureCourse: number;
  /** Sure items read on each side of an open one ... */
  readonly neighbours: number;
  /** ... within this many positions. */
  readonly reach: number;
  /** A menu's usual course: the share of its sure items that must be desserts (or drinks) ... */
  readonly usualShare: number;
  /** ... out of at least this many sure items. */
  readonly usualMin: number;
}

/**
 * What /search answers with when no item passes the gates: the items closest to the query (by cosine) of the category
 * it asks for, chosen on the development queries with the ranker (scripts/fit-search-ranker.mjs).
 */
export interface FallbackRule {
  /** No item below this cosine is offered ... */
  readonly minCosine: number;
  /** ... nor one more than this below the closest ... */
  readonly band: number;
  /** ... and at most this many. */
  readonly most: number;
  /** A course the query's words say with at least this confidence is the category asked for (else food). */
  readonly courseCue: number;
  /** A cuisine the query's dish has with at least this confidence rules out food of other cuisines. */
  readonly cuisineConfidence: number;
}

/**
 * How far a query's vector moves towards the centroids of the tags it asks for (search.ts: conceptualQueryVector): by
 * base + perAbstractness × the query's abstractness, so "something spicy" leans on the spicy centroid more than
 * "spicy paneer tikka" does. Chosen on the development queries with the ranker (scripts/fit-search-ranker.mjs).
 */
export interface ConceptBlend {
  readonly base: number;
  readonly perAbstractness: number;
}

/** The fields of a ConceptBlend, in the order the fit searches them. */
export const CONCEPT_BLEND_FIELDS = ['base', 'perAbstractness'] as const satisfies readonly (keyof ConceptBlend)[];

/** The fields of a FallbackRule, in the order the fit searches them. */
export const FALLBACK_FIELDS = ['minCosine', 'band', 'most', 'courseCue', 'cuisineConfidence'] as const satisfies readonly (keyof FallbackRule)[];

/** The fields of a MenuContextRule, in the order the fit searches them. */
export const MENU_CONTEXT_FIELDS = ['openCourse', 'sureCourse', 'neighbours', 'reach', 'usualShare', 'usualMin'] as const satisfies readonly (keyof MenuContextRule)[];

/** The fitted precision stage: relevance probability per (query, item), and the gates on it. */
export interface SearchRanker {
  /** The encoder whose cosines it was fitted on. */
  readonly encoder: string;
  readonly weights: Float64Array;
  readonly bias: number;
  /** A result needs at least this relevance ... */
  readonly floor: number;
  /** ... and at most this much below the query's best. */
  readonly band: number;
  /** How an item's course is read from its menu, for the features. */
  readonly menu: MenuContextRule;
  /** What is offered when nothing passes the gates. */
  readonly fallback: FallbackRule;
  /** How far a query's vector moves towards the concepts it asks for, before the cosines. */
  readonly blend: ConceptBlend;
  relevance(features: Float64Array): number;
}

interface RankerFile {
  format: string;
  encoder: string;
  features: string[];
  weights: number[];
  bias: number;
  floor: number;
  band: number;
  menu: MenuContextRule;
  fallback: FallbackRule;
  blend: ConceptBlend;
}

/** Reads and checks a ranker file: its features must be RELEVANCE_FEATURES, by name and in order. */
export function readSearchRanker(path: string = SEARCH_RANKER_PATH): SearchRanker {
  const { raw, where } = readFittedFile<RankerFile>(path, RANKER_FORMAT);
  const names = RELEVANCE_FEATURE_NAMES;
  if (raw.features.length !== names.length || raw.features.some((f, i) => f !== names[i])) {
    throw new Error(`${where}: fitted on features [${raw.features.join(', ')}], the code computes [${names.join(', ')}]: refit with scripts/fit-search-ranker.mjs`);
  }
  if (raw.weights.length !== names.length || !raw.weights.every(Number.isFinite) || !Number.isFinite(raw.bias)) throw new Error(`${where}: weights must be ${names.length} finite numbers and a finite bias`);
  if (!(raw.floor >= 0 && raw.floor <= 1) || !(raw.band >= 0 && raw.band <= 1)) throw new Error(`${where}: floor and band must be in [0, 1]`);
  const menu = raw.menu ?? ({} as Partial<MenuContextRule>);
  if (!MENU_CONTEXT_FIELDS.every((f) => Number.isFinite(menu[f]) && menu[f]! >= 0)) throw new Error(`${where}: menu must give ${MENU_CONTEXT_FIELDS.join(', ')} as numbers ≥ 0`);
  if (!(menu.openCourse! <= menu.sureCourse! && menu.sureCourse! <= 1 && menu.usualShare! <= 1 && [menu.neighbours, menu.reach, menu.usualMin].every(Number.isInteger))) {
    throw new Error(`${where}: menu needs openCourse ≤ sureCourse ≤ 1, usualShare ≤ 1 and whole numbers neighbours, reach and usualMin`);
  }
  const fallback = raw.fallback ?? ({} as Partial<FallbackRule>);
  if (!FALLBACK_FIELDS.every((f) => Number.isFinite(fallback[f]) && fallback[f]! >= 0)) throw new Error(`${where}: fallback must give ${FALLBACK_FIELDS.join(', ')} as numbers ≥ 0`);
  if (!(fallback.minCosine! <= 1 && fallback.courseCue! <= 1 && fallback.cuisineConfidence! <= 1 && Number.isInteger(fallback.most))) throw new Error(`${where}: fallback needs minCosine, courseCue and cuisineConfidence ≤ 1 and a whole number most`);
  const blend = raw.blend ?? ({} as Partial<ConceptBlend>);
  if (!CONCEPT_BLEND_FIELDS.every((f) => Number.isFinite(blend[f]) && blend[f]! >= 0)) throw new Error(`${where}: blend must give ${CONCEPT_BLEND_FIELDS.join(', ')} as numbers ≥ 0`);
  return searchRanker({
    encoder: raw.encoder,
    weights: Float64Array.from(raw.weights),
    bias: raw.bias,
    floor: raw.floor,
    band: raw.band,
    menu: Object.freeze({ ...raw.menu }),
    fallback: Object.freeze({ ...raw.fallback }),
    blend: Object.freeze({ base: blend.base!, perAbstractness: blend.perAbstractness! }),
  });
}

export function searchRanker(parts: Omit<SearchRanker, 'relevance'>): SearchRanker {
  const { weights, bias } = parts;
  return { ...parts, relevance: (features) => linearProbability(weights, bias, features) };
}
