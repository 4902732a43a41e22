import { CUISINE_LABELS, TAGS, closerRelation, courseGroup, cuisineRelation, type Course, type Cuisine, type Dish, type Tag } from './knowledge/dishes.js';
import type { Knowledge } from './knowledge/index.js';
import { toEnglishFoodWords } from './knowledge/translate.js';
import { dietMarkers, dietOf, flavourTagsOf, proteinOf } from './knowledge/cues.js';
import { conflicts, vegOrNot, type ItemProfile } from './items.js';
import { FULL_DIMENSION, l2normalize, type Dimension, type MenuEncoder } from './inference/encoder.js';
import { clamp01 } from './match.js';
import { editDistance } from './text/edit-distance.js';
import { type Serving, servingsAgree } from './servings.js';
import { equivalencePhrasePositions, equivalenceTerms, equivalenceTokens } from './knowledge/equivalents.js';
import { kindsNamed } from './knowledge/kinds.js';
import { literalAlternatives } from './knowledge/words.js';
import { annotationKey, parseCleanedText, type MenuText } from './menu-text.js';
import { relevanceFeatures, type ConceptBlend, type FallbackRule, type MenuContextRule, type SearchRanker } from './search-relevance.js';
import { roundCosine } from './number-format.js';
import { withoutEnding } from './text/endings.js';
import { splitInTwo } from './text/split-word.js';
import { logistic } from './logistic.js';

/**
 * Semantic search over a small corpus (≤ 512 items), in three stages:
 *  1. Understand the query: clean + transliterate; detect abstract needs from knowledge/lexicon/concepts.tsv
 *     ("something sweet", "cold drink", "healthy lunch") and blend the query vector with the concept centroids
 *     (mean embedding of the knowledge base's dishes carrying the tag), weighted by how much of the query the concept
 *     covers; resolve the query to a known dish when it names one (synonyms, Hinglish, Devanagari).
 *  2. Score: `score` is the cosine between the (blended) query and the item, 0–1. The precision stage
 *     (search-relevance.ts) gives a relevance probability from named features of the pair (the cosine, same dish as
 *     the query, its words in the item's name, the asked-for concept, course or cuisine, a contradicting diet or
 *     protein, …) and a logistic regression fitted on the development sets' graded queries.
 *  3. Gates: relevance ≥ the fitted floor and within the fitted band of the best result; the weak tail is dropped, so
 *     fewer than top_k may come back. When nothing passes, a category-aware fallback answers with is_fallback=true
 *     (beverage queries get beverages, dessert queries desserts, food queries food), restricted to the query's cuisine
 *     when it names a dish of a cuisine the menu does not serve — then nothing comes back rather than random dishes.
 */
// The query's filler words (they ask for nothing: "something", "kuch", "quick"), its meal words ("meal", "khana": with
// only a diet besides, the query is for that diet's mains) and its negators are lexicon/query_filler.txt and
// query_words.tsv's.

// A negator right before a concept phrase turns it round: "not spicy", "no cheese", "less sweet", "non fried", "bina
// teekha". (Phrases that are themselves negative, "no added sugar", "without egg", are matched whole first.)

/** Tags no item answers together: asking for either rules the other out. */
const OPPOSITE_TAGS: readonly (readonly [Tag, Tag])[] = [['hot_drink', 'cold_drink']];

export interface ConceptCentroids {
  /** tag → unit centroid at 384-d. */
  readonly byTag: ReadonlyMap<Tag, Float32Array>;
}

/** Built once at start-up: the mean embedding of the dishes carrying each tag or naming one of its flavour words (names only). */
export async function buildConceptCentroids(k: Knowledge, encoder: MenuEncoder): Promise<ConceptCentroids> {
  const book = k.book;
  const byTag = new Map<Tag, Float32Array>();
  const names = book.dishes.map((d) => d.name);
  const vectors = await encoder.encode(names, FULL_DIMENSION);
  const dishTags = book.dishes.map((d) => new Set([...d.tags, ...flavourTagsOf(k.cues, d.name)]));
  for (const tag of TAGS) {
    const acc = new Float32Array(encoder.model.hiddenSize);
    let n = 0;
    book.dishes.forEach((_, i) => {
      if (!dishTags[i]!.has(tag)) return;
      n++;
      const v = vectors[i]!;
      for (let k = 0; k < acc.length; k++) acc[k]! += v[k]!;
    });
    if (n >= 3) byTag.set(tag, l2normalize(acc));
  }
  return { byTag };
}

export interface QueryUnderstanding {
  /** The query, read once: its cleaned text, profile, cues and serving. */
  readonly query: MenuText;
  readonly text: string;
  readonly tags: readonly Tag[];
  /** Tags the query asks to be without ("mild", "not spicy", "no cheese"). */
  readonly avoid: readonly Tag[];
  readonly course: Course | null;
  /** The cuisine a query asks for as a whole ("chinese", "south indian food"). */
  readonly cuisine: Cuisine | null;
  /** Share of the query's words that are concept words (0 = a dish name, 1 = purely abstract). */
  readonly abstractness: number;
  readonly profile: ItemProfile;
  /**
   * The profile whose diet and protein the query states: the diet its own words say ("veg", "chicken", "eggless"),
   * the protein its words or a dish it names exactly say. A dish's usual diet is not the query asking for it:
   * "soup" resolving loosely to Tortilla Soup (veg) must not push the chicken soups down, nor "pancakes" resolving to
   * Classic Pancakes (veg) the menu's egg pancakes.
   */
  readonly stated: ItemProfile;
  /** Content words of the query (concept and filler words removed). */
  readonly words: readonly string[];
  /** The content words with each phrase of a search-equivalents group as the group's token ("dumplings" stands for
   * momo and dim sum too): what an item must hold to contain the query. */
  readonly terms: readonly string[];
  /** Food words the query says it is without ("pizza without onion", "coffee without milk", "pyaz nahi"), no need of
   * concepts.tsv nor a meat or egg: an item whose name holds one (and does not itself say it is without) is not what
   * was asked for. */
  readonly without: readonly string[];
  /** The query lists two things it would take either of ("wraps and rolls", "momos or noodles"): an item holding one
   * of its terms contains it. */
  readonly anyOf: boolean;
  /** How many people the query asks to feed ("for 4 people", "party pack", "for one"), from its original text. */
  readonly serving: Serving | null;
  /** The query's own diet words state its diet ("veg", "non veg", "eggless", a meat it says it is without): an item its
   * words say is of the other diet is never a result, however close its name. */
  readonly dietStated: boolean;
  /** The word sets of the names of the dish the query names exactly, for names of two words or more ("minced
   * mutton" is Mutton Keema: {mutton, keema}); an item whose name holds one of them is that dish or a form of it. */
  readonly dishNames: readonly ReadonlySet<string>[];
  /** What the query asks the items to go with ("something to go with biryani", "sides for my pizza"): the course and
   * cuisine of that, or null for an ordinary query. */
  readonly pairWith: { readonly course: Course; readonly cuisine: Cuisine | null; readonly rice: boolean } | null;
  /** The query asks for a meal for some number of people and no course ("meal for two"): food, not a drink, a dessert or a side alone. */
  readonly meal: boolean;
  /** A one-word category query's word ("shakes", "juices"): an item named with it is of the kind asked for first. */
  readonly kindWords: readonly string[];
}

