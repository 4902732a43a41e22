import type { tags } from 'typia';
import type { Services } from './services.js';
import { dedupPrepared, type DedupOutcome } from './dedup.js';
import { DEFAULT_COSINE_THRESHOLD } from './match.js';
import { classifierStatus, classifyItems } from './classify.js';
import { detectNonFood } from './nonfood.js';
import { FULL_DIMENSION } from './inference/encoder.js';
import { percentOf, roundHundredths } from './number-format.js';

/**
 * The whole-menu health report behind POST /report. Each item is cleaned and embedded once (384-d); the dedup
 * clustering, the cuisine classifier and the non-food detector all read those same vectors.
 *
 * quality_score (0–100, higher is better; documented in the README):
 *
 *   score = round(100 − 35·min(1, d / 0.30) − 20·min(1, n / 0.50) − 35·min(1, f / 0.10) − 10·c)
 *
 *   d = total_duplicate_items / total_items   (excess duplicates: 30 % or more costs the full 35 points)
 *   n = items_with_noise / total_items         (names carrying prices, sizes, promo labels, emojis: 50 % → 20 points)
 *   f = non-food items / total_items           (packaged goods, medicines, merchandise: 10 % → 35 points)
 *   c = low cuisine diversity, min(1, max(0, (3 − e) / 2)) where e = exp(Shannon entropy) of the cuisine
 *       distribution of the food items with a label (uncertain ones left out): one cuisine → 1 (10 points), two
 *       even cuisines → 0.5, three or more even ones → 0; 0 when the classifier is not loaded or nothing has a label.
 *
 * The weights say what a menu team should fix first: non-food listings and duplicates mislead customers, noisy
 * names hurt search, and a single-cuisine menu is only a mild signal.
 */
export const QUALITY_WEIGHTS = { duplicates: 35, noise: 20, nonFood: 35, diversity: 10 } as const;
/** The rates at which each penalty is complete. */
export const QUALITY_SATURATION = { duplicates: 0.3, noise: 0.5, nonFood: 0.1 } as const;
/** Effective number of cuisines at and above which diversity costs nothing. */
export const DIVERSE_CUISINES = 3;
export const MAX_NOISE_EXAMPLES = 5;
export const MAX_TOP_CLUSTERS = 10;

export type NonFoodCategory = 'pharmacy' | 'grocery' | 'merchandise';

type Count = number & tags.Type<'uint32'>;

export interface NoiseExample {
  /** As submitted. */
  original: string;
  /** After cleaning removed prices, sizes, promo labels, emoji or decoration. */
  cleaned: string;
}

export interface TopCluster {
  /** The shortest member. */
  canonical: string;
  size: Count;
  members: string[];
}

/** Cuisine label (or "uncertain") → food items with it. */
export interface CuisineDistribution {
  [cuisine: string]: number;
}

export interface MenuReport {
  /** As given, or empty. */
  restaurant_name: string;
  /** Items analysed. */
  total_items: Count;
  noise_analysis: {
    /** Items whose text cleaning changed. */
    items_with_noise: Count;
    noise_percentage: number;
    /** Up to 5, in submission order. */
    examples: NoiseExample[];
  };
  dedup_summary: {
    total_clusters: Count;
    /** Excess duplicates over all clusters. */
    total_duplicate_items: Count;
    /** Up to 10, largest first. */
    top_clusters: TopCluster[];
  };
  /** Null when the classifier is not loaded. */
  cuisine_breakdown: { distribution: CuisineDistribution } | null;
  non_food_items: { item: string; category: NonFoodCategory }[];
  /** 0-100, higher is better: lowered by duplicates, noise, non-food items and low cuisine diversity. */
  quality_score: number & tags.Type<'uint32'> & tags.Maximum<100>;
  processing_time_ms: number;
}

export interface QualityInputs {
  readonly totalItems: number;
  readonly duplicateItems: number;
  readonly noisyItems: number;
  readonly nonFoodItems: number;
  /** Cuisine label → food items (uncertain included or not: it is ignored), or null without a classifier. */
  readonly distribution: Readonly<Record<string, number>> | null;
}

/** Effective number of cuisines: exp of the Shannon entropy of the labelled part of the distribution. */
export function effectiveCuisines(distribution: Readonly<Record<string, number>>): number {
  const counts = Object.entries(distribution).filter(([label, n]) => label !== 'uncertain' && n > 0).map(([, n]) => n);
  const total = counts.reduce((s, n) => s + n, 0);
  if (total === 0) return 0;
  let entropy = 0;
  for (const n of counts) entropy -= (n / total) * Math.log(n / total);
  return Math.exp(entropy);
}

