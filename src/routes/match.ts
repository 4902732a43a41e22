import typia, { tags } from 'typia';
import { ApiError } from '../core/errors.js';
import { DEFAULT_COSINE_THRESHOLD, judgePairs } from '../core/match.js';
import { typed, type MenuText, type Route } from './route.js';
import { dot } from '../core/inference/encoder.js';
import { roundCosine } from '../core/number-format.js';

/** A cosine threshold, 0-1 (outside is 400 invalid_parameter); lower matches or groups more aggressively. */
export type CosineThreshold = number & tags.JsonSchemaPlugin<{ minimum: 0; maximum: 1 }> & tags.Default<0.85>;

export interface TextPair {
  text_a: MenuText;
  text_b: MenuText;
}

export interface MatchRequest {
  /** The pairs to judge, in the order their results come back. */
  pairs: TextPair[] & tags.MinItems<1> & tags.MaxItems<100>;
  /** Above this cosine the precision stage can only veto a match; below it only strong evidence confirms one. */
  cosine_threshold?: CosineThreshold | null;
}

export interface MatchResult {
  /** As submitted. */
  text_a: string;
  /** As submitted. */
  text_b: string;
  /** Cosine similarity of the two cleaned texts, 0-1. */
  cosine: number;
  /** Same-dish probability from the precision stage, 0-1; null when the pair did not pass the cosine gate. */
  reranker_score: number | null;
  /** The two texts name the same dish. */
  match: boolean;
  /** One side is veg and the other non-veg (egg counts as non-veg), or they are twins that differ by diet. */
  dietary_conflict: boolean;
  /** Both main proteins are known and differ. */
  protein_conflict: boolean;
}

export interface MatchResponse {
  /** One result per pair, in submission order. */
  results: MatchResult[];
}

/** A threshold is a cosine: a number in [0, 1]; outside is 400 invalid_parameter (a wrong type is 422). */
export function parseCosineThreshold(value: number | null | undefined): number {
  if (value === undefined || value === null) return DEFAULT_COSINE_THRESHOLD;
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new ApiError('invalid_parameter', `cosine_threshold must be between 0 and 1, got ${value}`, {}, 'cosine_threshold');
  }
  return value;
}

export const matchRoute: Route<{ pairs: TextPair[]; threshold: number }, MatchResponse> = {
  endpoint: 'match',
  method: 'post',
  path: '/match',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<MatchRequest>(body));
    return { pairs: req.pairs, threshold: parseCosineThreshold(req.cosine_threshold) };
  },
  async handle(req, ctx) {
    const s = ctx.services;
    const texts = s.readTexts(req.pairs.flatMap((p) => [p.text_a, p.text_b]));
    // Both sides are embedded with other-language food words in English, so "Crevettes à l'ail" meets "Garlic Prawns".
    const vectors = await s.vectorsOf(texts, 384);
    const pairs = req.pairs.map((_, i) => [texts[2 * i]!, texts[2 * i + 1]!] as const);
    const cosines = req.pairs.map((_, i) => dot(vectors[2 * i]!, vectors[2 * i + 1]!));
    const verdicts = await judgePairs(s.knowledge, pairs, cosines, req.threshold, s.pairPrecision());
    return {
      results: req.pairs.map((p, i) => ({
        text_a: p.text_a,
        text_b: p.text_b,
        cosine: roundCosine(verdicts[i]!.cosine),
        reranker_score: verdicts[i]!.reranker_score,
        match: verdicts[i]!.match,
        dietary_conflict: verdicts[i]!.dietary_conflict,
        protein_conflict: verdicts[i]!.protein_conflict,
      })),
    };
  },
};

