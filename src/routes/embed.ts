import typia, { tags } from 'typia';
import { ApiError } from '../core/errors.js';
import { SUPPORTED_DIMENSIONS, type Dimension } from '../core/inference/encoder.js';
import { embeddingsJson, float32Body } from '../core/vector-encoding.js';
import { prefers, RawResponse, typed, type MenuText, type Route } from './route.js';

/** A vector size the service embeds at: 384 is the model's own space; 256 and 128 a learned projection. */
export type DimensionField = number & tags.JsonSchemaPlugin<{ enum: [128, 256, 384] }>;

/** float (default): each vector an array of numbers; base64: each vector its little-endian float32 bytes in base64. */
export type EncodingFormat = 'float' | 'base64';

export interface EmbedRequest {
  /** Menu item texts, in the order their vectors come back. */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<512>;
  /** Vector size: 128 (default), 256 or 384. Another number is 400 invalid_parameter. */
  dimension?: (DimensionField & tags.Default<128>) | null;
  /** float (default): each vector an array of numbers; base64: each vector its little-endian float32 bytes in base64 (as OpenAI's API). */
  encoding_format?: (EncodingFormat & tags.Default<'float'>) | null;
}

export interface EmbedBatchRequest {
  /** Menu item texts, in the order their vectors come back; chunked internally. */
  items: MenuText[] & tags.MinItems<1> & tags.MaxItems<5000>;
  /** Vector size: 128 (default), 256 or 384. Another number is 400 invalid_parameter. */
  dimension?: (DimensionField & tags.Default<128>) | null;
  /** float (default): each vector an array of numbers; base64: each vector its little-endian float32 bytes in base64 (as OpenAI's API). */
  encoding_format?: (EncodingFormat & tags.Default<'float'>) | null;
}

export interface EmbedResponse {
  /**
   * One L2-normalised vector per item, in submission order (cosine similarity is the dot product): arrays of numbers,
   * or base64 strings with `encoding_format: "base64"`.
   */
  embeddings: number[][] | string[];
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

/** The binary answer of /embed and /embed/batch, chosen by the Accept header. */
export const BINARY_TYPE = 'application/octet-stream';

export interface ParsedEmbed {
  items: string[];
  dimension: Dimension;
  format: EncodingFormat;
}

/**
 * The body is written from the vectors directly (src/core/vector-encoding.ts): JSON numbers, base64 strings
 * (`encoding_format`), or with `Accept: application/octet-stream` the raw little-endian float32 vectors end to end,
 * their count and dimension in the X-Embedding-Count / X-Embedding-Dimension headers.
 */
async function embed(req: ParsedEmbed, ctx: Parameters<Route['handle']>[1]): Promise<RawResponse> {
  const { vectors } = await ctx.services.embedTexts(req.items, req.dimension);
  if (prefers(ctx.accept, BINARY_TYPE)) {
    return new RawResponse(BINARY_TYPE, float32Body(vectors, req.dimension), {
      'X-Embedding-Count': String(vectors.length),
      'X-Embedding-Dimension': String(req.dimension),
    });
  }
  return new RawResponse('application/json', embeddingsJson(vectors, req.dimension, req.format));
}

export const embedRoute: Route<ParsedEmbed, RawResponse> = {
  endpoint: 'embed',
  method: 'post',
  path: '/embed',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<EmbedRequest>(body));
    return { items: req.items, dimension: parseDimension(req.dimension, 128), format: req.encoding_format ?? 'float' };
  },
  handle: embed,
};

/** Same contract as /embed with up to 5000 items; the batcher chunks them and interleaves other requests. */
export const embedBatchRoute: Route<ParsedEmbed, RawResponse> = {
  endpoint: 'embed_batch',
  method: 'post',
  path: '/embed/batch',
  authenticated: true,
  needsModels: true,
  parse(body) {
    const req = typed(typia.validate<EmbedBatchRequest>(body));
    return { items: req.items, dimension: parseDimension(req.dimension, 128), format: req.encoding_format ?? 'float' };
  },
  handle: embed,
};