/** The quality score formula above, as a pure function. */
export function qualityScore(q: QualityInputs): number {
  if (q.totalItems <= 0) return 100;
  const rate = (x: number, full: number): number => Math.min(1, x / q.totalItems / full);
  let penalty =
    QUALITY_WEIGHTS.duplicates * rate(q.duplicateItems, QUALITY_SATURATION.duplicates) +
    QUALITY_WEIGHTS.noise * rate(q.noisyItems, QUALITY_SATURATION.noise) +
    QUALITY_WEIGHTS.nonFood * rate(q.nonFoodItems, QUALITY_SATURATION.nonFood);
  if (q.distribution) {
    const e = effectiveCuisines(q.distribution);
    if (e > 0) penalty += QUALITY_WEIGHTS.diversity * Math.min(1, Math.max(0, (DIVERSE_CUISINES - e) / 2));
  }
  return Math.max(0, Math.min(100, Math.round(100 - penalty)));
}

/** The ≤ 10 largest clusters, largest first (ties keep the dedup order: first member earliest). */
export function topClusters(items: readonly string[], outcome: DedupOutcome, limit = MAX_TOP_CLUSTERS): TopCluster[] {
  return outcome.clusters
    .map((c, order) => ({ c, order }))
    .sort((x, y) => y.c.members.length - x.c.members.length || x.order - y.order)
    .slice(0, limit)
    .map(({ c }) => ({ canonical: items[c.canonical]!, size: c.members.length, members: c.members.map((m) => items[m]!) }));
}

export async function buildMenuReport(
  services: Services,
  items: readonly string[],
  restaurantName: string,
  options: { cosineThreshold?: number } = {},
): Promise<MenuReport> {
  const started = performance.now();
  const { texts, vectors } = await services.embedTexts(items, FULL_DIMENSION);
  const cleanedTexts = texts.map((c) => c.name);

  // Noise: cleaning removed something (a price, a size, a promo label, an emoji, decoration).
  const noisy = texts.flatMap((c, i) => (c.removed.length > 0 ? [i] : []));
  const examples: NoiseExample[] = [];
  const shown = new Set<string>();
  for (const i of noisy) {
    if (examples.length >= MAX_NOISE_EXAMPLES) break;
    if (shown.has(items[i]!)) continue;
    shown.add(items[i]!);
    examples.push({ original: items[i]!, cleaned: cleanedTexts[i]! });
  }

  const outcome = await dedupPrepared(services.knowledge, texts, vectors, {
    cosineThreshold: options.cosineThreshold ?? DEFAULT_COSINE_THRESHOLD,
    precision: services.pairPrecision(),
  });

  const categories = await detectNonFood(services, texts, vectors);
  const nonFood = categories.flatMap((category, i) => (category ? [{ item: items[i]!, category }] : []));

  // Cuisines of the food items only: a medicine or a T-shirt has no cuisine.
  let distribution: Record<string, number> | null = null;
  if (classifierStatus(services.heads) !== null) {
    const food = categories.flatMap((c, i) => (c === null ? [i] : []));
    const labels = await classifyItems(services, food.map((i) => texts[i]!), food.map((i) => vectors[i]!));
    const counts = new Map<string, number>();
    for (const { cuisine } of labels) counts.set(cuisine, (counts.get(cuisine) ?? 0) + 1);
    distribution = Object.fromEntries([...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)));
  }

  const quality = qualityScore({
    totalItems: items.length,
    duplicateItems: outcome.duplicateItems,
    noisyItems: noisy.length,
    nonFoodItems: nonFood.length,
    distribution,
  });

  return {
    restaurant_name: restaurantName,
    total_items: items.length,
    noise_analysis: {
      items_with_noise: noisy.length,
      noise_percentage: percentOf(noisy.length, items.length),
      examples,
    },
    dedup_summary: {
      total_clusters: outcome.clusters.length,
      total_duplicate_items: outcome.duplicateItems,
      top_clusters: topClusters(items, outcome),
    },
    cuisine_breakdown: distribution ? { distribution } : null,
    non_food_items: nonFood,
    quality_score: quality,
    processing_time_ms: roundHundredths(performance.now() - started),
  };
}