/**
 * "something to go with biryani", "what goes with butter chicken", "sides for my pizza": the words after the phrase
 * name what the answer should accompany, not what it is.
 */
const PAIRING_PHRASE = /\b(?:go(?:es)?|pairs?|eat|have)\s+with\s+(?:my\s+|the\s+|a\s+|our\s+)?(.+)$|\b(?:sides?|accompaniments?|add\s?ons?)\s+(?:for|with|to)\s+(?:my\s+|the\s+|a\s+|our\s+)?(.+)$/i;

/** `word`, its singular (item word sets hold singulars too: "pancakes" finds "Mini Pancake"), or, for a menu adjective in -y, its noun: "cheesy" finds "Four Cheese Pizza", "creamy" "Cream of Mushroom"; and the other way round, "cheese" finds "Cheesy American BBQ". */
export function hasWord(k: Knowledge, words: ReadonlySet<string>, word: string): boolean {
  if (words.has(word) || words.has(k.singular(word))) return true;
  const adjectiveFrom = k.words.spelling.soundFoldMinLetters;
  if (word.length >= adjectiveFrom && !word.endsWith('y') && (words.has(`${word}y`) || (word.endsWith('e') && words.has(`${withoutEnding(word, 'e')}y`)))) return true;
  if (word.length < adjectiveFrom || !word.endsWith('y')) return false;
  const stem = withoutEnding(word, 'y');
  return words.has(stem) || words.has(`${stem}e`);
}

/** Every word of `names` is among `words`, as hasWord reads them. */
export function holdsAll(k: Knowledge, words: ReadonlySet<string>, names: ReadonlySet<string>): boolean {
  for (const w of names) if (!hasWord(k, words, w)) return false;
  return true;
}

/** The word sets of a dish's name and aliases ("Karela Fry": {karela, fry}, {bitter, gourd, fry}, …), cached. */
export function namesWords(k: Knowledge, dish: Dish): readonly ReadonlySet<string>[] {
  return k.memo('dish-name-words', String(dish.id), () => dish.keys.map((key) => new Set(key.split(' ').filter(Boolean))));
}

/** namesWords with the tokens of the search-equivalents groups each name holds, for a query's terms, cached. */
export function namesTerms(k: Knowledge, dish: Dish): readonly ReadonlySet<string>[] {
  return k.memo('dish-name-terms', String(dish.id), () =>
    namesWords(k, dish).map((names) => new Set([...names, ...equivalenceTokens(k.equivalents, [...names])])));
}

/**
 * A query that asks for a whole cuisine ("chinese", "south indian food", "indo chinese"), by the knowledge base's
 * cuisine labels and the usual other names of a few (lexicon/cuisine_queries.tsv); the course-like labels (Bakery,
 * Beverages, Desserts) are concepts' business.
 */
function cuisineQueries(k: Knowledge): ReadonlyMap<string, Cuisine> {
  return new Map<string, Cuisine>([
    ...CUISINE_LABELS.filter((c) => c !== 'Bakery' && c !== 'Beverages' && c !== 'Desserts').map((c) => [c.toLowerCase(), c] as const),
    ...k.words.cuisineQueries,
  ]);
}

/** Whether the text names a sabzi (a vegetable curry) in any spelling of its search-equivalents row (sabji, subzi...). */
function namesSabzi(text: MenuText): boolean {
  const k = text.knowledge;
  const sabziTerm = equivalenceTerms(k.equivalents, ['sabzi'])[0];
  return equivalenceTerms(k.equivalents, text.words).includes(sabziTerm!);
}
/** The Hindi word for plain rice ending a dish's name ("rajma chawal", "chole chaval"). */
const CURRY_WITH_RICE = /\bcha[wv]al$/i;
// Words that may stand beside a cuisine's name in a query for the whole cuisine are lexicon/query_words.tsv's.

