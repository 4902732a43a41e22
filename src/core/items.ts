import type { Knowledge } from './knowledge/index.js';
import type { Course, Cuisine, Dish, Protein } from './knowledge/dishes.js';
import { CONFIDENT_DISH_SCORE, type ComboMatch, type DishMatch } from './knowledge/lookup.js';
import { dietOf, type DietCue, type DietMarkers, type MenuTextCues } from './knowledge/cues.js';
import { differingWords } from './dish-words.js';
import { isCombo } from './variants.js';
import { courseConfidenceOf, cuisineConfidenceOf } from './profile-confidence.js';

/**
 * What we know about one cleaned menu text, from the knowledge base: the dish it names (when it resolves), and its
 * diet, main protein, course and cuisine. The dish's own labels win when it resolves exactly; otherwise the lexicon
 * cues answer. Shared by match, dedup, classify, report and suggest, so they can never disagree about an item.
 */
export interface ItemProfile {
  readonly text: string;
  readonly dish: Dish | null;
  readonly dishHow: 'exact' | 'fuzzy' | null;
  readonly dishScore: number;
  readonly diet: DietCue;
  /** The diet is egg only because the dish's usual recipe has egg (cakes, brownies, mousse): the name itself says
   * nothing about egg, and real menus label many such items veg (eggless is common). */
  readonly eggByRecipeOnly: boolean;
  readonly protein: Protein | null;
  readonly course: Course;
  readonly courseConfidence: number;
  /** The course comes from a dish or a course word, not the default main of a name with neither. */
  readonly courseKnown: boolean;
  /** The course is sure: it comes from a dish, or every course word of the name's first part agrees on it. */
  readonly courseSure: boolean;
  /** Courses a combo brings besides its own (the bread of "Shahi Paneer with 4 Tawa Roti"): a cart holding it has them. */
  readonly comesWith: readonly Course[];
  readonly cuisine: Cuisine | null;
  readonly cuisineConfidence: number;
  /** Egg-free and veg / non-veg markers in the text, for the diet-twin rules. */
  readonly markers: DietMarkers;
  /** The text's content words as the word guards compare them (dish-words.ts), for the meat-twin rule. */
  readonly dishWords: readonly string[];
}

/** Coarse diet the API speaks: egg counts as non-veg wherever veg/non-veg is asked. */
export function vegOrNot(diet: DietCue): 'veg' | 'non_veg' | 'unknown' {
  return diet === 'veg' ? 'veg' : diet === 'unknown' ? 'unknown' : 'non_veg';
}

/** What a profile is read from: a cleaned text as MenuText reads it (menu-text.ts). */
export interface ProfileSource {
  readonly text: string;
  readonly dish: DishMatch | null;
  readonly cues: MenuTextCues;
  /** Read only for a text that resolves to no dish and whose words do not say non-veg. */
  readonly combo: ComboMatch | null;
  readonly markers: DietMarkers;
  readonly dishWords: readonly string[];
}

/** The profile of a cleaned text; MenuText.profile is where every stage gets it (read once per text). */
export function readProfile(k: Knowledge, text: ProfileSource): ItemProfile {
  const cleanedText = text.text;
  const match = text.dish;
  const cues = text.cues;
  const dish = match?.dish ?? null;
  // A fuzzy dish match never overrides an explicit diet or protein word in the text itself.
  const trustDish = dish !== null && (match!.how === 'exact' || cues.diet.value === 'unknown');
  // A loose reading (the dish's words with the text's own added, or a dish ending a longer name) may make an item
  // non-veg but never veg: the words it passed over may be the meat ("Chicago Delight Pizza" is not the deep-dish veg pizza).
  const looseVeg = trustDish && dish!.diet === 'veg' && match!.how !== 'exact' && match!.score < CONFIDENT_DISH_SCORE;
  let diet: DietCue = trustDish ? (looseVeg ? 'unknown' : dish!.diet) : cues.diet.value;
  let protein = trustDish ? dish!.protein : cues.protein.value;
  // A combo is as non-veg as its most non-veg part: "Double Down Burger & Pepsi" is not veg because Pepsi is and
  // nothing in the words names the meat. Parts only ever make the reading less veg, never more.
  if (!dish && diet !== 'non_veg') {
    const parts = (text.combo?.parts ?? []).filter((m) => m && m.score >= CONFIDENT_DISH_SCORE).map((m) => m!.dish);
    const worst = parts.find((d) => d.diet === 'non_veg') ?? (diet === 'egg' ? undefined : parts.find((d) => d.diet === 'egg'));
    if (worst) {
      diet = worst.diet;
      protein ??= worst.protein;
    }
  }
  const course = dish ? dish.course : cues.course.value;
  const profile: ItemProfile = {
    text: cleanedText,
    dish,
    dishHow: match?.how ?? null,
    dishScore: match?.score ?? 0,
    diet,
    eggByRecipeOnly: diet === 'egg' && trustDish && cues.diet.value === 'unknown',
    protein,
    course,
    courseConfidence: courseConfidenceOf(k.readingConfidence.profile, dish ? match!.how : null, cues.course),
    courseKnown: dish !== null || cues.course.named,
    courseSure: dish !== null || cues.course.agreed,
    comesWith: cues.course.comesWith.filter((c) => c !== course),
    cuisine: dish ? dish.cuisine : cues.cuisine.value,
    cuisineConfidence: cuisineConfidenceOf(k.readingConfidence.profile, dish ? match!.how : null, cues.cuisine),
    markers: text.markers,
    dishWords: text.dishWords,
  };
  return profile;
}

