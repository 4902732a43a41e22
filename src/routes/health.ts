import { SUPPORTED_DIMENSIONS } from '../core/inference/encoder.js';
import type { Route } from './route.js';
import type { ServedModel } from '../core/services.js';

export interface HealthBasic {
  status: 'healthy';
  model: string | null;
}

export interface HealthDiagnostic extends HealthBasic {
  biencoder: string;
  backend: 'onnx';
  reranker: string | null;
  search_reranker: string | null;
  classifier: string | null;
  supported_dimensions: number[];
  embedding_cache_size: number;
  concept_count: number;
  load_time_seconds: number;
  vector_backend: string;
  inference_queue: number;
  /** Every model the build serves: id, precision as built, loaded or not. */
  models: ServedModel[];
}

/**
 * Basic view for everyone; the diagnostic view for the operator key only (customer keys get the basic view, so
 * deployment internals are not a customer-visible contract). The HTTP layer answers 503 while models load.
 */
export const healthRoute: Route<null, HealthBasic | HealthDiagnostic> = {
  endpoint: 'health',
  method: 'get',
  path: '/health',
  authenticated: false,
  needsModels: true,
  parse: () => null,
  async handle(_req, ctx) {
    const s = ctx.services;
    const basic: HealthBasic = { status: 'healthy', model: s.modelId };
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