/** What a query asks for. `query` is the query as typed (after spelling), read once: parseMenuText. */
export function understandQuery(query: MenuText): QueryUnderstanding {
  const k = query.knowledge;
  const cleanedQuery = query.text;
  const { queryFiller, mealWords, queryNegators, queryNegatorsAfter, cuisineFiller, mealTimes, mealCounts, eitherWords, contextWords } = k.words;
  const singular = k.singular;
  // Concepts and content words are read in English ("postre" asks for dessert, "pollo" for chicken), as the query is
  // embedded; the knowledge-base lookup below keeps the words as typed, since it knows other-language names.
  const pairing = PAIRING_PHRASE.exec(cleanedQuery);
  if (pairing) return pairingQuery(query, (pairing[1] ?? pairing[2])!);
  const words = query.englishWords;
  // A food a menu names in several words ("instant noodles", "flattened rice") is a dish, not the concept its last
  // word also is (noodles, rice): the words of such phrases are never concept words.
  const named = equivalencePhrasePositions(k.equivalents, words);
  const covered = new Set<number>();
  const kindWords = new Set<string>();
  const tags = new Set<Tag>();
  const avoid = new Set<Tag>();
  let course: Course | null = null;
  const asTyped = query.profile;
  let profile = singularProfile(query);
  // "rajma chawal", "dal chawal": a dish named "<curry> chawal" is the curry served with plain rice, so its rice is a
  // side and the query does not ask for rice dishes (curd rice, jeera rice) before the curry's other forms. "jeera
  // rice" and "hakka noodles" do name a kind of dish: other rice and noodle dishes answer them, so the rule is the
  // Hindi word's.
  const riceIsSide = profile.dishHow === 'exact' && words.length > 1 && CURRY_WITH_RICE.test(cleanedQuery);
  // Longest phrases first, so "healthy lunch" wins over "healthy". A phrase's last word may come as a plural
  // ("curries" is the curry concept).
  const sorted = [...k.concepts].sort((a, b) => b.phrase.length - a.phrase.length);
  // The words of concepts the query says it is without: no course is read from them below.
  const negatedWords = new Set<string>();
  const matches: { readonly at: number; readonly c: (typeof sorted)[number] }[] = [];
  for (const c of sorted) {
    if (riceIsSide && c.phrase.length === 1 && c.phrase[0] === 'rice') continue;
    for (let i = 0; i + c.phrase.length <= words.length; i++) {
      if (c.phrase.every((w, k) => words[i + k] === w || (k === c.phrase.length - 1 && singular(words[i + k]!) === w)) && ![...Array(c.phrase.length).keys()].some((k) => covered.has(i + k) || named.has(i + k))) {
        for (let k = 0; k < c.phrase.length; k++) covered.add(i + k);
        matches.push({ at: i, c });
      }
    }
  }
  // A negator turns round the phrase it stands before, past filler words; a Hindi one (negator_after) the run of
  // adjacent phrases it follows, in Hindi word order (a translation may make one word two phrases).
  const negated = new Set<number>();
  const endsAt = new Map(matches.map((m, n) => [m.at + m.c.phrase.length - 1, n]));
  matches.forEach((m, n) => {
    let before = m.at - 1;
    while (before > 0 && queryFiller.has(words[before]!) && !queryNegators.has(words[before]!) && !covered.has(before)) before--;
    if (before >= 0 && queryNegators.has(words[before]!) && !covered.has(before)) {
      for (let b = before; b < m.at; b++) covered.add(b);
      negated.add(n);
    }
  });
  words.forEach((w, a) => {
    if (!queryNegatorsAfter.has(w) || covered.has(a)) return;
    let end = a - 1;
    while (end >= 0 && !endsAt.has(end) && queryFiller.has(words[end]!) && !covered.has(end)) end--;
    if (!endsAt.has(end)) return;
    for (let b = end + 1; b <= a; b++) covered.add(b);
    for (let n = endsAt.get(end); n !== undefined; n = endsAt.get(matches[n]!.at - 1)) negated.add(n);
  });
  for (const [n, { c }] of matches.entries()) {
    if (negated.has(n)) {
      c.tags.forEach((t) => avoid.add(t));
      c.phrase.forEach((w) => negatedWords.add(w));
    } else {
      c.tags.forEach((t) => tags.add(t));
      course ??= c.course;
      if (c.course) c.phrase.forEach((w) => kindWords.add(singular(w)));
    }
    c.avoid.forEach((t) => avoid.add(t));
  }
  // From a context word on (query_words.tsv), the words say when the food is eaten; a need they name counts (read
  // above), but no word of theirs is one an item must hold.
  const context = words.findIndex((w) => contextWords.has(w));
  if (context >= 0) for (let i = context; i < words.length; i++) covered.add(i);
  // Hot and cold drinks are opposites: "garam chai" at a juice shop is not answered by its coolest lime soda.
  for (const [x, y] of OPPOSITE_TAGS) {
    if (tags.has(x) && !tags.has(y)) avoid.add(y);
    else if (tags.has(y) && !tags.has(x)) avoid.add(x);
  }
  // Cleaning strips "for 4 people" and "party pack" as size noise; the serving is read from the query as typed, and
  // the words that only say it are concept words, not dish words.
  const serving = query.statedServing;
  if (serving !== null) words.forEach((w, i) => {
    if (k.servings.servingWords.has(w) || /^\d+$/.test(w)) covered.add(i);
  });
  // "bina meat wala sandwich", "no chicken burger": a meat or egg the query says it is without is its diet (the diet
  // lexicon's veg markers), never words an item must hold nor the protein asked for.
  let negatedMeat = false;
  words.forEach((w, i) => {
    const next = words[i + 1];
    if (!queryNegators.has(w) || w === 'non' || next === undefined || covered.has(i + 1)) return;
    const diet = next === 'non' && words[i + 2] === 'veg' ? { value: 'non_veg', support: 'stated' } : parseCleanedText(k, next).cues.diet;
    if (diet.support !== 'stated' || (diet.value !== 'non_veg' && diet.value !== 'egg')) return;
    covered.add(i);
    covered.add(i + 1);
    if (next === 'non' && words[i + 2] === 'veg') covered.add(i + 2);
    negatedMeat = true;
  });
  // "pizza without onion", "coffee without milk", "pyaz nahi": a food word a negator turns round, past filler words, that
  // no concept, meat or egg above took, with any word "and"/"or" joins to it. It is no word an item must hold, and an
  // item named with it is left out (gateSearch). Inside a name a menu uses ("no onion no garlic" is Jain food) the
  // words stay the name's, and are still what the query is without.
  const without: string[] = [];
  const takeFrom = (j: number): void => {
    while (j < words.length && !covered.has(j) && !queryFiller.has(words[j]!) && !queryNegators.has(words[j]!) && !/^\d+$/.test(words[j]!)) {
      without.push(singular(words[j]!));
      if (!named.has(j)) covered.add(j);
      const joined = eitherWords.has(words[j + 1] ?? '') || words[j + 1] === 'and';
      if (!joined && !(named.has(j) && named.has(j + 1))) break;
      if (joined && !named.has(j + 1)) covered.add(j + 1);
      if (joined) j++;
      j++;
    }
  };
  words.forEach((w, i) => {
    if (covered.has(i)) return;
    if (queryNegators.has(w) && w !== 'non') {
      let j = i + 1;
      while (j < words.length && queryFiller.has(words[j]!) && !covered.has(j) && !queryNegators.has(words[j]!)) j++;
      const before = without.length;
      takeFrom(j);
      if (without.length > before) for (let b = i; b < j; b++) if (!named.has(b)) covered.add(b);
    } else if (queryNegatorsAfter.has(w)) {
      let j = i - 1;
      while (j >= 0 && queryFiller.has(words[j]!) && !covered.has(j)) j--;
      if (j < 0 || covered.has(j) || queryFiller.has(words[j]!) || /^\d+$/.test(words[j]!)) return;
      without.push(singular(words[j]!));
      for (let b = j; b <= i; b++) if (!named.has(b)) covered.add(b);
    }
  });
  // "veg rolls", "non veg burgers": a diet word before a plural kind of dish asks for every item of that kind and diet
  // (the paneer and aloo rolls too), not for the dish named "Veg Roll".
  const markerWords = new Set(profile.markers.markerWords);
  const plain = words.flatMap((w, i) => (covered.has(i) || queryFiller.has(w) ? [] : [i]));
  const kindOfDiet = tags.size + avoid.size === 0 && !course && plain.length >= 2
    && plain.slice(0, -1).every((i) => markerWords.has(words[i]!)) && singular(words[plain.at(-1)!]!) !== words[plain.at(-1)!]
    && asTyped.dishHow !== 'exact'; // "veg momos" is what menus call the dish Veg Momos
  // "simple homestyle veg meal", "non veg lunch": a meal of a diet is any main of that diet; "veg" is no word an item
  // must hold.
  const mealOfDiet = !kindOfDiet && (plain.length > 0 || negatedMeat) && plain.every((i) => markerWords.has(words[i]!)) && words.some((w) => mealWords.has(w));
  if (mealOfDiet) {
    plain.forEach((i) => covered.add(i));
    course ??= 'main';
  }
  if (kindOfDiet) {
    const kind = singular(words[plain.at(-1)!]!);
    plain.slice(0, -1).forEach((i) => covered.add(i));
    kindWords.add(kind);
    profile = singularProfile(parseCleanedText(k, kind));
  }
  // "spicy non veg curry": in a query that asks for a need, the diet words are the diet (stated below, where a
  // conflict counts against an item), not words an item must hold ("Non Veg Schezwan Rice" is no curry).
  if (tags.size + avoid.size > 0 || course) {
    const markers = new Set(profile.markers.markerWords);
    words.forEach((w, i) => {
      if (markers.has(w)) covered.add(i);
    });
  }
  let contentWords = words.filter((w, i) => !covered.has(i) && !queryFiller.has(w));
  // "aloo wali sabzi", "chole ki sabji": a sabzi is a vegetable curry (its translation), and the word before it says
  // which; the "vegetable" of the translation is no word an item must hold ("Matar Aloo" is the aloo sabzi). Only
  // there: a query that says "vegetables" itself ("grilled chicken with vegetables") wants them.
  if (contentWords.length > 1 && namesSabzi(query)) {
    const named = contentWords.filter((w) => w !== 'vegetable');
    if (named.length > 0) contentWords = named;
  }
  const cuisineWords = contentWords.filter((w) => !cuisineFiller.has(w));
  const cuisine = cuisineQueries(k).get(cuisineWords.join(' ')) ?? null;
  if (cuisine) {
    words.forEach((w, i) => {
      if (cuisineWords.includes(w) || cuisineFiller.has(w)) covered.add(i);
    });
    contentWords = [];
  }
  const content = contentWords.length;
  // A query with a need and no content words is wholly abstract, even when cleaning took the words that say the need
  // ("meal for a family": "family" is size noise to cleaning, so only filler is left to read).
  const abstractness = tags.size + avoid.size + (course ? 1 : 0) + (cuisine ? 1 : 0) + (serving !== null ? 1 : 0) === 0 ? 0 : content === 0 ? 1 : covered.size / (covered.size + content);
  // A query that names a dish exactly has that dish's course: "semolina crepe" is Rava Dosa, not a dessert crepe.
  const cue = profile.dishHow === 'exact' ? null : query.cues.course;
  // A course only negated words name is a course the query does not want.
  const negatedCue = cue !== null && cue.evidence.every((w) => toEnglishFoodWords(k.translations, w).toLowerCase().split(/\s+/u).every((e) => negatedWords.has(e)));
  const namedCourse = cue === null ? profile.dish!.course : cue.named && !negatedCue ? cue.value : null;
  if (!course && (namedCourse === 'beverage' || namedCourse === 'dessert' || namedCourse === 'bread')) course = namedCourse;
  // A need for lunch or dinner is food, whatever words come between ("healthy vegetarian lunch" is no kombucha).
  if (!course && tags.size + avoid.size > 0 && words.some((w) => mealTimes.has(w))) course = 'main';
  // "meal for two", "spicy veg meal for one": a meal for some number of people is food. With a need it is a main, as a
  // need for lunch is; alone it only rules out what is no meal by itself: a drink, a dessert, a lone side ("2 Fries",
  // "2 McFlurry" are for two but no meal). Not a main there: the course would outweigh the servings, and "meal for a
  // family" would get single tacos before "4 Crispy Veg + 2 Medium Fries".
  const forMeal = serving !== null && words.some((w) => mealCounts.has(w));
  if (!course && forMeal && tags.size + avoid.size > 0) course = 'main';
  // The diet and protein the query states are read from its English reading, as its words are: "bina ande ka cake"
  // reads "eggless cake", not a cake of eggs.
  const cues = query.english === query.text ? query.cues : { ...query.cues, diet: dietOf(k.cues, query.english), protein: proteinOf(k.cues, query.english) };
  // A veg diet read from an ingredient that is veg by nature ("chocolate", "aloo", confidence below 0.9) is not the
  // query asking for veg: "chocolate lover" wants the egg mousse too. "veg", "eggless" and the meats are asked for.
  // Likewise a meat only implied by a word that usually carries one ("whopper", "seekh", "keema" at 0.75-0.8): "whopper"
  // asks for the veg Whopper too, and "keema" for the chicken keema.
  // A meat or egg the query says it is without ("no chicken burger") states veg, whichever the diet lexicon lists as a
  // phrase.
  // Only a diet or protein the query's words state ("veg", "chicken") is asked for; an implied one is not.
  const statedDiet = negatedMeat ? 'veg' : cues.diet.support !== 'stated' ? 'unknown' : cues.diet.value;
  // Stated by a diet word (read in the English reading too: "shakahari" is "vegetarian") only when that word agrees
  // with the reading: "veg dish that tastes like mutton" names a meat too, and is no query for non-veg food.
  const markers = query.english === query.text ? profile.markers : dietMarkers(k.cues, query.english);
  const markedDiet = markers.vegOrNonVeg ? (markers.markerWords.includes('non') ? 'non_veg' : 'veg') : markers.eggFree ? 'veg' : null;
  const dietStated = negatedMeat || (markedDiet !== null && vegOrNot(statedDiet) === markedDiet);
  const statedProtein = !negatedMeat && cues.protein.support === 'stated' ? cues.protein.value : null;
  const stated = { ...profile, diet: statedDiet, protein: statedProtein ?? (profile.dishHow === 'exact' ? profile.protein : null), eggByRecipeOnly: false };
  const dishNames = profile.dishHow === 'exact' && content > 0 ? namesWords(k, profile.dish!).filter((names) => names.size >= 2) : [];
  const spelled = spellingOf(contentWords, profile);
  const joiner = words.findIndex((w) => eitherWords.has(w));
  // A dish named with "and" ("mac and cheese", "salt and pepper prawns") is one thing.
  const anyOf = profile.dishHow !== 'exact' && spelled.length === 2 && joiner > 0 && words[joiner - 1] === spelled[0] && words[joiner + 1] === spelled[1];
  return { query, text: cleanedQuery, tags: [...tags], avoid: [...avoid], course, cuisine, abstractness, profile, stated, words: spelled, terms: equivalenceTerms(k.equivalents, spelled), without, anyOf, serving, dietStated, dishNames, pairWith: null, meal: forMeal && !course, kindWords: kindOfDiet || words.filter((w) => !queryFiller.has(w)).length === 1 ? [...kindWords] : [] };
}

