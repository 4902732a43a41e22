import typia, { tags } from 'typia';
import { ApiError } from '../core/errors.js';
import { SUPPORTED_DIMENSIONS, type Dimension } from '../core/inference/encoder.js';
import { typed, type MenuText, type Route } from './route.js';

/** A vector size the service embeds at: 384 is the model's own space; 256 and 128 a learned projection. */
export type DimensionField = number & tags.JsonSchemaPlugin<{ enum: [128, 256, 384] }>;

export interface EmbedRequest {
  /** Menu item texts, in the order their vectors come back. */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<512>;
  /** Vector size: 128 (default), 256 or 384. Another number is 400 invalid_parameter. */
  dimension?: (DimensionField & tags.Default<128>) | null;
}

export interface EmbedBatchRequest {
  /** Menu item texts, in the order their vectors come back; chunked internally. */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<5000>;
  /** Vector size: 128 (default), 256 or 384. Another number is 400 invalid_parameter. */
  dimension?: (DimensionField & tags.Default<128>) | null;
}

export interface EmbedResponse {
  /** One L2-normalised vector per item, in submission order (cosine similarity is the dot product). */
  embeddings: number[][];
  /** The length of each vector. */
  dimension: number & tags.Type<'uint32'>;
  /** How many items were embedded. */
  count: number & tags.Type<'uint32'>;
}

/** A wrong type is 422 (typia); a well-typed value outside the allowed set, like dimension 100, is 400. */
export function parseDimension(value: number | null | undefined, fallback: Dimension, param = 'dimension'): Dimension {
  if (value === undefined || value === null) return fallback;
  if (!(SUPPORTED_DIMENSIONS as readonly number[]).includes(value)) {
    throw new ApiError('invalid_parameter', `${param} must be one of ${SUPPORTED_DIMENSIONS.join(', ')}, got ${value}`, {}, param);
  }
  return value as Dimension;
}

export function toJsonVector(v: Float32Array): number[] {
  return Array.from(v);
}

async function embed(req: { items: string[]; dimension: Dimension }, ctx: Parameters<Route['handle']>[1]): Promise<EmbedResponse> {
  const { vectors } = await ctx.services.embedTexts(req.items, req.dimension);
  return { embeddings: vectors.map(toJsonVector), dimension: req.dimension, count: vectors.length };
}

export const embedRoute: Route<{ items: string[]; dimension: Dimension }, EmbedResponse> = {
  endpoint: 'embed',
  method: 'post',
  path: '/embed',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<EmbedRequest>(body));
    return { items: req.items, dimension: parseDimension(req.dimension, 128) };
  },
  handle: embed,
};

/** Same contract as /embed with up to 5000 items; the batcher chunks them and interleaves other requests. */
export const embedBatchRoute: Route<{ items: string[]; dimension: Dimension }, EmbedResponse> = {
  endpoint: 'embed_batch',
  method: 'post',
  path: '/embed/batch',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<EmbedBatchRequest>(body));
    return { items: req.items, dimension: parseDimension(req.dimension, 128) };
  },
  handle: embed,
};
