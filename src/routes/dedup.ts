import typia from 'typia';
import { dedupPrepared, type DedupOutcome } from '../core/dedup.js';
import { parseCosineThreshold } from './match.js';
import { checkCount, checkTexts, typed, type Route } from './route.js';

export interface DedupRequest {
  items: string[];
  cosine_threshold?: number | null;
}

export interface DuplicateCluster {
  cluster_id: number;
  canonical: string;
  members: string[];
  pairwise_scores: { text_a: string; text_b: string; score: number }[];
  pairwise_truncated: boolean;
}

export interface DedupResponse {
  clusters: DuplicateCluster[];
  singletons: string[];
  total_items: number;
  duplicate_items: number;
  processing_time_ms: number;
}

export const MAX_DEDUP_ITEMS = 2000;

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
    checkCount('items', req.items.length, 1, MAX_DEDUP_ITEMS);
    checkTexts('items', req.items);
    return { items: req.items, threshold: parseCosineThreshold(req.cosine_threshold) };
  },
  async handle(req, ctx) {
    const started = performance.now();
    const s = ctx.services;
    const { texts, vectors } = await s.embedTexts(req.items, 384);
    const outcome = await dedupPrepared(s.knowledge, texts, vectors, {
      cosineThreshold: req.threshold,
      scorer: s.matchScorer(),
    });
    return {
      clusters: toDuplicateClusters(req.items, outcome),
      singletons: outcome.singletons.map((i) => req.items[i]!),
      total_items: req.items.length,
      duplicate_items: outcome.duplicateItems,
      processing_time_ms: Math.round((performance.now() - started) * 100) / 100,
    };
  },
};