/** The query's profile, or its singular's when only that names a dish exactly ("steamed rice cakes" is Idli, as
 * "steamed rice cake" is). */
function singularProfile(query: MenuText): ItemProfile {
  const k = query.knowledge;
  const cleanedQuery = query.text;
  const profile = query.profile;
  if (profile.dishHow === 'exact') return profile;
  const last = cleanedQuery.match(/(\p{L}+)$/u)?.[1];
  if (!last || k.singular(last.toLowerCase()) === last.toLowerCase()) return profile;
  const one = parseCleanedText(k, cleanedQuery.slice(0, -last.length) + k.singular(last.toLowerCase())).profile;
  return one.dishHow === 'exact' ? one : profile;
}

/** A query for what goes with `target`: no dish, diet or words of its own, only the target's course and cuisine. */
function pairingQuery(query: MenuText, targetText: string): QueryUnderstanding {
  const k = query.knowledge;
  const target = parseCleanedText(k, targetText);
  const of = target.profile;
  const dish = of.dish ?? mainDishOf(target);
  // Without a dish, the dishes named with the target's last word ("biryani") stand for it.
  const { lookup, book } = k;
  const head = targetText.toLowerCase().split(/\s+/).at(-1) ?? '';
  const candidates = dish ? [dish] : (lookup.dishesByToken.get(head) ?? []).map((id) => book.dishes[id]!);
  const neutral: ItemProfile = { ...of, dish: null, dishHow: null, dishScore: 0, diet: 'unknown', protein: null, eggByRecipeOnly: false };
  return {
    query, text: query.text, tags: [], avoid: [], course: null, cuisine: null, abstractness: 1, profile: neutral, stated: neutral, words: [], terms: [], without: [], anyOf: false, dietStated: false,
    serving: null, dishNames: [], meal: false, kindWords: [],
    // "biryani" alone names no one dish, but nearly every dish named so is a rice dish: nothing offers bread with it.
    pairWith: { course: dish?.course ?? of.course, cuisine: dish?.cuisine ?? of.cuisine, rice: candidates.length > 0 && candidates.filter((d) => d.tags.includes('rice')).length >= 0.8 * candidates.length },
  };
}

