import typia from 'typia';
import { ApiError } from '../core/errors.js';
import { SUPPORTED_DIMENSIONS, type Dimension } from '../core/inference/encoder.js';
import { checkCount, checkTexts, typed, type Route } from './route.js';

export interface EmbedRequest {
  items: string[];
  dimension?: number | null;
}

export interface EmbedResponse {
  embeddings: number[][];
  dimension: number;
  count: number;
}

/** A wrong type is 422 (typia); a well-typed value outside the allowed set, like dimension 100, is 400. */
export function parseDimension(value: number | null | undefined, fallback: Dimension): Dimension {
  if (value === undefined || value === null) return fallback;
  if (!(SUPPORTED_DIMENSIONS as readonly number[]).includes(value)) {
    throw new ApiError('invalid_parameter', `dimension must be one of ${SUPPORTED_DIMENSIONS.join(', ')}, got ${value}`);
  }
  return value as Dimension;
}

export function toJsonVector(v: Float32Array): number[] {
  return Array.from(v);
}

export function makeEmbedRoute(opts: { endpoint: 'embed' | 'embed_batch'; path: string; maxItems: number }): Route<{ items: string[]; dimension: Dimension }, EmbedResponse> {
  return {
    endpoint: opts.endpoint,
    method: 'post',
    path: opts.path,
    authenticated: true,
    needsModels: true,
    parse(body) {
      const req = typed(typia.validate<EmbedRequest>(body));
      checkCount('items', req.items.length, 1, opts.maxItems);
      checkTexts('items', req.items);
      return { items: req.items, dimension: parseDimension(req.dimension, 128) };
    },
    async handle(req, ctx) {
      const { vectors } = await ctx.services.embedTexts(req.items, req.dimension);
      return { embeddings: vectors.map(toJsonVector), dimension: req.dimension, count: vectors.length };
    },
  };
}

export const embedRoute = makeEmbedRoute({ endpoint: 'embed', path: '/embed', maxItems: 512 });
