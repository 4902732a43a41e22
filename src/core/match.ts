import { conflicts, type ItemProfile } from './items.js';
import { nameKey, type Knowledge } from './knowledge/index.js';
import { courseGroup } from './knowledge/dishes.js';
import { variantDifference, type VariantDifference } from './variants.js';
import { annotationKey, parseCleanedText, type MenuText } from './menu-text.js';
import { dishWords } from './dish-words.js';
import { editDistance } from './text/edit-distance.js';
import { sameDishKey } from './knowledge/equivalents.js';
import { CONFIDENT_DISH_SCORE } from './knowledge/lookup.js';
import { spelledAlike, swappedDefiningWords } from './defining-words.js';
import { brandsDiffer, brandsOf } from './knowledge/brands.js';
import { readFittedFile } from './fitted-file.js';
import { logistic } from './logistic.js';
import { join } from 'node:path';
import { MODELS_DIR } from './paths.js';
import { roundScore } from './number-format.js';

/**
 * The precision stage for "are these the same dish?", used by /match and /dedup.
 *
 * A pair is scored only when its cosine clears the fitted cosine gate (MatchGates.cosineGate) or the knowledge base resolves both texts to the
 * same dish (otherwise the answer is "different" and reranker_score is null). The precision score is a probability that the two texts name the same dish:
 *   - from a cross-encoder when one is loaded (calibrated to 0–1 at build time), else
 *   - from the knowledge base: both texts resolving to the same dish, or to two different dishes, → the share of such
 *     development pairs labelled the same dish (MatchGates.knowledgeSame / knowledgeDifferent, measured), otherwise a
 *     logistic calibration of the cosine fitted for the served encoder (models/calibration/).
 * The decision (documented in the README):
 *   match = no dietary or protein conflict
 *           AND ( (cosine ≥ cosine_threshold AND precision ≥ veto_below)   — the precision stage can veto a look-alike
 *                 OR precision ≥ confirm_at )                              — or confirm a synonym the cosine misses
 * with veto_below and confirm_at fitted on the development pairs (MatchGates).
 * so lowering cosine_threshold matches more aggressively, and conflicts always win.
 * The cross-encoder reads both texts with other-language food words in English (what the encoder embeds too), and
 * two texts that are the same words once rendered so ("Macchi Fry" / "Fish Fry", "Pollo Asado" / "Grilled Chicken")
 * count as the same dish the way a knowledge-base identity does. Knowledge that they are two items caps the precision
 * at the measured probability of such a pair (MatchGates.knowledgeDifferent): two variants of one family (variants.ts)
 * or two sure, different course groups.
 */
export interface PairScorer {
  readonly id: string;
  /** Calibrated same-dish probabilities for cleaned text pairs. */
  score(pairs: readonly (readonly [string, string])[]): Promise<number[]>;
}

/**
 * The same-dish probability of a cleaned-text cosine, for pairs no cross-encoder scores: a logistic fitted for one
 * encoder (its cosines shift with every training) on knowledge-base alias pairs against the hard negatives.
 */
export interface CosineCalibration {
  /** The encoder whose cosines it was fitted on. */
  readonly encoder: string;
  readonly slope: number;
  readonly midpoint: number;
}

/**
 * The precision stage's fitted numbers, from the development match pairs by scripts/fit-match-gates.mjs
 * (models/calibration/match-gates.json). `knowledgeSame` and `knowledgeDifferent` are measured: the share of the pairs
 * the knowledge base reads as one dish (or as two items) that are labelled the same dish, and the precision score
 * such a pair gets. Then the two cut-offs on that score, fitted for the served models: below `vetoBelow` a pair over
 * the cosine threshold is a look-alike; from `confirmAt` up a pair under it is a synonym the cosine missed. Before
 * all of it, `cosineGate`: below it a pair the knowledge base does not read as one dish is "different" unscored (the
 * contract's gate on reranker_score, which bounds the precision stage's cost), fitted with the cut-offs.
 */
export interface MatchGates {
  readonly cosineGate: number;
  readonly vetoBelow: number;
  readonly confirmAt: number;
  readonly knowledgeSame: number;
  readonly knowledgeDifferent: number;
}

/** What scores a pair after the knowledge base (the cross-encoder when one answers, else the calibrated cosine), and
 * the gates on that score. */
export interface PairPrecision {
  readonly model: PairScorer | null;
  readonly calibration: CosineCalibration;
  readonly gates: MatchGates;
}