/**
 * Relevance for "something to go with X": the course and cuisine decide. The query embeds close to X itself, so its
 * cosine says little about an accompaniment and weighs a little only (with the full weight a search uses, the CI-trained
 * encoder put Mint Raita just under the floor for "something to go with chicken biryani").
 */
/** The gates of the pairing rule's probabilities: at least even odds, within 0.5 of the best. */
export const PAIRING_GATES = { floor: 0.5, band: 0.5 } as const;

function pairingRelevance(k: Knowledge, target: NonNullable<QueryUnderstanding['pairWith']>, item: SearchItem, cosine: number): number {
  // Only an accompanying course clears the floor (a side with a main, a main with a bread), and only from a kitchen of
  // the same family: an ice-cream parlour or a pizzeria has nothing to go with a biryani.
  let z = 2 * (cosine - 0.4) + pairingScore(target, item.course) - 1.5;
  if (target.cuisine && item.cuisine) {
    // Either way round, so that a drink, dessert or bake on either side goes with anything.
    const cuisines = k.book.cuisines;
    const relation = closerRelation(cuisineRelation(cuisines, item.cuisine, target.cuisine), cuisineRelation(cuisines, target.cuisine, item.cuisine));
    z += relation === 'same' ? 0.5 : relation === 'item_unknown' || relation === 'other_family' ? -1.5 : 0;
  }
  return logistic(z);
}

/** How well an item of course `item` accompanies one of course `target` (a biryani or a rice bowl wants no bread). */
function pairingScore(target: NonNullable<QueryUnderstanding['pairWith']>, item: Course): number {
  // Another of the same course is never the answer: not a second main with a main, nor a drink with a drink.
  if (item === target.course) return -6;
  if (target.course === 'main') return item === 'side' ? 2.5 : item === 'bread' ? (target.rice ? -1 : 2) : 0.5;
  if (target.course === 'bread' || target.course === 'side') return item === 'main' ? 2 : item === 'side' || item === 'bread' ? 1 : 0.5;
  return item === 'side' ? 1.5 : item === 'beverage' || item === 'dessert' ? 1 : 0;
}

/**
 * The query's words as the dish it resolved to spells them, when the resolution was a spelling correction: "garlic
 * bred" → garlic bread, so that "Cheese Garlic Bread" contains the query. Only a name of the same length whose words
 * are each the query's word or within two edits of it counts; a fuzzy resolution to another dish ("soup" → Tortilla
 * Soup) leaves the words as typed.
 */
