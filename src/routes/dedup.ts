import typia, { tags } from 'typia';
import { dedupPrepared, type DedupOutcome } from '../core/dedup.js';
import { parseCosineThreshold, type CosineThreshold } from './match.js';
import { typed, type MenuText, type Route } from './route.js';
import { roundHundredths } from '../core/number-format.js';

export interface DedupRequest {
  /** A whole menu (split larger ones into batches). */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<2000>;
  /** Cosine at which two items become candidate duplicates; lower groups more aggressively. */
  cosine_threshold?: CosineThreshold | null;
}

export interface PairwiseScore {
  text_a: string;
  text_b: string;
  /** Cosine similarity of the two cleaned texts. */
  score: number;
}

export interface DuplicateCluster {
  /** 1-based, unique within the response. */
  cluster_id: number & tags.Type<'uint32'>;
  /** The shortest member (ties: the first submitted). */
  canonical: string;
  /** Every item of the group, original text. */
  members: string[];
  /** Cosines of member pairs, the canonical's first; at most 100 per cluster. */
  pairwise_scores: PairwiseScore[];
  /** pairwise_scores was capped; membership is always complete. */
  pairwise_truncated: boolean;
}

export interface DedupResponse {
  clusters: DuplicateCluster[];
  /** Items with no duplicate. */
  singletons: string[];
  /** Items submitted. */
  total_items: number & tags.Type<'uint32'>;
  /** Excess duplicates: items in clusters minus the number of clusters. */
  duplicate_items: number & tags.Type<'uint32'>;
  processing_time_ms: number;
}

/** The spec's cluster objects from a dedup outcome: original texts, 1-based ids in the outcome's order. */
export function toDuplicateClusters(items: readonly string[], outcome: DedupOutcome): DuplicateCluster[] {
  return outcome.clusters.map((c, k) => ({
    cluster_id: k + 1,
    canonical: items[c.canonical]!,
    members: c.members.map((m) => items[m]!),
    pairwise_scores: c.pairwise.map((p) => ({ text_a: items[p.a]!, text_b: items[p.b]!, score: p.score })),
    pairwise_truncated: c.pairwiseTruncated,
  }));
}

export const dedupRoute: Route<{ items: string[]; threshold: number }, DedupResponse> = {
  endpoint: 'dedup',
  method: 'post',
  path: '/dedup',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<DedupRequest>(body));
    return { items: req.items, threshold: parseCosineThreshold(req.cosine_threshold) };
  },
  async handle(req, ctx) {
    const started = performance.now();
    const s = ctx.services;
    const { texts, vectors } = await s.embedTexts(req.items, 384);
    const outcome = await dedupPrepared(s.knowledge, texts, vectors, {
      cosineThreshold: req.threshold,
      precision: s.pairPrecision(),
    });
    return {
      clusters: toDuplicateClusters(req.items, outcome),
      singletons: outcome.singletons.map((i) => req.items[i]!),
      total_items: req.items.length,
      duplicate_items: outcome.duplicateItems,
      processing_time_ms: roundHundredths(performance.now() - started),
    };
  },
};
