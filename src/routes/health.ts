import { SUPPORTED_DIMENSIONS } from '../core/inference/encoder.js';
import type { Route } from './route.js';
import type { ServedModel } from '../core/services.js';

/** The basic view (status, model) for everyone; the other fields only for the operator key. */
export interface HealthResponse {
  status: 'healthy';
  /** The served embedding model's id (also what /v1/embeddings takes as `model`). */
  model: string | null;
  /** Embedding service status (operator only). */
  biencoder?: string;
  backend?: 'onnx';
  /** Same-dish precision stage; null when not loaded (operator only). */
  reranker?: string | null;
  /** Search precision stage; null when not loaded (operator only). */
  search_reranker?: string | null;
  /** Cuisine classifier; null when not loaded (operator only). */
  classifier?: string | null;
  supported_dimensions?: number[];
  /** Cached embeddings (operator only). */
  embedding_cache_size?: number;
  /** Loaded concept centroids (operator only). */
  concept_count?: number;
  load_time_seconds?: number;
  /** native (the Rust addon) or js (operator only). */
  vector_backend?: string;
  /** Texts waiting for inference (operator only). */
  inference_queue?: number;
  /** Every model the build serves: its id, the precision of its graph as built, and whether it is loaded (operator only). */
  models?: ServedModel[];
}

/** While the models load: 503 with this body and Retry-After. */
export interface HealthLoading {
  status: 'loading';
}

/**
 * Basic view for everyone; the diagnostic view for the operator key only (customer keys get the basic view, so
 * deployment internals are not a customer-visible contract). The HTTP layer answers 503 while models load.
 */
export const healthRoute: Route<null, HealthResponse> = {
  endpoint: 'health',
  method: 'get',
  path: '/health',
  authenticated: false,
  needsModels: true,
  parse: () => null,
  async handle(_req, ctx) {
    const s = ctx.services;
    const basic: HealthResponse = { status: 'healthy', model: s.modelId };
    if (!ctx.isOperator) return basic;
    const enc = s.requireEncoder();
    return {
      ...basic,
      biencoder: `ready (${enc.model.id}, ${enc.model.precision}, ${s.config.executionProvider})`,
      backend: 'onnx',
      reranker: s.rerankerStatus('match'),
      search_reranker: s.rerankerStatus('search'),
      classifier: s.classifierStatus(),
      supported_dimensions: [...SUPPORTED_DIMENSIONS],
      embedding_cache_size: enc.cacheStats.entries,
      concept_count: s.conceptCount(),
      load_time_seconds: Math.round(s.loadTimeSeconds * 1000) / 1000,
      vector_backend: s.vectorBackend(),
      inference_queue: enc.batcher.queuedItems,
      models: s.servedModels(),
    };
  },
};
