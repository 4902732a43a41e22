import typia from 'typia';
import { ApiError } from '../core/errors.js';
import { SUPPORTED_DIMENSIONS, type Dimension } from '../core/inference/encoder.js';
import { embeddingsJson, float32Body } from '../core/vector-encoding.js';
import { checkCount, checkTexts, prefers, RawResponse, typed, type Route } from './route.js';

export interface EmbedRequest {
  items: string[];
  dimension?: number | null;
  /** float (default): each vector an array of numbers; base64: each vector its little-endian float32 bytes in base64. */
  encoding_format?: 'float' | 'base64' | null;
}

export interface EmbedResponse {
  /** Arrays of numbers, or base64 strings with `encoding_format: "base64"`. */
  embeddings: number[][] | string[];
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

export const BINARY_TYPE = 'application/octet-stream';

interface ParsedEmbed {
  items: string[];
  dimension: Dimension;
  format: 'float' | 'base64';
}

/**
 * /embed and /embed/batch. The body is written from the vectors directly (src/core/vector-encoding.ts): JSON numbers,
 * base64 strings (`encoding_format`), or with `Accept: application/octet-stream` the raw little-endian float32
 * vectors end to end, their count and dimension in the X-Embedding-Count / X-Embedding-Dimension headers.
 */
export function makeEmbedRoute(opts: { endpoint: 'embed' | 'embed_batch'; path: string; maxItems: number }): Route<ParsedEmbed, RawResponse> {
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
      return { items: req.items, dimension: parseDimension(req.dimension, 128), format: req.encoding_format ?? 'float' };
    },
    async handle(req, ctx) {
      const { vectors } = await ctx.services.embedTexts(req.items, req.dimension);
      if (prefers(ctx.accept, BINARY_TYPE)) {
        return new RawResponse(BINARY_TYPE, float32Body(vectors, req.dimension), {
          'X-Embedding-Count': String(vectors.length),
          'X-Embedding-Dimension': String(req.dimension),
        });
      }
      return new RawResponse('application/json', embeddingsJson(vectors, req.dimension, req.format));
    },
  };
}

export const embedRoute = makeEmbedRoute({ endpoint: 'embed', path: '/embed', maxItems: 512 });