export const COSINE_CALIBRATION_FORMAT = 'menu-intelligence/cosine-calibration@1';
/** Committed; refitted by scripts/fit-match-calibration.mjs when the served encoder changes. */
export const COSINE_CALIBRATION_PATH = join(MODELS_DIR, 'calibration', 'same-dish-cosine.json');

export function readCosineCalibration(path: string = COSINE_CALIBRATION_PATH): CosineCalibration {
  const { raw, where } = readFittedFile<{ format?: string; encoder?: unknown; slope?: unknown; midpoint?: unknown }>(path, COSINE_CALIBRATION_FORMAT);
  const { encoder, slope, midpoint } = raw;
  if (typeof encoder !== 'string' || typeof slope !== 'number' || typeof midpoint !== 'number' || !(slope > 0) || !Number.isFinite(midpoint)) {
    throw new Error(`${where}: needs an encoder id, a positive slope and a finite midpoint`);
  }
  return Object.freeze({ encoder, slope, midpoint });
}

export interface PairVerdict {
  readonly cosine: number;
  readonly reranker_score: number | null;
  readonly match: boolean;
  readonly dietary_conflict: boolean;
  readonly protein_conflict: boolean;
}

function bothConfident(a: ItemProfile, b: ItemProfile): boolean {
  return a.dishScore >= CONFIDENT_DISH_SCORE && b.dishScore >= CONFIDENT_DISH_SCORE;
}

export { DEFAULT_COSINE_THRESHOLD } from './contract.js';

/** Knowledge-base evidence about two profiles: 'same', 'different' or null when the knowledge cannot tell. */
export function dishIdentity(a: ItemProfile, b: ItemProfile): 'same' | 'different' | null {
  if (!a.dish || !b.dish) return null;
  if (a.dish.id === b.dish.id) return 'same';
  // Two confidently resolved, different dishes are different; a weak fuzzy resolution is not evidence enough.
  return bothConfident(a, b) ? 'different' : null;
}

/** The decision on a pair without a conflict: over the threshold unless vetoed, or under it when confirmed. */
export function passesGates(cosine: number, precision: number, cosineThreshold: number, gates: MatchGates): boolean {
  return (cosine >= cosineThreshold && precision >= gates.vetoBelow) || precision >= gates.confirmAt;
}

export const MATCH_GATES_FORMAT = 'menu-intelligence/match-gates@1';
export const MATCH_GATES_PATH = join(MODELS_DIR, 'calibration', 'match-gates.json');

/** Reads the fitted gates. A knowledge-base identity must still decide a pair alone (verdictsOnly relies on it): the
 * veto lies above the probability of a pair the knowledge base tells apart and the confirmation at or below that of
 * a pair it reads as one dish. */
export function readMatchGates(path: string = MATCH_GATES_PATH): MatchGates {
  const { raw, where } = readFittedFile<{ format?: string; cosine_gate?: unknown; veto_below?: unknown; confirm_at?: unknown; knowledge_same?: unknown; knowledge_different?: unknown }>(path, MATCH_GATES_FORMAT);
  const { cosine_gate: cosineGate, veto_below: vetoBelow, confirm_at: confirmAt, knowledge_same: knowledgeSame, knowledge_different: knowledgeDifferent } = raw;
  if (typeof cosineGate !== 'number' || !(cosineGate > 0 && cosineGate < 1)) throw new Error(`${where}: needs a cosine_gate in (0, 1): refit with scripts/fit-match-gates.mjs`);
  if (
    typeof vetoBelow !== 'number' || typeof confirmAt !== 'number' || typeof knowledgeSame !== 'number' || typeof knowledgeDifferent !== 'number' ||
    !(knowledgeDifferent > 0 && knowledgeDifferent < vetoBelow && vetoBelow <= confirmAt && confirmAt <= knowledgeSame && knowledgeSame < 1)
  ) {
    throw new Error(`${where}: needs 0 < knowledge_different < veto_below ≤ confirm_at ≤ knowledge_same < 1`);
  }
  return Object.freeze({ cosineGate, vetoBelow, confirmAt, knowledgeSame, knowledgeDifferent });
}

export function knowledgeProbability(a: ItemProfile, b: ItemProfile, cosine: number, calibration: CosineCalibration, gates: MatchGates): number {
  const identity = dishIdentity(a, b);
  if (identity === 'same') return gates.knowledgeSame;
  if (identity === 'different') return gates.knowledgeDifferent;
  return logistic(calibration.slope * (cosine - calibration.midpoint));
}

