import typia, { tags } from 'typia';
import { ApiError } from '../core/errors.js';
import type { Dimension } from '../core/inference/encoder.js';
import { float32Base64 } from '../core/vector-encoding.js';
import { parseDimension, type DimensionField } from './embed.js';
import { typed, type MenuText, type Route } from './route.js';

/** OpenAI's embeddings request, as its clients send it (https://platform.openai.com/docs/api-reference/embeddings). */
export interface OpenAIEmbeddingsRequest {
  /** One text, or 1-2048 texts; each at most 500 characters. Token-id arrays are not accepted. */
  input: MenuText | (MenuText[] & tags.MinItems<1> & tags.MaxItems<2048>);
  /** The served model's id (GET /v1/models lists it); another id is 404 model_not_found. */
  model: string;
  /** Vector size: 128, 256 or 384 (default 384, the model's own). Another number is 400 invalid_parameter. */
  dimensions?: (DimensionField & tags.Default<384>) | null;
  /** float (default): arrays of numbers; base64: each vector's little-endian float32 bytes, base64-encoded. */
  encoding_format?: 'float' | 'base64' | null;
  /** Accepted for compatibility and ignored. */
  user?: string | null;
}

export interface OpenAIEmbedding {
  object: 'embedding';
  /** The input's position. */
  index: number & tags.Type<'uint32'>;
  /** L2-normalised: an array of numbers, or a base64 string of float32 (little-endian) with encoding_format base64. */
  embedding: number[] | string;
}

export interface OpenAIEmbeddingsResponse {
  object: 'list';
  data: OpenAIEmbedding[];
  /** The served model's id. */
  model: string;
  usage: {
    /** Tokens the encoder read, summed over the inputs: each input once cleaned, [CLS] and [SEP] included, truncated at MENU_MAX_TOKENS. */
    prompt_tokens: number & tags.Type<'uint32'>;
    /** Equal to prompt_tokens (embeddings produce no tokens). */
    total_tokens: number & tags.Type<'uint32'>;
  };
}

interface ParsedEmbeddings {
  /** As `items`, so the one metering table counts them as /embed's (src/core/accounts/plans.ts). */
  items: string[];
  model: string;
  dimension: Dimension;
  base64: boolean;
}

/** POST /v1/embeddings: OpenAI-compatible embeddings, metered and plan-checked like /embed. */
export const openAIEmbeddingsRoute: Route<ParsedEmbeddings, OpenAIEmbeddingsResponse> = {
  endpoint: 'openai_embeddings',
  method: 'post',
  path: '/v1/embeddings',
  authenticated: true,
  acceptsBearer: true,
  errorStyle: 'openai',
  needsModels: true,
  parse(body) {
    const input = (body as { input?: unknown } | null)?.input;
    if (typeof input === 'number' || (Array.isArray(input) && input.some((x) => typeof x === 'number' || Array.isArray(x)))) {
      throw new ApiError('validation_error', 'input must be a string or an array of strings; token-id arrays are not supported', {}, 'input');
    }
    const req = typed(typia.validate<OpenAIEmbeddingsRequest>(body));
    return {
      items: typeof req.input === 'string' ? [req.input] : req.input,
      model: req.model,
      dimension: parseDimension(req.dimensions, 384, 'dimensions'),
      base64: req.encoding_format === 'base64',
    };
  },
  async handle(req, ctx) {
    const served = ctx.services.modelId;
    if (req.model !== served) {
      throw new ApiError('model_not_found', `The model '${req.model}' is not served here; this server serves '${served}' (GET /v1/models)`, {}, 'model');
    }
    const { texts, vectors } = await ctx.services.embedTexts(req.items, req.dimension);
    const tokens = ctx.services.countTokens(texts.map((c) => c.text)).reduce((a, b) => a + b, 0);
    return {
      object: 'list',
      data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: req.base64 ? float32Base64(v) : Array.from(v) })),
      model: served,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  },
};

export interface OpenAIModel {
  /** What /v1/embeddings takes as `model`. */
  id: string;
  object: 'model';
  /** When this server loaded it (Unix seconds). */
  created: number & tags.Type<'uint32'>;
  owned_by: string;
}

export interface OpenAIModelList {
  object: 'list';
  data: OpenAIModel[];
}

/** GET /v1/models: the one embedding model this server serves, for OpenAI clients that list models first. */
export const openAIModelsRoute: Route<null, OpenAIModelList> = {
  endpoint: 'openai_models',
  method: 'get',
  path: '/v1/models',
  authenticated: true,
  acceptsBearer: true,
  errorStyle: 'openai',
  needsModels: true,
  parse: () => null,
  async handle(_req, ctx) {
    const id = ctx.services.modelId!;
    return { object: 'list', data: [{ id, object: 'model', created: ctx.services.readySince, owned_by: 'menu-intelligence' }] };
  },
};