function spellingOf(words: readonly string[], profile: ItemProfile): readonly string[] {
  if (profile.dishHow !== 'fuzzy' || !profile.dish || words.length === 0) return words;
  const near = (w: string, o: string): boolean => w === o || (w.length >= 4 && o.length >= 4 && editDistance(w, o, 2) <= 2);
  for (const key of profile.dish.keys) {
    const name = key.split(' ').filter(Boolean);
    if (name.length === words.length && name.every((o, i) => near(words[i]!, o))) return name;
  }
  return words;
}

/**
 * The query only says what it does not want ("not sweet", "teekha nahi"): it rules tags out and asks for no dish
 * word, tag, course, cuisine or serving.
 */
export function rulesOutOnly(q: QueryUnderstanding): boolean {
  return q.avoid.length > 0 && q.tags.length === 0 && q.words.length === 0 && !q.course && !q.cuisine && q.serving === null;
}

/**
 * The item is known to be without a tag it lacks: it names a dish of the knowledge base, whose tags are the dish's
 * qualities. An unresolved item's tags are only what its name's flavour words say, which is silent on the rest.
 */
export function clearOfRuledOut(item: SearchItem): boolean {
  return item.dish !== null;
}

/**
 * The query vector blended with its concept centroids (projected to `dimension`) as far as the fitted blend says,
 * re-normalised: towards each tag it asks for. A query that only rules tags out (rulesOutOnly) moves away from them
 * by as much: an encoder reads "not sweet" as close to sweet things, and the ruled-out tags are all such a query says.
 * Beside anything asked for, a ruled-out tag only narrows it (a concept for curries rules rice dishes out) and moves
 * nothing.
 */
export function conceptualQueryVector(
  queryVector: Float32Array,
  q: QueryUnderstanding,
  centroids: ConceptCentroids | null,
  encoder: MenuEncoder,
  dimension: Dimension,
  blend: ConceptBlend,
): Float32Array {
  const away = rulesOutOnly(q);
  if (!centroids || (q.tags.length === 0 && !away)) return queryVector;
  const out = Float32Array.from(queryVector);
  const strength = blend.base + blend.perAbstractness * q.abstractness;
  const lean = (tags: readonly Tag[], sign: number): void => {
    for (const tag of tags) {
      const c = centroids.byTag.get(tag);
      if (!c) continue;
      const projected = encoder.project(Float32Array.from(c), dimension);
      for (let k = 0; k < out.length; k++) out[k]! += (sign * strength * projected[k]!) / tags.length;
    }
  };
  if (away) lean(q.avoid, -1);
  else lean(q.tags, 1);
  return l2normalize(out);
}

export interface SearchCandidate {
  readonly index: number;
  readonly cosine: number;
  readonly relevance: number;
}

/** An item as search scores it: its profile plus its name's words, its tags (dish's and flavour words') and serving. */
export type SearchItem = ItemProfile & {
  readonly words: ReadonlySet<string>;
  readonly tags: ReadonlySet<Tag>;
  /** The tags the item's own name says by a flavour word ("Chilli Mushroom", "Schezwan Chicken": spicy). */
  readonly namedTags: ReadonlySet<Tag>;
  readonly serving: Serving | null;
  /** The count an order of several portions leads with ("2 McVeggie Burger"), else null. */
  readonly orderCount: number | null;
  /** The name joins items with "+" or calls itself a combo or meal. */
  readonly isCombo: boolean;
};

/**
 * What the item is known to be like: it has a dish, or a tag other than a kind of dish (lexicon/tag_roles.tsv: rice,
 * noodles, soup, salad). "Chicken Pulusu Rice Bowl" is a rice dish by its name, and that says nothing of whether it is
 * spicy: an unresolved item with only such tags is unknown to a query for a quality, not a miss.
 */
export function qualitiesKnown(k: Knowledge, item: SearchItem): boolean {
  return !!item.dish || [...item.tags].some((t) => !k.words.kindTags.has(t));
}

/**
 * A kind of dish only the item's name says, not its dish: "Chicken Pulusu Rice Bowl" is a rice dish to a query for
 * rice, and still a curry to a query for a curry (whose concept rules rice dishes out).
 */
export function kindOnlyByName(k: Knowledge, item: SearchItem, tag: Tag): boolean {
  return k.words.kindTags.has(tag) && item.namedTags.has(tag) && !item.dish?.tags.includes(tag);
}

/** A word that names a protein by itself ("chicken", "paneer", "murgh"). */
export function isProteinWord(k: Knowledge, word: string): boolean {
  return parseCleanedText(k, word).cues.protein.value !== null;
}

export interface SearchOutcome {
  readonly results: { index: number; score: number; reranker_score: number | null; is_fallback: boolean }[];
}

/**
 * The two words a menu ran together into one ("Cheeseburst" → cheese, burst), or none: a word the cleaning vocabulary
 * does not know that splits into two words it does know in exactly one way, each at least a split part long
 * (lexicon/spelling.tsv). Known
 * words are never split ("pineapple" holds no apple).
 */
export function compoundParts(k: Knowledge, word: string): readonly string[] {
  if (!/^\p{Ll}+$/u.test(word)) return [];
  const { vocabulary, misspellings } = k.cleaning;
  if (vocabulary.has(word) || misspellings.has(word)) return [];
  return splitInTwo(word, (w) => vocabulary.has(w), k.words.spelling.splitPartMinLetters) ?? [];
}

/**
 * An item name's words with their singulars, for hasWord, and the tokens of the search-equivalents groups they hold,
 * cached: search reads them for every item of every query, and a menu is searched many times.
 */
const SEARCH_WORDS = annotationKey<ReadonlySet<string>>('search words');

function itemWordsOf(text: MenuText): ReadonlySet<string> {
  return text.annotation(SEARCH_WORDS, (t) => {
    const k = t.knowledge;
    const words = t.words;
    const all = new Set(words);
    for (const w of t.singulars) all.add(w);
    for (const token of equivalenceTokens(k.equivalents, words)) all.add(token);
    for (const w of words) for (const part of compoundParts(k, w)) all.add(k.singular(part));
    // A kind the item's food is one of is held too: a sundae holds "ice cream", mozzarella holds "cheese".
    for (const kind of kindsNamed(k.kinds, k.equivalents, words)) {
      for (const w of kind) all.add(w);
      for (const token of equivalenceTokens(k.equivalents, kind)) all.add(token);
    }
    return all;
  });
}

