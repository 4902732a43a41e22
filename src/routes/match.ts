import typia from 'typia';
import { ApiError } from '../core/errors.js';
import { judgePairs } from '../core/match.js';
import { parseMenuText } from '../core/menu-text.js';
import { checkCount, checkText, typed, type Route } from './route.js';
import { dot } from '../core/inference/encoder.js';

export interface MatchRequest {
  pairs: { text_a: string; text_b: string }[];
  cosine_threshold?: number | null;
}

export interface MatchResult {
  text_a: string;
  text_b: string;
  cosine: number;
  reranker_score: number | null;
  match: boolean;
  dietary_conflict: boolean;
  protein_conflict: boolean;
}

/** A threshold is a cosine: a number in [0, 1]; outside is 400 invalid_parameter (a wrong type is 422). */
export function parseCosineThreshold(value: number | null | undefined): number {
  if (value === undefined || value === null) return 0.85;
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new ApiError('invalid_parameter', `cosine_threshold must be between 0 and 1, got ${value}`);
  }
  return value;
}

export const matchRoute: Route<{ pairs: MatchRequest['pairs']; threshold: number }, { results: MatchResult[] }> = {
  endpoint: 'match',
  method: 'post',
  path: '/match',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<MatchRequest>(body));
    checkCount('pairs', req.pairs.length, 1, 100);
    req.pairs.forEach((p, i) => {
      checkText(`pairs[${i}].text_a`, p.text_a);
      checkText(`pairs[${i}].text_b`, p.text_b);
    });
    return { pairs: req.pairs, threshold: parseCosineThreshold(req.cosine_threshold) };
  },
  async handle(req, ctx) {
    const s = ctx.services;
    const texts = req.pairs.flatMap((p) => [p.text_a, p.text_b]).map((t) => parseMenuText(s.knowledge, t));
    // Both sides are embedded with other-language food words in English, so "Crevettes à l'ail" meets "Garlic Prawns".
    const vectors = await s.requireEncoder().encode(texts.map((t) => t.english), 384);
    const pairs = req.pairs.map((_, i) => [texts[2 * i]!, texts[2 * i + 1]!] as const);
    const cosines = req.pairs.map((_, i) => dot(vectors[2 * i]!, vectors[2 * i + 1]!));
    const verdicts = await judgePairs(s.knowledge, pairs, cosines, req.threshold, s.matchScorer());
    return {
      results: req.pairs.map((p, i) => ({
        text_a: p.text_a,
        text_b: p.text_b,
        cosine: Math.round(verdicts[i]!.cosine * 1e6) / 1e6,
        reranker_score: verdicts[i]!.reranker_score,
        match: verdicts[i]!.match,
        dietary_conflict: verdicts[i]!.dietary_conflict,
        protein_conflict: verdicts[i]!.protein_conflict,
      })),
    };
  },
};