/**
 * Sure courses on both sides (ItemProfile.courseSure: from a dish, or from course words that agree) put two texts in
 * different course groups (a drink, a dessert, food): "Cham Cham (Orange)" / "Orange Juice", "Pineapple Holige" /
 * "Pineapple Raita" share a flavour word, not a dish. A course read from disagreeing words, a combo's main or the
 * default main is not sure enough. Over real menus it fires on 54 of 12,980 same-restaurant pairs with cosine ≥ 0.75,
 * each two different items (a shake beside its sundae, a combo with a drink beside the burger alone).
 */
export function coursesApart(a: ItemProfile, b: ItemProfile): boolean {
  return a.courseSure && b.courseSure && courseGroup(a.course) !== courseGroup(b.course);
}

/**
 * The dish without a tail that only lists its accompaniments (what comes with a dish rather than making another one,
 * lexicon/accompaniments.txt: "Idli with Chutney" is Idli, "Nuggets + 1 Dip" are Nuggets), as a name key; null when
 * the text has no such tail.
 *   - after a last "with" or "+": at most three words ending in an accompaniment ("Paneer Tikka with Mint Chutney",
 *     "Crunchy Chicken Nuggets + Dip");
 *   - with no marker (cleaning drops brackets: "Chicken Dum Biryani [Raita and Salad]"): a trailing run of two or more
 *     accompaniments joined by "and", after at least two words, so "Boondi Raita" and "Chicken Salad" stay dishes.
 * Another dish or a drink after the marker ("+ Coke", "+ Chicken Seekh Kabab") is a combo, and stays one.
 */
export function withoutAccompaniments(k: Knowledge, text: string): string | null {
  const accompaniments = k.words.accompaniments;
  const words = text.toLowerCase().replace(/\+/g, ' + ').replace(/&/g, ' and ').split(/\s+/)
    .filter((w) => w !== '' && !/^\d+$/.test(w));
  const endsInAccompaniment = (ws: readonly string[]): boolean => ws.length > 0 && accompaniments.has(ws[ws.length - 1]!);
  const marker = Math.max(words.lastIndexOf('with'), words.lastIndexOf('+'));
  if (marker >= 1) {
    const tail = words.slice(marker + 1);
    return tail.length <= 3 && endsInAccompaniment(tail) ? nameKey(words.slice(0, marker).join(' ')) : null;
  }
  const glue = (w: string): boolean => accompaniments.has(w) || w === 'and' || w === 'n';
  let start = words.length;
  while (start > 0 && glue(words[start - 1]!)) start--;
  const listed = words.slice(start).filter((w) => accompaniments.has(w)).length;
  return listed >= 2 && start >= 2 && endsInAccompaniment(words) ? nameKey(words.slice(0, start).join(' ')) : null;
}

/** A text as the precision stage compares it: in English food words, with its name key and its dish's key (the name
 * key without accompaniments). */
interface Rendering {
  readonly text: string;
  readonly key: string;
  readonly dishKey: string;
  /** The dish key's content words, as the word guards compare them. */
  readonly dishKeyWords: readonly string[];
  /** The dish key with the names of one food in lexicon/search_equivalents.tsv as one token ("momo" for "dim sum"). */
  readonly sameDishKey: string;
  /** The brands the text names (lexicon/brands.tsv). */
  readonly brands: ReadonlySet<string>;
}

const RENDERING = annotationKey<Rendering>('match rendering');

/** A text's rendering for the precision stage, read once per text (a MenuText annotation). */
function renderingOf(text: MenuText): Rendering {
  return text.annotation(RENDERING, (t) => {
    const k = t.knowledge;
    const english = t.english;
    const key = nameKey(english);
    const dishKey = withoutAccompaniments(k, english) ?? key;
    return {
      text: english, key, dishKey, dishKeyWords: dishWords(k, dishKey), sameDishKey: sameDishKey(k.equivalents, dishKey), brands: brandsOf(k.brands, english),
    };
  });
}