export interface ConflictFlags {
  readonly dietary_conflict: boolean;
  readonly protein_conflict: boolean;
}

/**
 * "Non Veg Singapore Noodles" beside "Singapore Noodles", "Veg Manchow Soup" beside "Manchow Soup": the same words but
 * for a veg / non-veg marker, and the unmarked one's diet open, are the two diets.
 */
function dietMarkerPair(a: ItemProfile, b: ItemProfile, da: string, db: string): boolean {
  const ma = a.markers, mb = b.markers;
  if (ma.vegOrNonVeg === mb.vegOrNonVeg) return false;
  const [marked, plain, plainDiet] = ma.vegOrNonVeg ? [ma, mb, db] : [mb, ma, da];
  return plainDiet === 'unknown' && marked.unmarkedWords.join(' ') === plain.unmarkedWords.join(' ');
}

/**
 * "Grand Cheese" beside "Grand Chicken", "Korean Cheese Delight Burger" beside "Korean Chicken Burger": two texts
 * that share words and swap one or two words the diet reading leaves open for meat words. A menu selling the meat
 * version beside the other one is telling us the other is the veg one. Only a swap counts: a text that merely lacks
 * the meat word ("Shawarma" / "Chicken Shawarma") is often the same dish with its meat left implicit. On the real
 * look-alike pairs (development data) this found 7 more of the pairs whose source flags differ and raised 3 false
 * alarms where names hide their meat ("Hot Tandoori Pizza" beside "Tandoori Chicken Pizza"); allowing two open words
 * found 10 more and raised 3 more (recall 0.938 → 0.944, false alarms 53 → 56 of 12,160): a missed conflict costs
 * more than a needless one.
 */
function meatSwapTwin(k: Knowledge, a: ItemProfile, b: ItemProfile, da: string, db: string): boolean {
  if (!((da === 'non_veg' && db === 'unknown') || (db === 'non_veg' && da === 'unknown'))) return false;
  const [meat, open] = da === 'non_veg' ? [a, b] : [b, a];
  const [onlyMeat, onlyOpen] = differingWords(meat.dishWords, open.dishWords);
  // "Jumbo Royal Burger Combo" / "Jumbo Royal Chicken Burger": a combo word is no swap of ingredients.
  if (onlyOpen.length === 0 || onlyOpen.length > 2 || onlyOpen.some((w) => isCombo(k, w)) || onlyMeat.length === 0 || onlyMeat.length > 2 || onlyMeat.length === meat.dishWords.length) return false;
  return dietOf(k.cues, onlyMeat.join(' ')).value === 'non_veg';
}

/**
 * dietary_conflict: one side veg and the other non-veg (egg counts as non-veg), or a diet twin (eggless, a veg /
 * non-veg marker, a meat swap) whose other side's diet is open. protein_conflict: both main proteins known and
 * different.
 */
export function conflicts(k: Knowledge, a: ItemProfile, b: ItemProfile): ConflictFlags {
  const da = vegOrNot(a.diet);
  const db = vegOrNot(b.diet);
  // A menu that sells an "Eggless Opium Cake" beside an "Opium Cake" is telling us the plain one has egg: an eggless
  // text against one whose own words leave the diet open (cakes, pastries, brownies) is a veg / egg pair.
  const ea = a.markers.eggFree, eb = b.markers.eggFree;
  const egglessPair = ea !== eb && (ea ? db : da) === 'unknown';
  const markerPair = dietMarkerPair(a, b, da, db);
  return {
    dietary_conflict: (da !== 'unknown' && db !== 'unknown' && da !== db) || egglessPair || markerPair || meatSwapTwin(k, a, b, da, db),

    protein_conflict: a.protein !== null && b.protein !== null && a.protein !== b.protein,
  };
}