/**
 * For search, an item the knowledge base cannot resolve whole is the dish it leads with: "Curd Rice with Pomegranate"
 * answers "yogurt rice", "Sarso Saag with Thepla" answers "mustard greens". (Match and dedup keep such names apart
 * from their plain dish: there a topping makes another item.)
 */
function mainDishOf(text: MenuText): Dish | null {
  const combo = text.combo;
  return combo && combo.names.length > 1 ? (combo.main?.dish ?? null) : null;
}

/** An item's tags less those its own name turns round: a curry the knowledge base files as spicy, sold "Non Spicy". */
function withoutNegated(tags: Set<Tag>, text: MenuText): Set<Tag> {
  for (const t of text.negatedFlavourTags) tags.delete(t);
  return tags;
}

/** The items (read once: parseMenuText) as search scores them for the query, courses read from the menu by `menu`. */
export function searchItems(k: Knowledge, q: QueryUnderstanding, texts: readonly MenuText[], menu: MenuContextRule): SearchItem[] {
  const profiles = texts.map((t) => t.profile);
  const usual = usualCourse(profiles, menu);
  const sections = menuSections(texts, menu);
  const notPizza = notPizzaPattern(k);
  return profiles.map((p, i): SearchItem => {
    const text = texts[i]!;
    const dish = p.dish ?? mainDishOf(text);
    // A course the text leaves open is its menu section's ("Oreo n Oreo" between the shakes), else the menu's (at an
    // ice-cream parlour "Alphonso Mango 100ml" is an ice cream).
    const section = sections[i];
    if (p.courseConfidence < menu.openCourse) {
      const course = section?.course ?? usual;
      if (course) p = { ...p, course };
    }
    // "Mama Mexicana Large 12''", "Sweet Corn & Cheese Medium 9''": a name sized in inches that names no dish is a pizza
    // (a sub says so: "Chicken Tikka Sub (6inch)"). In the Swiggy dumps every inch-sized name but the subs is a pizza.
    const original = text.original;
    const sizedPizza = !dish && PIZZA_SIZE.test(original) && !notPizza.test(original);
    if (sizedPizza) p = { ...p, course: 'main' };
    // Labels cleaning strips as noise still say what the item is: "(Protein-42g)", "(Vegan / High Protein)".
    const ownTags = original !== p.text ? new Set([...text.flavourTags, ...text.originalFlavourTags]) : text.flavourTags;
    const namedTags = section && section.tags.length > 0 ? new Set([...ownTags, ...section.tags]) : ownTags;
    return {
      ...p,
      dish,
      // The sized pizza's words are its name's with "pizza" (cached like any name's, equivalents included).
      words: itemWordsOf(sizedPizza ? parseCleanedText(k, `${p.text} pizza`) : text),
      // A food combo ("Butter Chicken + 3 Roti + Green Salad", "Mutton Thali Meal") is a filling meal whatever its dish.
      tags: withoutNegated(new Set<Tag>([...(dish?.tags ?? []), ...namedTags, ...(text.isCombo && courseGroup(p.course) === 'food' ? ['filling' as const] : [])]), text),
      namedTags,
      serving: q.serving === null ? null : text.serving,
      // Read only where the relevance features read it: a query that names words and no serving.
      orderCount: q.serving === null && q.words.length > 0 ? text.orderCount : null,
      isCombo: text.isCombo,
    };
  });
}

/** Relevance probability of one item for the query: the fitted precision stage, or the pairing rule for "goes with". */
export function relevanceOf(k: Knowledge, ranker: SearchRanker, q: QueryUnderstanding, item: SearchItem, cosine: number): number {
  if (q.pairWith) return pairingRelevance(k, q.pairWith, item, cosine);
  return ranker.relevance(relevanceFeatures(k, q, item, cosine));
}

/** The items (read once: parseMenuText) ranked for the query; their cosines are the query's, in item order. */
export function rankSearch(k: Knowledge, ranker: SearchRanker, q: QueryUnderstanding, texts: readonly MenuText[], cosines: readonly number[], topK: number): SearchOutcome {
  const items = searchItems(k, q, texts, ranker.menu);
  const scored: SearchCandidate[] = items.map((item, index) => ({ index, cosine: clamp01(cosines[index]!), relevance: relevanceOf(k, ranker, q, item, cosines[index]!) }));
  return gateSearch(k, q, items, scored, q.pairWith ? PAIRING_GATES : ranker, ranker.fallback, topK);
}

/** The item's name holds a food word the query says it is without, and does not itself say it is without something
 * ("Dal Tadka No Onion No Garlic" holds "onion" and still answers a query without onion). */
function holdsRuledOut(k: Knowledge, q: QueryUnderstanding, item: SearchItem): boolean {
  if (q.without.length === 0 || !q.without.some((w) => hasWord(k, item.words, w))) return false;
  return !item.text.toLowerCase().split(/[^\p{L}]+/u).some((w) => k.words.queryNegators.has(w) && w !== 'non');
}

/** The results the gates let through (relevance ≥ floor, within band of the best), best first; else the fallback. */
export function gateSearch(k: Knowledge, q: QueryUnderstanding, items: readonly SearchItem[], scored: readonly SearchCandidate[], gates: { readonly floor: number; readonly band: number }, rule: FallbackRule, topK: number): SearchOutcome {
  const allowed = q.dietStated || q.without.length > 0
    ? scored.filter((c) => !(q.dietStated && contradictsStatedDiet(k, q, items[c.index]!)) && !holdsRuledOut(k, q, items[c.index]!))
    : scored;
  const best = allowed.reduce((m, c) => Math.max(m, c.relevance), 0);
  const passed = allowed
    .filter((c) => c.relevance >= gates.floor && c.relevance >= best - gates.band)
    .sort((a, b) => b.relevance - a.relevance || b.cosine - a.cosine || a.index - b.index)
    .slice(0, topK);
  if (passed.length > 0) {
    return { results: passed.map((c) => ({ index: c.index, score: roundCosine(c.cosine), reranker_score: roundCosine(c.relevance), is_fallback: false })) };
  }
  return { results: fallback(k, q, items, scored, rule, topK) };
}

/** The item is of the other diet than the one the query's words state, by the item's words or dish, not by a recipe's
 * usual egg (a mousse at an eggless bakery). */