/**
 * Whether two texts the knowledge base reads as one dish are still two items by their words. A resolution of a longer
 * name by its contained words ("Garlic Lachha Paratha" read as Laccha Paratha at 0.72) does not outweigh a word that
 * makes another item ("+garlic", "Piri Piri McSpicy Paneer Burger"), unless the dish's own name has that word:
 * "McAloo Tikki" is the Aloo Tikki Burger, so "McAloo Tikki Burger" adds nothing ("Valencia Orange" / "… Juice" too).
 * An added form word counts however sure both resolutions are, unless one of the dish's names has it: "McAloo Tikki
 * Double Patty Burger" resolves to the Aloo Tikki Burger with 0.95, and is still the double. Other differences (a
 * swap, a combo, a course) leave two confident resolutions (CONFIDENT_DISH_SCORE each) one dish. `why` is the reason
 * the two differ.
 */
export function madeAnother(k: Knowledge, a: ItemProfile, b: ItemProfile, why: Apart | null): boolean {
  if (why === null) return false;
  if (why.kind === 'brand') return true;
  if (why.kind === 'added') return !a.dish || !a.dish.keys.some((key) => parseCleanedText(k, key).dishWords.includes(why.word));
  return !bothConfident(a, b);
}

/** Why two texts the words or courses tell apart are two items: two brands (lexicon/brands.tsv), a variant
 * difference, or courses in different groups. */
export type Apart = VariantDifference | { readonly kind: 'course' } | { readonly kind: 'brand' };

/**
 * Two names (their dishWords) that are one name written with a word split or joined ("Gosse Berry Juice" / "Gooseberry
 * Juice", "Ras Malai" / "Rasmalai"): the same letters once the spaces go, or but for one slip in a name of eight
 * letters or more.
 */
export function compoundAlike(wa: readonly string[], wb: readonly string[]): boolean {
  if (wa.length === wb.length) return false;
  const ja = wa.join(''), jb = wb.join('');
  if (ja === jb) return true;
  return Math.min(ja.length, jb.length) >= 8 && editDistance(ja, jb, 1) <= 1;
}

/** Two renderings are one name by their words (see sameNameWords). */
function renderingsAlike(k: Knowledge, a: Rendering, b: Rendering): boolean {
  return a.key === b.key || a.dishKey === b.dishKey || a.sameDishKey === b.sameDishKey || spelledAlike(k, a.dishKeyWords, b.dishKeyWords) || compoundAlike(a.dishKeyWords, b.dishKeyWords);
}

/**
 * Whether two texts are one name by their words, as the precision stage reads them: the same words, or the same once
 * listed accompaniments are set aside, once the names a menu uses for one food are read as one (Kaju / Cashew Masala),
 * but for a misspelling (Chocolate Lava / Lawa) or but for a word split or joined. Such a pair is judged whatever its
 * cosine: the encoder is weakest exactly where the words are rare spellings and translations.
 */
export function sameNameWords(a: MenuText, b: MenuText): boolean {
  return renderingsAlike(a.knowledge, renderingOf(a), renderingOf(b));
}

/**
 * Keys that every pair sameNameWords accepts shares at least one of (blocking, so a menu is not compared pair by pair):
 * the same-food key (equal whenever the name keys or dish keys are), the words run together, and the words with one
 * left out (a misspelling changes one word; spelledAlike needs the names to share the rest).
 */
export function nameWordKeys(text: MenuText): string[] {
  const r = renderingOf(text);
  const w = r.dishKeyWords;
  const keys = [`s ${r.sameDishKey}`, `j ${w.join('')}`];
  if (w.length >= 2) for (let i = 0; i < w.length; i++) keys.push(`o ${[...w.slice(0, i), ...w.slice(i + 1)].join(' ')}`);
  return keys;
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/**
 * Scores pairs of menu texts with their cosines. The precision model (a cross-encoder), when there is one, scores
 * the pairs that clear the gate, else the calibrated cosine does; the knowledge base's dish identity still overrides
 * either where it is certain. With `verdictsOnly` the model is asked only about pairs whose `match` depends on it; the
 * other pairs' reranker_score then comes from the knowledge base (the same `match`, a cheaper score).
 */
export async function judgePairs(
  k: Knowledge,
  pairs: readonly (readonly [MenuText, MenuText])[],
  cosines: readonly number[],
  cosineThreshold: number,
  precision: PairPrecision,
  options: { readonly verdictsOnly?: boolean } = {},
): Promise<PairVerdict[]> {
  const { profiles, rendered, gated, flags, identities } = knowledgeReadings(k, pairs, cosines, precision.gates.cosineGate);
  const modelScores = new Map<number, number>();
  const scorer = precision.model;
  if (scorer) {
    // With verdictsOnly (dedup, which reads `match` alone) a pair is sent to the model only when its verdict can turn
    // on the score: a knowledge-base identity raises the probability past the confirmation, a difference caps it
    // below the veto, and a conflict refuses the match whatever the score.
    const decided = (i: number): boolean =>
      options.verdictsOnly === true && (identities[i] !== null || flags[i]!.dietary_conflict || flags[i]!.protein_conflict);
    const idx = gated.flatMap((g, i) => (g && !decided(i) ? [i] : []));
    const scores = await scorer.score(idx.map((i) => [rendered[i]![0].text, rendered[i]![1].text] as const));
    idx.forEach((i, n) => modelScores.set(i, scores[n]!));
  }
  const { gates } = precision;
  return pairs.map((_, i) => {
    const [pa, pb] = profiles[i]!;
    const cosine = clamp01(cosines[i]!);
    if (!gated[i]) return { cosine, reranker_score: null, match: false, ...flags[i]! };
    let p = modelScores.get(i) ?? knowledgeProbability(pa, pb, cosine, precision.calibration, gates);
    const identity = identities[i];
    if (identity === 'same') p = Math.max(p, gates.knowledgeSame);
    else if (identity === 'different') p = Math.min(p, gates.knowledgeDifferent);
    const conflict = flags[i]!.dietary_conflict || flags[i]!.protein_conflict;
    const match = !conflict && passesGates(cosine, p, cosineThreshold, gates);
    return { cosine, reranker_score: roundScore(p), match, ...flags[i]! };
  });
}

/** Each English rendering has a dish-defining word the other lacks (swappedDefiningWords): two dishes. */
function definingSwap(k: Knowledge, a: Rendering, b: Rendering): Apart | null {
  const words = swappedDefiningWords(k, a.dishKeyWords, b.dishKeyWords);
  return words === null ? null : { kind: 'swap', words };
}

/** What the knowledge base reads off each pair before any model: whether the pair reaches the precision stage
 * (`gated`: its cosine reaches `cosineGate`, or the knowledge base reads it as one dish), its diet and protein conflicts, and its identity ('same' dish, 'different' items, or null: it cannot
 * tell). scripts/fit-match-gates.mjs measures on the development pairs how often each identity is right. */
export function knowledgeReadings(k: Knowledge, pairs: readonly (readonly [MenuText, MenuText])[], cosines: readonly number[], cosineGate: number) {
  const profiles = pairs.map(([a, b]) => [a.profile, b.profile] as const);
  // Dedup and suggest judge many pairs over few texts: each text is rendered once.
  const rendered = pairs.map(([a, b]) => [renderingOf(a), renderingOf(b)] as const);
  // The same words, or the same once the accompaniments one or both list are set aside ("Nuggets" / "Nuggets + Dip"),
  // or once the names a menu uses for one food are read as one ("Chicken Dim Sum" / "Chicken Momo"), or but for a
  // misspelling ("Mughalaih Biryani" / "Mughlai Biryani"), or but for a word split or joined ("Gosse Berry" / "Gooseberry").
  const sameWords = rendered.map(([a, b]) => renderingsAlike(k, a, b));
  // The gate bounds precision-stage cost; a knowledge-base identity costs nothing, so a synonym the base encoder
  // scores low (Murgh Makhani / Butter Chicken, cosine 0.15) still reaches the precision stage.
  const gated = cosines.map((c, i) => c >= cosineGate || sameWords[i]! || dishIdentity(profiles[i]![0], profiles[i]![1]) === 'same');
  const flags = profiles.map(([pa, pb]) => conflicts(k, pa, pb));
  const identities = pairs.map(([ta, tb], i) => {
    if (!gated[i]) return null;
    const [pa, pb] = profiles[i]!;
    // The same words need no word-level check; every other pair asks why the two might differ, once.
    const known = sameWords[i] ? 'same' : dishIdentity(pa, pb);
    const apart: Apart | null = sameWords[i] ? null
      : brandsDiffer(rendered[i]![0].brands, rendered[i]![1].brands) ? { kind: 'brand' }
      : coursesApart(pa, pb) ? { kind: 'course' } : variantDifference(ta, tb) ?? definingSwap(k, rendered[i]![0], rendered[i]![1]);
    return known === 'same' && !madeAnother(k, pa, pb, apart) ? 'same' : apart !== null ? 'different' : known;
  });
  return { profiles, rendered, gated, flags, identities };
}