function contradictsStatedDiet(k: Knowledge, q: QueryUnderstanding, item: SearchItem): boolean {
  return !item.eggByRecipeOnly && conflicts(k, q.stated, item).dietary_conflict;
}

/** A pizza's size in inches ("12''", '9"', "[7 Inches]"). */
const PIZZA_SIZE = /\b(?:[7-9]|1[0-8])\s?(?:''|"|″|inch(?:es)?\b)/i;
/** The other things menus size in inches: subs and sandwiches, cakes (lexicon/inch_sized_words.txt). */
function notPizzaPattern(k: Knowledge): RegExp {
  return new RegExp(`\\b(?:${literalAlternatives(k.words.inchSizedWords)})\\b`, 'i');
}

/** What an open item's place on the menu says of it: the course of its section and the drink temperature its section shares. */
export interface MenuSection {
  readonly course: Course;
  readonly tags: readonly Tag[];
}

/**
 * The menu section each open item (course confidence below `rule.openCourse`) sits in, or null: a menu lists its items
 * section by section, so "Oreo n Oreo" and "Lotus Biscoff" between the milkshakes are drinks. The section is read from
 * the nearest items on each side whose course is sure (`rule.sureCourse`), up to `rule.neighbours` each way within
 * `rule.reach` positions: when there are at least two and they all agree, the open item takes their course, and the
 * drink temperature they all share (a house name among the coolers is a cold drink, so "garam chai" at a juice bar is
 * not answered by "Blue Angel"). Items whose course the text says are never moved.
 */
export function menuSections(texts: readonly MenuText[], rule: MenuContextRule): (MenuSection | null)[] {
  const profiles = texts.map((t) => t.profile);
  const sure = (k: number): boolean => profiles[k]!.courseConfidence >= rule.sureCourse;
  const tagsOf = (k: number): ReadonlySet<Tag> => withoutNegated(new Set([...(profiles[k]!.dish?.tags ?? []), ...texts[k]!.flavourTags]), texts[k]!);
  return profiles.map((p, i) => {
    if (p.courseConfidence >= rule.openCourse) return null;
    const seenAt: number[] = [];
    for (const step of [-1, 1]) {
      let found = 0;
      for (let k = i + step; k >= 0 && k < profiles.length && Math.abs(k - i) <= rule.reach && found < rule.neighbours; k += step) {
        if (sure(k)) {
          seenAt.push(k);
          found++;
        }
      }
    }
    const seen = seenAt.map((k) => profiles[k]!);
    // One neighbour is a guess, not a section.
    if (seen.length < 2 || !seen.every((n) => n.course === seen[0]!.course)) return null;
    const tags = seenAt.map(tagsOf);
    return { course: seen[0]!.course, tags: texts[i]!.knowledge.words.sectionTags.filter((t) => tags.every((set) => set.has(t))) };
  });
}

/**
 * The course of a menu that sells mostly one kind of thing other than food: dessert when at least `rule.usualShare` of
 * its items whose course is sure are desserts (an ice-cream parlour, a sweet shop), beverage likewise (a juice bar),
 * and it has `rule.usualMin` such items; else null. A menu of food says nothing about one item, since food spans
 * starters, mains and breads.
 */
export function usualCourse(profiles: readonly ItemProfile[], rule: MenuContextRule): Course | null {
  const sure = profiles.filter((p) => p.courseConfidence >= rule.sureCourse);
  if (sure.length < rule.usualMin) return null;
  for (const course of ['dessert', 'beverage'] as const) {
    if (sure.filter((p) => courseGroup(p.course) === course).length >= rule.usualShare * sure.length) return course;
  }
  return null;
}

/** The closest items of the category the query asks for, when no item passed the gates (FallbackRule). */
function fallback(k: Knowledge, q: QueryUnderstanding, items: readonly SearchItem[], scored: readonly SearchCandidate[], rule: FallbackRule, topK: number): SearchOutcome['results'] {
  // A query that only rules tags out names them, not a course: it is offered food.
  const onlyOut = rulesOutOnly(q);
  const wanted = onlyOut ? 'food' : q.course ? courseGroup(q.course) : q.profile.dish ? courseGroup(q.profile.dish.course) : q.profile.courseConfidence >= rule.courseCue ? courseGroup(q.query.cues.course.value) : 'food';
  // A query naming a dish of a cuisine the menu does not serve (sushi at a dosa place) gets no fallback at all.
  // Only a dish the query names exactly says its cuisine: a loose resolution ("soup" read as Tortilla Soup) must not
  // shut the fallback out of every soup of another kitchen.
  const named = q.profile.dishHow === 'exact' ? q.profile.dish : null;
  const qCuisine = named?.cuisine ?? (q.profile.cuisineConfidence >= rule.cuisineConfidence ? q.profile.cuisine : null);
  const cuisineOk = (it: ItemProfile): boolean => !qCuisine || wanted !== 'food' || it.cuisine === qCuisine;
  // A query that only rules tags out was moved away from them (conceptualQueryVector): the level of its cosines says
  // nothing (most are below zero), its relevance orders the items, and what it asks for is the items known to be
  // without those tags (clearOfRuledOut).
  const near = (c: SearchCandidate): boolean => (onlyOut ? clearOfRuledOut(items[c.index]!) : c.cosine >= rule.minCosine);
  const closeness = (c: SearchCandidate): number => (onlyOut ? c.relevance : c.cosine);
  const eligible = scored
    .filter((c) => courseGroup(items[c.index]!.course) === wanted && cuisineOk(items[c.index]!) && near(c))
    .filter((c) => !conflicts(k, q.stated, items[c.index]!).dietary_conflict)
    // "not spicy" embeds close to the spicy dishes: the closest thing is never what the query ruled out.
    .filter((c) => !q.avoid.some((t) => items[c.index]!.tags.has(t)) && !holdsRuledOut(k, q, items[c.index]!))
    .sort((a, b) => closeness(b) - closeness(a) || a.index - b.index);
  // Only the near-best of the category: a fallback is "the closest thing we have", not a list of the category.
  const bestCos = eligible[0]?.cosine ?? 0;
  return eligible
    .filter((c) => onlyOut || c.cosine >= bestCos - rule.band)
    .slice(0, Math.min(topK, rule.most))
    .map((c) => ({ index: c.index, score: roundCosine(c.cosine), reranker_score: roundCosine(c.relevance), is_fallback: true }));
}
